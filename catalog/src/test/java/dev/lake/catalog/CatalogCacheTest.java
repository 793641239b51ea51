package dev.lake.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.Version;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Query-side catalog cache over a real {@link Catalog} on RocksDB as its authority. */
class CatalogCacheTest {

  private static final Schema IDS =
      new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));
  private static final TableIdent EPISODES = TableIdent.of("robots", "episodes");
  private static final TableIdent FRAMES = TableIdent.of("robots", "frames");

  @TempDir Path dir;
  private BufferAllocator allocator;
  private RocksDbMetaStore store;
  private TableEngine log;
  private Catalog catalog;
  private CountingRegistry authority;
  private final List<CatalogCache> caches = new ArrayList<>();

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    store = RocksDbMetaStore.open(dir.resolve("meta"));
    log = logEngine();
    catalog = Catalog.open(store, Map.of("log", log), dir.resolve("warehouse"));
    authority = new CountingRegistry(catalog);
  }

  @AfterEach
  void close() {
    caches.forEach(CatalogCache::close);
    catalog.close();
    log.close();
    store.close();
    allocator.close();
  }

  private CatalogCache cache() {
    CatalogCache cache = CatalogCache.unscheduled(authority, Map.of("log", log));
    caches.add(cache);
    return cache;
  }

  @Test
  void startTakesAFullSnapshotAndServesIt() throws Exception {
    TableEntry created = catalog.create(EPISODES, IDS, "log");
    catalog.createNamespace("empty");
    CatalogCache cache = cache();
    assertTrue(cache.isReady());
    assertTrue(cache.awaitReady(Duration.ZERO));
    assertEquals(List.of("empty", "robots"), cache.namespaces());
    assertEquals(List.of(created), cache.tables("robots"));
    assertEquals(created, cache.lookup(EPISODES).orElseThrow());
    assertTrue(cache.namespaceExists("empty"));
    assertFalse(cache.namespaceExists("nowhere"));
  }

  @Test
  void aCacheIsNotReadyUntilItHasASnapshotAndRefusesReadsMeanwhile() throws Exception {
    authority.down = true;
    CatalogCache cache = cache();
    assertFalse(cache.isReady());
    assertFalse(cache.awaitReady(Duration.ZERO));
    assertThrows(RegistryUnavailableException.class, () -> cache.lookup(EPISODES));
    assertThrows(RegistryUnavailableException.class, cache::namespaces);
    assertThrows(RegistryUnavailableException.class, cache::refresh);
    assertTrue(cache.stats().snapshotAge().isEmpty());
    authority.down = false;
    catalog.create(EPISODES, IDS, "log");
    assertTrue(cache.refresh());
    assertTrue(cache.isReady());
    assertTrue(cache.awaitReady(Duration.ZERO));
    assertTrue(cache.lookup(EPISODES).isPresent());
    assertTrue(cache.stats().snapshotAge().isPresent());
  }

  @Test
  void tenThousandWarmLookupsMakeNoAuthorityCall() throws Exception {
    CatalogCache cache = cache();
    cache.create(EPISODES, IDS, "log");
    append(cache, EPISODES, 0, 3);
    int before = authority.calls.get();
    long hitsBefore = cache.stats().hits();
    for (int i = 0; i < 10_000; i++) {
      TableHandle table = cache.readHandle(EPISODES).orElseThrow();
      assertEquals(3, table.latestSnapshot().rowCount());
      assertEquals(List.of("robots"), cache.namespaces());
      assertEquals(1, cache.tables("robots").size());
      assertTrue(cache.namespaceExists("robots"));
    }
    assertEquals(before, authority.calls.get(), "warm lookups called the authority");
    CatalogCache.Stats stats = cache.stats();
    assertEquals(10_000, stats.hits() - hitsBefore);
    assertEquals(0, stats.misses());
  }

  @Test
  void readersAreCachedByTableIncarnationAndVersion() throws Exception {
    CatalogCache cache = cache();
    cache.create(EPISODES, IDS, "log");
    TableHandle first = cache.readHandle(EPISODES).orElseThrow();
    assertSame(first, cache.readHandle(EPISODES).orElseThrow());
    append(cache, EPISODES, 0, 2);
    TableHandle second = cache.readHandle(EPISODES).orElseThrow();
    assertNotEquals(first.currentVersion(), second.currentVersion());
    assertEquals(0, first.latestSnapshot().rowCount(), "a reader is immutable");
    assertEquals(2, second.latestSnapshot().rowCount());
  }

  @Test
  void anAcknowledgedWriteIsVisibleToTheNextReadWithoutARefresh() throws Exception {
    CatalogCache cache = cache();
    cache.createNamespace("lab");
    assertTrue(cache.namespaceExists("lab"));
    TableEntry created = cache.create(EPISODES, IDS, "log");
    assertEquals(created, cache.lookup(EPISODES).orElseThrow());
    TableEntry appended = append(cache, EPISODES, 0, 4);
    assertEquals(appended, cache.lookup(EPISODES).orElseThrow());
    assertEquals(4, cache.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
    cache.drop(EPISODES);
    assertTrue(cache.lookup(EPISODES).isEmpty());
    cache.dropNamespace("lab", false);
    assertFalse(cache.namespaceExists("lab"));
    assertEquals(1, cache.stats().refreshes(), "only the start's snapshot was taken");
  }

  @Test
  void aRefreshWithAnOlderViewNeverUndoesAnAcknowledgedWrite() throws Exception {
    CatalogCache cache = cache();
    cache.create(EPISODES, IDS, "log");
    TableEntry appended = append(cache, EPISODES, 0, 2);
    // A refresh whose snapshot was read before these writes were acknowledged: the append to
    // episodes and the create of frames happen while the refresh is in flight.
    authority.duringNextRefresh(() -> {
      try {
        cache.create(FRAMES, IDS, "log");
        append(cache, EPISODES, 10, 3);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    cache.refresh();
    assertTrue(cache.lookup(FRAMES).isPresent(), "the create was undone");
    TableEntry now = cache.lookup(EPISODES).orElseThrow();
    assertTrue(now.version().compareTo(appended.version()) > 0, "the append was undone");
    assertEquals(5, cache.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
    // The next refresh sees the authority's own state, which holds both.
    cache.refresh();
    assertEquals(catalog.lookup(EPISODES), cache.lookup(EPISODES));
    assertEquals(catalog.lookup(FRAMES), cache.lookup(FRAMES));
  }

  @Test
  void aSecondCacheOverTheSameAuthorityConvergesAfterRefresh() throws Exception {
    CatalogCache writer = cache();
    CatalogCache reader = cache();
    writer.create(EPISODES, IDS, "log");
    // A name the reader's snapshot lacks is looked up once: read your writes across replicas.
    TableEntry seen = reader.lookup(EPISODES).orElseThrow();
    assertEquals(Version.INITIAL, seen.version());
    TableEntry appended = append(writer, EPISODES, 0, 3);
    int before = authority.calls.get();
    assertEquals(seen, reader.lookup(EPISODES).orElseThrow(), "warm: the reader's view until refresh");
    assertEquals(before, authority.calls.get());
    assertTrue(reader.refresh());
    assertEquals(appended, reader.lookup(EPISODES).orElseThrow());
    assertEquals(3, reader.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
    writer.drop(EPISODES);
    assertTrue(reader.lookup(EPISODES).isPresent());
    reader.refresh();
    assertTrue(reader.lookup(EPISODES).isEmpty());
    assertFalse(reader.refresh(), "nothing changed since");
  }

  @Test
  void whileTheAuthorityIsDownReadsAreServedAndWritesRefusedPrecisely() throws Exception {
    CatalogCache cache = cache();
    cache.create(EPISODES, IDS, "log");
    append(cache, EPISODES, 0, 3);
    authority.down = true;
    assertThrows(RegistryUnavailableException.class, cache::refresh);
    assertEquals(3, cache.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
    assertEquals(List.of("robots"), cache.namespaces());
    assertTrue(cache.lookup(FRAMES).isEmpty(), "a miss is answered from the last snapshot");
    assertThrows(RegistryUnavailableException.class, () -> append(cache, EPISODES, 3, 1));
    assertThrows(RegistryUnavailableException.class, () -> cache.create(FRAMES, IDS, "log"));
    assertThrows(RegistryUnavailableException.class, () -> cache.drop(EPISODES));
    assertThrows(RegistryUnavailableException.class, () -> cache.createNamespace("lab"));
    assertEquals(3, cache.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
    assertTrue(cache.lookup(FRAMES).isEmpty());
    authority.down = false;
    cache.refresh();
    assertEquals(3, catalog.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount(),
        "nothing was written while down");
    assertTrue(catalog.lookup(FRAMES).isEmpty());
  }

  @Test
  void aReaderPinnedToADroppedIncarnationNeverSeesTheNewTablesRows() throws Exception {
    CatalogCache cache = cache();
    cache.create(EPISODES, IDS, "log");
    append(cache, EPISODES, 100, 3);
    TableHandle pinned = cache.readHandle(EPISODES).orElseThrow();
    Snapshot pinnedSnapshot = pinned.latestSnapshot();
    cache.drop(EPISODES);
    cache.create(EPISODES, IDS, "log");
    append(cache, EPISODES, 900, 5);
    assertEquals(List.of(900L, 901L, 902L, 903L, 904L),
        ids(cache.readHandle(EPISODES).orElseThrow().latestSnapshot()));
    for (Snapshot old : List.of(pinnedSnapshot, pinned.latestSnapshot())) {
      List<Long> read;
      try {
        read = ids(old);
      } catch (RuntimeException clearError) {
        continue; // the old files are gone: an error, never the new rows
      }
      assertEquals(List.of(100L, 101L, 102L), read);
    }
  }

  @Test
  void aMissingNameIsAskedAtMostOncePerRefreshAndWithinABudget() {
    CatalogCache cache = cache();
    int before = authority.lookups.get();
    for (int i = 0; i < 1_000; i++) {
      assertTrue(cache.lookup(EPISODES).isEmpty());
    }
    assertEquals(1, authority.lookups.get() - before, "negative caching until the next refresh");
    cache.refresh();
    assertTrue(cache.lookup(EPISODES).isEmpty());
    assertEquals(2, authority.lookups.get() - before);
    cache.refresh();
    for (int i = 0; i < 1_000; i++) {
      cache.lookup(TableIdent.of("flood", "t" + i));
    }
    assertEquals(2 + CatalogCache.MISS_LOOKUPS_PER_REFRESH, authority.lookups.get() - before,
        "a flood of distinct missing names is bounded per refresh");
    assertEquals(2_001, cache.stats().misses());
  }

  @Test
  void aWriteRefusedBecauseTheViewIsStaleCorrectsTheView() throws Exception {
    CatalogCache writer = cache();
    CatalogCache stale = cache();
    writer.create(EPISODES, IDS, "log");
    TableEntry old = stale.lookup(EPISODES).orElseThrow();
    writer.drop(EPISODES);
    TableEntry recreated = writer.create(EPISODES, IDS, "log");
    try (RecordBatchReader rows = rows(0, 1)) {
      assertThrows(TableNotFoundException.class, () -> stale.append(EPISODES,
          Optional.of(old.incarnation()), operation(), rows));
    }
    assertEquals(recreated, stale.lookup(EPISODES).orElseThrow());
    assertTrue(stale.lookup(FRAMES).isEmpty());
    writer.create(FRAMES, IDS, "log");
    assertTrue(stale.lookup(FRAMES).isEmpty(), "negatively cached until the next refresh");
    assertThrows(TableAlreadyExistsException.class, () -> stale.create(FRAMES, IDS, "log"));
    assertTrue(stale.lookup(FRAMES).isPresent(), "the refusal corrected the view");
    assertEquals(0, catalog.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount(),
        "the refused append wrote nothing");
  }

  /**
   * The stale replica of the failover campaign: the registry write that advances the pointer is
   * applied but its reply is lost, the writer retries with the same operation id and gets the
   * version. Another replica, whose snapshot predates the append, must see it at its next
   * refresh: the authority's generation moved although its own write "failed".
   */
  @Test
  void anAppendWhosePointerWriteLostItsReplyStillMovesTheGenerationForOtherReplicas()
      throws Exception {
    FaultyMetaStore faulty = new FaultyMetaStore(store);
    try (Catalog authority = Catalog.open(faulty, Map.of("log", log), dir.resolve("warehouse"))) {
      authority.create(EPISODES, IDS, "log");
      CatalogCache writer = CatalogCache.unscheduled(authority, Map.of("log", log));
      CatalogCache other = CatalogCache.unscheduled(authority, Map.of("log", log));
      caches.add(writer);
      caches.add(other);
      AppendOperation operation = operation();
      // The registry pointer's advance is applied and its reply lost.
      faulty.failWriteTo(RegistryCodec.tableKey(EPISODES)::equals, FaultyMetaStore.Mode.AFTER);
      try (RecordBatchReader reader = rows(0, 3)) {
        assertThrows(dev.lake.metastore.MetaStoreException.class,
            () -> writer.append(EPISODES, Optional.empty(), operation, reader));
      }
      assertTrue(faulty.failed());
      assertEquals(1, authority.lookup(EPISODES).orElseThrow().version().number(),
          "the pointer write was applied");
      TableEntry retried;
      try (RecordBatchReader reader = rows(0, 3)) {
        retried = writer.append(EPISODES, Optional.empty(), operation, reader);
      }
      assertEquals(1, retried.version().number(), "the retry got the original version");
      assertEquals(retried, writer.lookup(EPISODES).orElseThrow());
      other.refresh();
      assertEquals(retried, other.lookup(EPISODES).orElseThrow(),
          "the other replica's refresh was answered 'not modified'");
      assertEquals(3, other.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
    }
  }

  /** A registry write that failed before it reached the store also moves it: it may land late. */
  @Test
  void aCreateWhoseRegistryWriteFailedWithUnknownOutcomeIsSeenByTheNextRefresh() throws Exception {
    FaultyMetaStore faulty = new FaultyMetaStore(store);
    try (Catalog authority = Catalog.open(faulty, Map.of("log", log), dir.resolve("warehouse"))) {
      CatalogCache other = CatalogCache.unscheduled(authority, Map.of("log", log));
      caches.add(other);
      long before = authority.generation();
      faulty.failWrite(1, FaultyMetaStore.Mode.AFTER);
      assertThrows(dev.lake.metastore.MetaStoreException.class,
          () -> authority.create(EPISODES, IDS, "log"));
      assertNotEquals(before, authority.generation());
      other.refresh();
      assertEquals(authority.lookup(EPISODES), other.lookup(EPISODES));
      assertTrue(other.lookup(EPISODES).isPresent());
    }
  }

  /** A scheduled task that throws is never run again: an Error must not end the refreshes. */
  @Test
  void anErrorInOneRefreshDoesNotStopTheRefreshes() throws Exception {
    CatalogCache cache = CatalogCache.start(authority, Map.of("log", log), Duration.ofMillis(10));
    caches.add(cache);
    authority.duringNextRefresh(() -> {
      throw new LinkageError("injected into one refresh");
    });
    await("the refresh that failed", () -> cache.stats().refreshFailures() >= 1);
    catalog.create(EPISODES, IDS, "log");
    await("a later refresh", () -> !cache.tables("robots").isEmpty());
  }

  private static void await(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "waited 60 s for " + what);
      Thread.sleep(10);
    }
  }

  @Test
  void directoryGenerationMovesOnShapeChangesOnly() throws Exception {
    CatalogCache cache = cache();
    long start = cache.directoryGeneration();
    cache.create(EPISODES, IDS, "log");
    long created = cache.directoryGeneration();
    assertNotEquals(start, created);
    append(cache, EPISODES, 0, 1);
    cache.refresh();
    assertEquals(created, cache.directoryGeneration(), "an append does not move it");
    cache.replaceWithEmpty(EPISODES, IDS);
    assertNotEquals(created, cache.directoryGeneration());
  }

  @Test
  void aHandleIsClosedWhenItsIncarnationLeavesTheViewAndOnClose() throws Exception {
    CountingEngine engine = new CountingEngine(log);
    CatalogCache cache = CatalogCache.unscheduled(authority, Map.of("log", engine));
    caches.add(cache);
    cache.create(EPISODES, IDS, "log");
    cache.create(FRAMES, IDS, "log");
    cache.readHandle(EPISODES).orElseThrow();
    append(cache, EPISODES, 0, 1);
    cache.readHandle(EPISODES).orElseThrow();
    cache.readHandle(FRAMES).orElseThrow();
    assertEquals(2, engine.opened.get(), "one handle per incarnation, whatever the version");
    cache.replaceWithEmpty(EPISODES, IDS);
    assertEquals(1, engine.closed.get(), "the replaced incarnation's handle");
    cache.readHandle(EPISODES).orElseThrow();
    cache.close();
    assertEquals(3, engine.opened.get());
    assertEquals(3, engine.closed.get());
  }

  /** An engine over another that counts the handles it opened and those closed. */
  private static final class CountingEngine implements TableEngine {
    private final TableEngine engine;
    final java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger closed = new java.util.concurrent.atomic.AtomicInteger();

    CountingEngine(TableEngine engine) {
      this.engine = engine;
    }

    @Override
    public String name() {
      return engine.name();
    }

    @Override
    public TableHandle create(dev.lake.engine.TableLocation location, Schema schema) {
      return engine.create(location, schema);
    }

    @Override
    public Optional<TableHandle> open(dev.lake.engine.TableLocation location) {
      return engine.open(location).map(handle -> {
        opened.incrementAndGet();
        return new TableHandle() {
          @Override
          public dev.lake.engine.TableLocation location() {
            return handle.location();
          }

          @Override
          public Schema schema() {
            return handle.schema();
          }

          @Override
          public Version currentVersion() {
            return handle.currentVersion();
          }

          @Override
          public List<dev.lake.engine.VersionInfo> versions() {
            return handle.versions();
          }

          @Override
          public Snapshot snapshot(Version version) {
            return handle.snapshot(version);
          }

          @Override
          public Version append(AppendOperation operation, ArrowReader batches) {
            return handle.append(operation, batches);
          }

          @Override
          public Optional<Version> reconcileAppend(AppendOperation operation) {
            return handle.reconcileAppend(operation);
          }

          @Override
          public void close() {
            closed.incrementAndGet();
            handle.close();
          }
        };
      });
    }

    @Override
    public void drop(dev.lake.engine.TableLocation location) {
      engine.drop(location);
    }

    @Override
    public void close() {}
  }

  private TableEntry append(TableRegistry registry, TableIdent table, long first, int rows)
      throws Exception {
    try (RecordBatchReader reader = rows(first, rows)) {
      return registry.append(table, Optional.empty(), operation(), reader);
    }
  }

  private RecordBatchReader rows(long first, int rows) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector(0);
      id.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        id.set(i, first + i);
      }
      root.setRowCount(rows);
      return new RecordBatchReader(allocator, IDS, List.of(new VectorUnloader(root).getRecordBatch()));
    }
  }

  private List<Long> ids(Snapshot snapshot) throws Exception {
    List<Long> ids = new ArrayList<>();
    ScanRequest request = ScanRequest.of(List.of("id"));
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          BigIntVector id = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
          for (int i = 0; i < id.getValueCount(); i++) {
            ids.add(id.get(i));
          }
        }
      }
    }
    return ids;
  }

  private static AppendOperation operation() {
    return new AppendOperation("default", "robots", UUID.randomUUID(),
        String.format("%064x", UUID.randomUUID().getMostSignificantBits()));
  }

  private static TableEngine logEngine() {
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      if (factory.name().equals("log")) {
        return factory.create(Map.of());
      }
    }
    throw new IllegalStateException("the log engine is not on the test class path");
  }
}
