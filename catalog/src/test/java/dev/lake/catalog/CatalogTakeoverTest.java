package dev.lake.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.TableEngine;
import dev.lake.engine.Version;
import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.lease.ManualClock;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A takeover reads the open-operations index, not the retained history: its cost follows the
 * operations a predecessor left in progress, and what crashes leave in the index is cleaned.
 */
class CatalogTakeoverTest {

  private static final TableIdent T = TableIdent.of("robots", "episodes");
  private static final TableIdent U = TableIdent.of("robots", "trials");

  @TempDir Path dir;
  private BufferAllocator allocator;
  private RocksDbMetaStore raw;
  private FaultyMetaStore store;
  private TableEngine log;
  private CatalogSettings settings;
  private Catalog catalog;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    raw = RocksDbMetaStore.open(dir.resolve("meta"));
    store = new FaultyMetaStore(raw);
    log = Rows.logEngine();
    settings = CatalogSettings.of(dir.resolve("warehouse"))
        .withClock(new ManualClock(1_800_000_000_000L));
    catalog = Catalog.open(store, Map.of("log", log), settings);
  }

  @AfterEach
  void close() {
    catalog.close();
    log.close();
    raw.close();
    allocator.close();
  }

  @Test
  void aTakeoverReadsOnlyTheOperationsLeftInProgressNotTheFinishedHistory() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    catalog.create(U, Rows.IDS, "log");
    int finished = 300;
    for (int i = 0; i < finished; i++) {
      Rows.append(catalog, allocator, T, Rows.operation(T, i), i, 1);
    }
    // Left engine_committed: the registry pointer's advance is lost.
    AppendOperation pointerLost = Rows.operation(T, 1_000);
    store.failWriteTo(RegistryCodec.tableKey(T)::equals, FaultyMetaStore.Mode.BEFORE);
    assertThrows(MetaStoreException.class, () -> Rows.append(catalog, allocator, T, pointerLost, 1_000, 2));
    // Left reserved: the record's move to engine_committed is lost.
    AppendOperation movedLost = Rows.operation(U, 2_000);
    store.failWriteTo(nth(OperationRecord.key(U, movedLost), 2), FaultyMetaStore.Mode.BEFORE);
    assertThrows(MetaStoreException.class, () -> Rows.append(catalog, allocator, U, movedLost, 2_000, 3));
    assertEquals(finished + 2, records(OperationRecord.PREFIX).size());
    assertEquals(2, records(OperationRecords.OPEN_PREFIX).size());

    reopen();

    assertEquals(2, catalog.takeoverRecordsRead(), "the two in progress, not the " + finished + " finished");
    assertTrue(records(OperationRecords.OPEN_PREFIX).isEmpty(), "both finished and unindexed");
    Rows.assertNoOperationInProgress(raw);
    assertEquals(Version.of(finished + 1), catalog.lookup(T).orElseThrow().version(), "rolled forward");
    assertEquals(finished + 2, Rows.count(catalog, T));
    assertEquals(Version.of(finished + 1), Rows.append(catalog, allocator, T, pointerLost, 1_000, 2).version(), "replay");
    assertEquals(finished + 2, Rows.count(catalog, T));
    long before = Rows.count(catalog, U);
    Rows.append(catalog, allocator, U, movedLost, 2_000, 3);
    assertEquals(3, Rows.count(catalog, U), "the reserved append landed once (before the retry: " + before + " rows)");

    reopen();
    assertEquals(0, catalog.takeoverRecordsRead(), "nothing in progress, nothing read");
  }

  @Test
  void anIndexEntryWhoseRecordWasNeverWrittenIsRemovedAndTheRetryLandsOnce() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    Rows.append(catalog, allocator, T, Rows.operation(T, 1), 0, 2);
    AppendOperation op = Rows.operation(T, 2);
    String key = OperationRecord.key(T, op);
    store.failWriteTo(key::equals, FaultyMetaStore.Mode.BEFORE); // the record's create is lost
    assertThrows(MetaStoreException.class, () -> Rows.append(catalog, allocator, T, op, 10, 3));
    assertTrue(raw.get(key).isEmpty());
    assertTrue(raw.get(OperationRecords.openKey(key)).isPresent(), "the index entry came first");

    reopen();

    assertEquals(1, catalog.takeoverRecordsRead());
    assertTrue(raw.get(OperationRecords.openKey(key)).isEmpty(), "the stale entry is removed");
    assertTrue(raw.get(key).isEmpty(), "and nothing else is written for it");
    assertEquals(Version.of(1), catalog.lookup(T).orElseThrow().version());
    assertEquals(Version.of(2), Rows.append(catalog, allocator, T, op, 10, 3).version());
    assertEquals(5, Rows.count(catalog, T));
    assertTrue(records(OperationRecords.OPEN_PREFIX).isEmpty());
  }

  @Test
  void anIndexEntryLeftAfterTheCommitIsRemovedAndTheOperationStillReplays() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    AppendOperation op = Rows.operation(T, 1);
    String open = OperationRecords.openKey(OperationRecord.key(T, op));
    // Its first write creates the entry, the second (after the commit) would remove it.
    store.failWriteTo(nth(open, 2), FaultyMetaStore.Mode.BEFORE);
    assertEquals(Version.of(1), Rows.append(catalog, allocator, T, op, 0, 2).version(), "the commit stands");
    assertTrue(store.failed());
    assertTrue(raw.get(open).isPresent(), "its removal was lost");

    reopen();

    assertEquals(1, catalog.takeoverRecordsRead());
    assertTrue(raw.get(open).isEmpty());
    Rows.assertNoOperationInProgress(raw);
    assertEquals(Version.of(1), Rows.append(catalog, allocator, T, op, 0, 2).version(), "the retry gets the original version");
    assertEquals(2, Rows.count(catalog, T));
  }

  @Test
  void aStoreWrittenBeforeTheIndexIsReadInFullOnceThenThroughTheIndex() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    for (int i = 0; i < 20; i++) {
      Rows.append(catalog, allocator, T, Rows.operation(T, i), i, 1);
    }
    AppendOperation pointerLost = Rows.operation(T, 100);
    store.failWriteTo(RegistryCodec.tableKey(T)::equals, FaultyMetaStore.Mode.BEFORE);
    assertThrows(MetaStoreException.class, () -> Rows.append(catalog, allocator, T, pointerLost, 100, 1));
    // As an earlier release left it: no index entries and no marker.
    for (ScanEntry e : records(OperationRecords.OPEN_PREFIX)) {
      assertTrue(raw.deleteIfEquals(e.key(), e.value()));
    }
    byte[] marker = raw.get(OperationRecords.INDEX_MARKER).orElseThrow();
    assertTrue(raw.deleteIfEquals(OperationRecords.INDEX_MARKER, marker));

    reopen();

    assertEquals(21, catalog.takeoverRecordsRead(), "every record, once");
    assertTrue(raw.get(OperationRecords.INDEX_MARKER).isPresent());
    Rows.assertNoOperationInProgress(raw);
    assertEquals(Version.of(21), catalog.lookup(T).orElseThrow().version(), "reconciled in the full pass");

    reopen();
    assertEquals(0, catalog.takeoverRecordsRead(), "from now on through the index");
  }

  /** Accepts the {@code n}-th write to {@code key}. */
  private static Predicate<String> nth(String key, int n) {
    AtomicInteger seen = new AtomicInteger();
    return k -> k.equals(key) && seen.incrementAndGet() == n;
  }

  private record ScanEntry(String key, byte[] value) {}

  private List<ScanEntry> records(String prefix) {
    return raw.scan(prefix, Optional.empty(), 1000).entries().stream()
        .map(e -> new ScanEntry(e.key(), e.value())).toList();
  }

  private void reopen() {
    catalog.close();
    catalog = Catalog.open(store, Map.of("log", log), settings);
  }
}
