package dev.lake.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.MaintenancePolicy;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.Version;
import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.lease.ManualClock;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The registry authority's commit protocol, drop procedure and upkeep, over RocksDB and the log engine. */
class CatalogAuthorityTest {

  private static final TableIdent T = TableIdent.of("robots", "episodes");

  @TempDir Path dir;
  private BufferAllocator allocator;
  private RocksDbMetaStore raw;
  private FaultyMetaStore store;
  private TableEngine log;
  private ManualClock clock;
  private CatalogSettings settings;
  private Catalog catalog;

  @BeforeEach
  void open() throws Exception {
    allocator = new RootAllocator();
    raw = RocksDbMetaStore.open(dir.resolve("meta"));
    store = new FaultyMetaStore(raw);
    log = Rows.logEngine();
    clock = new ManualClock(1_800_000_000_000L);
    settings = CatalogSettings.of(dir.resolve("warehouse")).withClock(clock)
        .withOperationRetention(Duration.ofHours(1));
    catalog = Catalog.open(store, Map.of("log", log), settings);
  }

  @AfterEach
  void close() throws Exception {
    catalog.close();
    log.close();
    raw.close();
    allocator.close();
  }

  @Test
  void anIdenticalReplayReturnsTheOriginalVersionWithoutWriting() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    AppendOperation first = Rows.operation(T, 1);
    assertEquals(Version.of(1), append(T, first, 0, 3).version());
    assertEquals(Version.of(2), append(T, Rows.operation(T, 2), 10, 2).version());
    int writes = store.writes();
    long generation = catalog.generation();
    TableEntry replay = append(T, first, 0, 3);
    assertEquals(Version.of(1), replay.version());
    assertEquals(writes, store.writes(), "a replay writes nothing");
    assertEquals(generation, catalog.generation());
    assertEquals(5, rows(T));
  }

  @Test
  void theSameOperationIdWithAnotherDigestIsAConflictAndChangesNothing() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    UUID id = UUID.randomUUID();
    append(T, Rows.operation(T, id, 1), 0, 3);
    OperationConflictException conflict = assertThrows(OperationConflictException.class,
        () -> append(T, Rows.operation(T, id, 2), 0, 3));
    assertEquals(id, conflict.operationId());
    assertTrue(conflict.getMessage().contains("another payload"), conflict.getMessage());
    // Reusing an append's id for a create is a conflict as well.
    TableIdent other = TableIdent.of("robots", "other");
    try (RecordBatchReader rows = Rows.ids(allocator, 0, 1)) {
      assertThrows(OperationConflictException.class,
          () -> catalog.createWith(T, Rows.IDS, "log", Rows.operation(T, id, 1), rows));
    }
    assertTrue(catalog.lookup(other).isEmpty());
    assertEquals(Version.of(1), catalog.lookup(T).orElseThrow().version());
    assertEquals(3, rows(T));
  }

  @Test
  void anAppendRefusedByTheEngineIsAbortedAndItsIdCanBeUsedAgain() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    Schema names = new Schema(List.of(Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    AppendOperation op = Rows.operation(T, 7);
    try (RecordBatchReader wrong = new RecordBatchReader(allocator, names, List.of())) {
      assertThrows(SchemaMismatchException.class, () -> catalog.append(T, Optional.empty(), op, wrong));
    }
    assertEquals(Version.INITIAL, catalog.lookup(T).orElseThrow().version());
    assertEquals(Version.of(1), append(T, op, 0, 2).version());
  }

  /** Each write of an append fails (lost, or applied with the reply lost); the process "crashes". */
  @ParameterizedTest
  @EnumSource(value = FaultyMetaStore.Mode.class, names = {"BEFORE", "AFTER"})
  void anAppendInterruptedAtAnyWriteIsReconciledOnOpenAndItsRetryLandsOnce(FaultyMetaStore.Mode mode) throws Exception {
    // index entry, reserved, engine_committed, registry pointer, committed (the index entry's
    // removal after it is best effort: CatalogTakeoverTest)
    for (int n = 1; n <= 5; n++) {
      TableIdent table = TableIdent.of("crash", "t" + n);
      catalog.create(table, Rows.IDS, "log");
      append(table, Rows.operation(table, 0), 0, 3);
      AppendOperation op = Rows.operation(table, 1);
      store.failWrite(n, mode);
      final TableIdent t = table;
      assertThrows(MetaStoreException.class, () -> append(t, op, 100, 2), "write " + n);
      assertTrue(store.failed());
      reopen();
      TableEntry after = catalog.lookup(table).orElseThrow();
      assertTrue(after.version().equals(Version.of(1)) && rows(table) == 3
          || after.version().equals(Version.of(2)) && rows(table) == 5, "write " + n + ": " + after);
      assertNoOperationInProgress();
      assertEquals(Version.of(2), append(table, op, 100, 2).version(), "write " + n);
      assertEquals(5, rows(table), "write " + n + ": the retry landed exactly once");
    }
  }

  @ParameterizedTest
  @EnumSource(value = FaultyMetaStore.Mode.class, names = {"BEFORE", "AFTER"})
  void anAppendInterruptedAtAnyWriteIsFinishedByItsRetryInTheSameProcess(FaultyMetaStore.Mode mode) throws Exception {
    for (int n = 1; n <= 5; n++) {
      TableIdent table = TableIdent.of("retry", "t" + n);
      catalog.create(table, Rows.IDS, "log");
      AppendOperation op = Rows.operation(table, 1);
      store.failWrite(n, mode);
      final TableIdent t = table;
      assertThrows(MetaStoreException.class, () -> append(t, op, 0, 2), "write " + n);
      assertEquals(Version.of(1), append(table, op, 0, 2).version(), "write " + n);
      assertEquals(Version.of(1), catalog.lookup(table).orElseThrow().version());
      assertEquals(2, rows(table), "write " + n);
    }
    assertNoOperationInProgress();
  }

  @ParameterizedTest
  @EnumSource(value = FaultyMetaStore.Mode.class, names = {"BEFORE", "AFTER"})
  void aCreateWithInterruptedAtAnyWriteLeavesNoTableOrTheWholeOne(FaultyMetaStore.Mode mode) throws Exception {
    for (int n = 1; n <= 6; n++) {
      TableIdent table = TableIdent.of("ctas", "t" + n);
      AppendOperation op = Rows.operation(table, 1);
      store.failWrite(n, mode);
      try (RecordBatchReader rows = Rows.ids(allocator, 0, 4)) {
        assertThrows(MetaStoreException.class,
            () -> catalog.createWith(table, Rows.IDS, "log", op, rows), "write " + n);
      }
      reopen();
      Optional<TableEntry> after = catalog.lookup(table);
      assertTrue(after.isEmpty() || rows(table) == 4, "write " + n);
      assertNoOperationInProgress();
      if (after.isEmpty()) {
        assertEquals(0, filesUnder("ctas", "t" + n + "-"), "an aborted create leaves no files");
      }
      try (RecordBatchReader rows = Rows.ids(allocator, 0, 4)) {
        TableEntry retried = catalog.createWith(table, Rows.IDS, "log", op, rows);
        assertEquals(Version.of(1), retried.version());
      }
      assertEquals(4, rows(table));
      assertEquals(1, filesUnder("ctas", "t" + n + "-"), "one incarnation's files");
    }
  }

  @ParameterizedTest
  @EnumSource(value = FaultyMetaStore.Mode.class, names = {"BEFORE", "AFTER"})
  void aDropInterruptedAtAnyStepIsFinishedOrRolledBackByTheNextOpen(FaultyMetaStore.Mode mode) throws Exception {
    for (int n = 1; n <= 4; n++) {
      TableIdent table = TableIdent.of("drops", "t" + n);
      TableEntry entry = catalog.create(table, Rows.IDS, "log");
      append(table, Rows.operation(table, 1), 0, 2);
      store.failWrite(n, mode);
      assertThrows(MetaStoreException.class, () -> catalog.drop(table), "write " + n);
      reopen();
      assertTrue(raw.get(DropTombstone.key(table)).isEmpty(), "write " + n + ": no tombstone left");
      Optional<TableEntry> after = catalog.lookup(table);
      if (after.isPresent()) {
        // Interrupted before the record was deleted: rolled back, whole, and droppable.
        assertEquals(2, rows(table), "write " + n);
        catalog.drop(table);
      }
      assertTrue(catalog.lookup(table).isEmpty());
      assertFalse(Files.exists(entry.location().localPath()), "write " + n + ": files deleted");
      TableEntry again = catalog.create(table, Rows.IDS, "log");
      assertNotEquals(entry.incarnation(), again.incarnation());
      assertNotEquals(entry.location(), again.location());
      assertEquals(0, rows(table));
    }
  }

  @Test
  void aCreateWithLeftEngineCommittedIsRegisteredByTheNextOpen() throws Exception {
    AppendOperation op = Rows.operation(T, 1);
    store.failWriteTo(RegistryCodec.tableKey(T)::equals, FaultyMetaStore.Mode.BEFORE); // the registry's create is lost
    try (RecordBatchReader rows = Rows.ids(allocator, 0, 4)) {
      assertThrows(MetaStoreException.class, () -> catalog.createWith(T, Rows.IDS, "log", op, rows));
    }
    assertTrue(catalog.lookup(T).isEmpty());
    long generation = catalog.generation();
    reopen();
    assertTrue(catalog.generation() > generation);
    assertEquals(Version.of(1), catalog.lookup(T).orElseThrow().version());
    assertEquals(4, rows(T));
    assertNoOperationInProgress();
    try (RecordBatchReader rows = Rows.ids(allocator, 0, 4)) {
      assertEquals(catalog.lookup(T).orElseThrow(), catalog.createWith(T, Rows.IDS, "log", op, rows));
    }
  }

  @Test
  void recreateUnderAReaderPinnedToTheOldIncarnationNeverShowsTheNewRows() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    append(T, Rows.operation(T, 1), 0, 3);
    TableEntry old = catalog.lookup(T).orElseThrow();
    TableHandle pinned = catalog.readHandle(T).orElseThrow();
    catalog.drop(T);
    catalog.create(T, Rows.IDS, "log");
    append(T, Rows.operation(T, 2), 100, 5);
    TableEntry fresh = catalog.lookup(T).orElseThrow();
    assertNotEquals(old.incarnation(), fresh.incarnation());
    assertNotEquals(old.location(), fresh.location());
    try {
      assertEquals(3, pinned.snapshot(old.version()).rowCount(), "the old incarnation's rows or an error");
    } catch (RuntimeException gone) {
      assertTrue(gone instanceof CatalogException || gone instanceof dev.lake.engine.EngineException, gone.toString());
    }
    assertEquals(5, rows(T));
    // An append planned against the old incarnation is refused, not written into the new one.
    try (RecordBatchReader rows = Rows.ids(allocator, 0, 1)) {
      assertThrows(TableNotFoundException.class, () -> catalog.append(T,
          Optional.of(old.incarnation()), Rows.operation(T, 3), rows));
    }
    assertEquals(5, rows(T));
  }

  @Test
  void theGenerationMovesOnEveryVisibleChangeAndNotOtherwise() throws Exception {
    long g0 = catalog.generation();
    RegistrySnapshot first = catalog.snapshot();
    assertEquals(g0, first.generation());
    assertTrue(catalog.snapshotIfChanged(g0).isEmpty());
    catalog.createNamespace("empty");
    long g1 = catalog.generation();
    assertTrue(g1 > g0, "namespace create");
    catalog.create(T, Rows.IDS, "log");
    long g2 = catalog.generation();
    assertTrue(g2 > g1, "create");
    long directory = catalog.directoryGeneration();
    AppendOperation op = Rows.operation(T, 1);
    append(T, op, 0, 2);
    long g3 = catalog.generation();
    assertTrue(g3 > g2, "append");
    assertEquals(directory, catalog.directoryGeneration(), "the directory generation ignores appends");
    RegistrySnapshot changed = catalog.snapshotIfChanged(g2).orElseThrow();
    assertEquals(g3, changed.generation());
    assertEquals(Version.of(1), changed.tables().getFirst().version());
    // Reads, lookups, replays and refused writes change nothing a reader sees.
    catalog.lookup(T);
    catalog.snapshot();
    rows(T);
    append(T, op, 0, 2);
    assertThrows(TableAlreadyExistsException.class, () -> catalog.create(T, Rows.IDS, "log"));
    assertThrows(TableNotFoundException.class, () -> catalog.drop(TableIdent.of("robots", "none")));
    catalog.expireOperations(10);
    assertEquals(g3, catalog.generation());
    assertTrue(catalog.snapshotIfChanged(g3).isEmpty());
    catalog.drop(T);
    assertTrue(catalog.generation() > g3, "drop");
    long g4 = catalog.generation();
    catalog.dropNamespace("empty", false);
    assertTrue(catalog.generation() > g4, "namespace drop");
    long before = catalog.generation();
    reopen();
    assertTrue(catalog.generation() > before, "a new authority starts above its predecessor");
  }

  @Test
  void finishedOperationRecordsExpireAfterTheHorizonInBoundedPages() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    for (int i = 0; i < 5; i++) {
      append(T, Rows.operation(T, i), i * 10, 1);
    }
    clock.advance(Duration.ofHours(2));
    AppendOperation recent = Rows.operation(T, 99);
    append(T, recent, 990, 1);
    append(T, Rows.operation(T, 98), 980, 1);
    int removed = 0;
    int pages = 0;
    OperationExpiry page;
    do {
      page = catalog.expireOperations(3);
      assertTrue(page.examined() <= 3);
      removed += page.removed();
      pages++;
    } while (page.more());
    assertEquals(5, removed);
    assertEquals(3, pages);
    assertEquals(2, raw.scan(OperationRecord.PREFIX, Optional.empty(), 100).entries().size());
    assertEquals(Version.of(6), append(T, recent, 990, 1).version(), "a kept record still replays");
    assertEquals(0, catalog.expireOperations(10).removed(), "nothing more is old enough");
    assertThrows(IllegalArgumentException.class, () -> catalog.expireOperations(0));
  }

  @Test
  void maintenanceCompactsInPagesAndAdvancesTheRegistryPointer() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    TableIdent other = TableIdent.of("robots", "other");
    catalog.create(other, Rows.IDS, "log");
    for (int i = 0; i < 4; i++) {
      append(T, Rows.operation(T, i), i * 10, 1);
    }
    MaintenancePolicy compact = MaintenancePolicy.compactOnly(1 << 20, 2);
    MaintenancePass stopped = catalog.maintain(compact, 1, () -> true);
    assertEquals(new MaintenancePass(0, 0, true), stopped);
    long generation = catalog.generation();
    MaintenancePass first = catalog.maintain(compact, 1, () -> false);
    assertEquals(1, first.tables());
    assertTrue(first.more());
    MaintenancePass second = catalog.maintain(compact, 1, () -> false);
    assertEquals(1, second.tables());
    assertEquals(1, first.advanced() + second.advanced(), "only the table with small files");
    assertEquals(Version.of(5), catalog.lookup(T).orElseThrow().version());
    assertEquals(4, rows(T));
    assertTrue(catalog.generation() > generation);
    assertThrows(IllegalArgumentException.class, () -> catalog.maintain(compact, 0, () -> false));
  }

  @Test
  void placementIsALocalRootOrAnS3PrefixAndEveryIncarnationGetsItsOwnLocation() throws Exception {
    UUID incarnation = UUID.fromString("01900000-0000-7000-8000-000000000001");
    Placement s3 = Placement.parse("s3://bucket/lake/");
    assertFalse(s3.isLocal());
    assertEquals(URI.create("s3://bucket/lake/robots/episodes-" + incarnation),
        s3.location(T, incarnation).uri());
    assertEquals(URI.create("s3://bucket/robots/episodes-" + incarnation),
        Placement.parse("s3://bucket").location(T, incarnation).uri());
    Placement local = Placement.parse(dir.resolve("w").toString());
    assertEquals(dir.resolve("w").resolve("robots").resolve("episodes-" + incarnation),
        local.location(T, incarnation).localPath());
    assertEquals(local, Placement.of(dir.resolve("w").toUri()));
    assertThrows(IllegalArgumentException.class, () -> Placement.parse("http://host/x"));
    assertThrows(IllegalArgumentException.class, () -> Placement.of(URI.create("s3:///nobucket")));
    assertEquals(settings.placement(), catalog.placement());
  }

  @Test
  void aTenantThatCannotBeAKeyIsRefused() throws Exception {
    catalog.create(T, Rows.IDS, "log");
    AppendOperation op = new AppendOperation("a tenant/with slash", "robots.episodes",
        UUID.randomUUID(), "0".repeat(64));
    try (RecordBatchReader rows = Rows.ids(allocator, 0, 1)) {
      assertThrows(InvalidNameException.class, () -> catalog.append(T, Optional.empty(), op, rows));
    }
    assertEquals(Version.INITIAL, catalog.lookup(T).orElseThrow().version());
  }

  private TableEntry append(TableIdent table, AppendOperation op, long first, int rows) throws Exception {
    return Rows.append(catalog, allocator, table, op, first, rows);
  }

  private long rows(TableIdent table) {
    return Rows.count(catalog, table);
  }

  private void reopen() {
    catalog.close();
    catalog = Catalog.open(store, Map.of("log", log), settings);
  }

  private void assertNoOperationInProgress() {
    Rows.assertNoOperationInProgress(raw);
  }

  private long filesUnder(String namespace, String namePrefix) throws Exception {
    Path ns = dir.resolve("warehouse").resolve(namespace);
    if (!Files.isDirectory(ns)) {
      return 0;
    }
    try (var files = Files.list(ns)) {
      return files.filter(p -> p.getFileName().toString().startsWith(namePrefix)).count();
    }
  }
}
