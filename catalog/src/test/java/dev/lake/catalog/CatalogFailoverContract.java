package dev.lake.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.Version;
import dev.lake.metastore.FencedException;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.lease.GuardedMetaStore;
import dev.lake.metastore.lease.LeaseElection;
import dev.lake.metastore.lease.LeaseSettings;
import dev.lake.metastore.lease.ManualClock;
import dev.lake.metastore.lease.NotLeaderException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two authorities over one store, each behind its lease ({@link GuardedMetaStore}): a former
 * leader, paused while its successor took over, can neither advance nor undo anything, and what it
 * left half-done is finished exactly once. Run against each backend.
 */
abstract class CatalogFailoverContract {

  private static final TableIdent T = TableIdent.of("robots", "episodes");
  private static final LeaseSettings LEASE =
      new LeaseSettings(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(1));

  @TempDir protected Path dir;
  private BufferAllocator allocator;
  private MetaStore store;
  private TableEngine log;
  private ManualClock clockA;
  private ManualClock clockB;
  private LeaseElection a;
  private LeaseElection b;
  private Catalog former;
  private Catalog successor;

  protected abstract MetaStore newStore();

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    store = newStore();
    log = Rows.logEngine();
    clockA = new ManualClock(1_800_000_000_000L);
    clockB = new ManualClock(1_800_000_000_000L);
    a = new LeaseElection(store, "lease/metasrv", "metasrv-a", LEASE, clockA);
    b = new LeaseElection(store, "lease/metasrv", "metasrv-b", LEASE, clockB);
    assertTrue(a.campaign().isPresent());
    former = Catalog.open(new GuardedMetaStore(store, a), Map.of("log", log),
        CatalogSettings.of(dir.resolve("warehouse")).withClock(clockA));
  }

  @AfterEach
  void close() {
    former.close();
    if (successor != null) {
      successor.close();
    }
    a.close();
    b.close();
    log.close();
    store.close();
    allocator.close();
  }

  @Test
  void aPausedFormerLeaderCannotAdvanceOrUndoAndItsRetryLandsOnceThroughTheSuccessor() throws Exception {
    former.create(T, Rows.IDS, "log");
    assertEquals(Version.of(1), append(former, Rows.operation(T, 1), 0, 3).version());
    // A pauses (its clock stands still, so it still believes it leads); B's lease clock passes
    // A's expiry and B takes over.
    takeOver();
    assertEquals(Version.of(2), append(successor, Rows.operation(T, 2), 10, 2).version());
    long generation = successor.generation();

    // A resumes: its append reaches the engine, but the registry pointer B wrote refuses it.
    AppendOperation late = Rows.operation(T, 3);
    assertThrows(FencedException.class, () -> append(former, late, 100, 4));
    assertEquals(Version.of(2), successor.lookup(T).orElseThrow().version());
    assertEquals(5, rows(successor));
    // A's drop is refused at the record B wrote; the table stays, in B and after a takeover.
    assertThrows(FencedException.class, () -> former.drop(T));
    assertTrue(successor.lookup(T).isPresent());
    assertEquals(generation, successor.generation(), "nothing B serves moved");

    // The client retries the late append through B: the version the engine kept, exactly once.
    assertEquals(Version.of(3), append(successor, late, 100, 4).version());
    assertEquals(9, rows(successor));
    successor.close();
    successor = Catalog.open(new GuardedMetaStore(store, b), Map.of("log", log),
        CatalogSettings.of(dir.resolve("warehouse")).withClock(clockB));
    assertTrue(successor.lookup(T).isPresent(), "A's interrupted drop was rolled back");
    assertTrue(store.get(DropTombstone.key(T)).isEmpty());
    assertEquals(Version.of(3), append(successor, late, 100, 4).version());
    assertEquals(9, rows(successor));
  }

  @Test
  void aFormerLeaderWhoseLeaseExpiredWritesNothing() throws Exception {
    former.create(T, Rows.IDS, "log");
    clockA.advance(LEASE.ttl());
    takeOver();
    assertThrows(NotLeaderException.class, () -> append(former, Rows.operation(T, 1), 0, 3));
    assertThrows(NotLeaderException.class, () -> former.drop(T));
    assertThrows(NotLeaderException.class, () -> former.createNamespace("other"));
    assertEquals(Version.INITIAL, successor.lookup(T).orElseThrow().version());
    assertTrue(store.scan(OperationRecord.PREFIX, Optional.empty(), 10).entries().isEmpty());
    assertTrue(store.get(DropTombstone.key(T)).isEmpty());
  }

  @Test
  void theSuccessorFinishesAnAppendItsPredecessorLeftEngineCommitted() throws Exception {
    former.create(T, Rows.IDS, "log");
    AppendOperation op = Rows.operation(T, 1);
    // A loses its lease between the engine commit and the registry advance.
    FaultyMetaStore faulty = new FaultyMetaStore(new GuardedMetaStore(store, a));
    Catalog crashing = Catalog.open(faulty, Map.of("log", log),
        CatalogSettings.of(dir.resolve("warehouse")).withClock(clockA));
    faulty.failWriteTo(RegistryCodec.tableKey(T)::equals, FaultyMetaStore.Mode.BEFORE);
    assertThrows(dev.lake.metastore.MetaStoreException.class, () -> append(crashing, op, 0, 3));
    crashing.close();
    clockA.advance(LEASE.ttl());
    takeOver();
    assertEquals(Version.of(1), successor.lookup(T).orElseThrow().version(), "reconciled on takeover");
    assertEquals(3, rows(successor));
    assertEquals(Version.of(1), append(successor, op, 0, 3).version());
    assertEquals(3, rows(successor));
  }

  @Test
  void aFormerLeaderPausedBeforeRegisteringACreateIsFencedAndTheSuccessorFinishedIt() throws Exception {
    FaultyMetaStore paused = new FaultyMetaStore(new GuardedMetaStore(store, a));
    Catalog pausing = Catalog.open(paused, Map.of("log", log),
        CatalogSettings.of(dir.resolve("warehouse")).withClock(clockA));
    AppendOperation op = Rows.operation(T, 1);
    // held just before the registry's create
    paused.failWriteTo(RegistryCodec.tableKey(T)::equals, FaultyMetaStore.Mode.PAUSE);
    java.util.concurrent.CompletableFuture<TableEntry> late =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> {
          try (RecordBatchReader rows = Rows.ids(allocator, 0, 4)) {
            return pausing.createWith(T, Rows.IDS, "log", op, rows);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
    paused.awaitPaused();
    takeOver(); // reconciles: the engine data is complete, so the successor registers it
    TableEntry registered = successor.lookup(T).orElseThrow();
    assertEquals(4, rows(successor));
    paused.resume();
    // Its registry write meets the key the successor wrote: refused by the fence, precisely.
    java.util.concurrent.ExecutionException refused =
        assertThrows(java.util.concurrent.ExecutionException.class, late::get);
    assertTrue(refused.getCause() instanceof FencedException, refused.getCause().toString());
    assertEquals(registered, successor.lookup(T).orElseThrow());
    assertEquals(4, rows(successor), "its files were not removed");
    // The client's retry through the successor is a replay of the registered table.
    try (RecordBatchReader rows = Rows.ids(allocator, 0, 4)) {
      assertEquals(registered, successor.createWith(T, Rows.IDS, "log", op, rows));
    }
    pausing.close();
  }

  private void takeOver() {
    clockB.advance(LEASE.ttl().plusSeconds(1));
    assertTrue(b.campaign().isPresent());
    successor = Catalog.open(new GuardedMetaStore(store, b), Map.of("log", log),
        CatalogSettings.of(dir.resolve("warehouse")).withClock(clockB));
  }

  private TableEntry append(Catalog catalog, AppendOperation op, long first, int rows) throws Exception {
    try (RecordBatchReader reader = Rows.ids(allocator, first, rows)) {
      return catalog.append(T, Optional.empty(), op, reader);
    }
  }

  private long rows(Catalog catalog) {
    return catalog.readHandle(T).orElseThrow().latestSnapshot().rowCount();
  }
}
