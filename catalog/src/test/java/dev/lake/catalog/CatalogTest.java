package dev.lake.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.Version;
import dev.lake.engine.VersionNotFoundException;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogTest {

  private static final Schema IDS =
      new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));
  private static final Schema NAMES =
      new Schema(List.of(Field.nullable("name", ArrowType.Utf8.INSTANCE)));
  private static final TableIdent EPISODES = TableIdent.of("robots", "episodes");

  @TempDir Path dir;
  private BufferAllocator allocator;
  private RocksDbMetaStore store;
  private TableEngine log;
  private Catalog catalog;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    store = RocksDbMetaStore.open(dir.resolve("meta"));
    log = logEngine();
    catalog = Catalog.open(store, Map.of("log", log), dir.resolve("warehouse"));
  }

  @AfterEach
  void close() {
    catalog.close();
    log.close();
    store.close();
    allocator.close();
  }

  @Test
  void createRegistersAnEmptyTableAtVersionZero() {
    TableEntry entry = catalog.create(EPISODES, IDS, "log");
    assertEquals(Version.INITIAL, entry.version());
    assertEquals(List.of("robots"), catalog.namespaces());
    assertEquals(List.of(entry), catalog.tables("robots"));
    assertEquals(entry, catalog.lookup(EPISODES).orElseThrow());
    assertTrue(Files.isDirectory(entry.location().localPath()));
  }

  @Test
  void createOfAnExistingNameIsRefusedAndChangesNothing() {
    TableEntry first = catalog.create(EPISODES, IDS, "log");
    assertThrows(TableAlreadyExistsException.class, () -> catalog.create(EPISODES, NAMES, "log"));
    assertEquals(first, catalog.lookup(EPISODES).orElseThrow());
  }

  @Test
  void badNamesAndUnknownEnginesAreRefused() {
    assertThrows(InvalidNameException.class, () -> TableIdent.of("robots", "1bad"));
    assertThrows(InvalidNameException.class, () -> TableIdent.of("ro bots", "x"));
    assertThrows(InvalidNameException.class, () -> TableIdent.of("../etc", "x"));
    InvalidNameException e = assertThrows(InvalidNameException.class,
        () -> catalog.create(EPISODES, IDS, "parquet"));
    assertTrue(e.getMessage().contains("parquet") && e.getMessage().contains("log"));
    assertTrue(catalog.lookup(EPISODES).isEmpty());
  }

  @Test
  void appendAdvancesTheRegistryAndReadersSeeOnlyRegisteredVersions() throws Exception {
    catalog.create(EPISODES, IDS, "log");
    assertEquals(Version.of(1), append(EPISODES, 0, 10));
    assertEquals(Version.of(2), append(EPISODES, 10, 5));
    TableHandle view = catalog.readHandle(EPISODES).orElseThrow();
    assertEquals(Version.of(2), view.currentVersion());
    assertEquals(15, view.latestSnapshot().rowCount());
    assertEquals(10, view.snapshot(Version.of(1)).rowCount());
    assertThrows(VersionNotFoundException.class, () -> view.snapshot(Version.of(3)));
  }

  @Test
  void lookupsOfAnUnchangedRecordShareOneDecodedEntryAndSeeEveryChange() throws Exception {
    catalog.create(EPISODES, IDS, "log");
    TableEntry first = catalog.lookup(EPISODES).orElseThrow();
    assertTrue(first == catalog.lookup(EPISODES).orElseThrow(), "decoded once for the same bytes");
    append(EPISODES, 0, 3);
    assertEquals(Version.of(1), catalog.lookup(EPISODES).orElseThrow().version());
    catalog.drop(EPISODES);
    assertTrue(catalog.lookup(EPISODES).isEmpty());
    TableEntry again = catalog.create(EPISODES, NAMES, "log");
    assertEquals(again, catalog.lookup(EPISODES).orElseThrow());
    assertNotEquals(first.incarnation(), catalog.lookup(EPISODES).orElseThrow().incarnation());
  }

  @Test
  void appendWithAnotherSchemaIsRefusedWithoutANewVersion() throws Exception {
    catalog.create(EPISODES, IDS, "log");
    append(EPISODES, 0, 3);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(NAMES, allocator)) {
      ((VarCharVector) root.getVector(0)).setSafe(0, "x".getBytes());
      root.setRowCount(1);
      try (RecordBatchReader reader = new RecordBatchReader(allocator, NAMES,
          List.of(new VectorUnloader(root).getRecordBatch()))) {
        assertThrows(SchemaMismatchException.class,
            () -> catalog.append(EPISODES, operation(99), reader));
      }
    }
    assertEquals(Version.of(1), catalog.lookup(EPISODES).orElseThrow().version());
  }

  @Test
  void appendToAnUnknownTableIsNotFound() {
    TableNotFoundException e = assertThrows(TableNotFoundException.class,
        () -> append(TableIdent.of("robots", "missing"), 0, 1));
    assertTrue(e.getMessage().contains("robots.missing"));
  }

  @Test
  void replaceSwapsInANewIncarnationAndRemovesTheOldFiles() throws Exception {
    TableEntry old = catalog.create(EPISODES, IDS, "log");
    append(EPISODES, 0, 10);
    TableEntry fresh;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(NAMES, allocator)) {
      ((VarCharVector) root.getVector(0)).setSafe(0, "a".getBytes());
      ((VarCharVector) root.getVector(0)).setNull(1);
      root.setRowCount(2);
      try (RecordBatchReader reader = new RecordBatchReader(allocator, NAMES,
          List.of(new VectorUnloader(root).getRecordBatch()))) {
        fresh = catalog.replace(EPISODES, NAMES, operation(7), reader);
      }
    }
    assertNotEquals(old.incarnation(), fresh.incarnation());
    assertEquals(NAMES, fresh.schema());
    assertEquals(2, catalog.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
    assertFalse(Files.exists(old.location().localPath()));
  }

  @Test
  void dropRemovesTheRecordAndTheFilesAndANewCreateGetsANewIncarnation() throws Exception {
    TableEntry old = catalog.create(EPISODES, IDS, "log");
    append(EPISODES, 0, 4);
    catalog.drop(EPISODES);
    assertTrue(catalog.lookup(EPISODES).isEmpty());
    assertFalse(Files.exists(old.location().localPath()));
    assertThrows(TableNotFoundException.class, () -> catalog.drop(EPISODES));
    TableEntry again = catalog.create(EPISODES, IDS, "log");
    assertNotEquals(old.incarnation(), again.incarnation());
    assertNotEquals(old.location(), again.location());
    assertEquals(0, catalog.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
  }

  @Test
  void theDirectoryGenerationMovesOnCreateReplaceAndDropButNotOnAppend() throws Exception {
    long start = catalog.directoryGeneration();
    catalog.create(EPISODES, IDS, "log");
    long created = catalog.directoryGeneration();
    assertTrue(created > start, "create");
    append(EPISODES, 0, 3);
    assertEquals(created, catalog.directoryGeneration(), "append");
    try (VectorSchemaRoot root = ids(10, 2);
        RecordBatchReader reader = new RecordBatchReader(allocator, IDS,
            List.of(new VectorUnloader(root).getRecordBatch()))) {
      catalog.replace(EPISODES, IDS, operation(9), reader);
    }
    long replaced = catalog.directoryGeneration();
    assertTrue(replaced > created, "replace");
    catalog.drop(EPISODES);
    assertTrue(catalog.directoryGeneration() > replaced, "drop");
  }

  @Test
  void reopeningRollsForwardAVersionTheEngineCommittedAfterTheRegistryLastMoved() throws Exception {
    TableEntry entry = catalog.create(EPISODES, IDS, "log");
    append(EPISODES, 0, 5);
    // An engine commit whose registry update was lost, as a crash between the two writes leaves it.
    TableHandle direct = log.open(entry.location()).orElseThrow();
    try (VectorSchemaRoot root = ids(100, 3);
        RecordBatchReader reader = new RecordBatchReader(allocator, IDS,
            List.of(new VectorUnloader(root).getRecordBatch()))) {
      assertEquals(Version.of(2), direct.append(operation(100), reader));
    }
    direct.close();
    assertEquals(Version.of(1), catalog.lookup(EPISODES).orElseThrow().version());
    catalog.close();
    catalog = Catalog.open(store, Map.of("log", log), dir.resolve("warehouse"));
    assertEquals(Version.of(2), catalog.lookup(EPISODES).orElseThrow().version());
    assertEquals(8, catalog.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
  }

  @Test
  void registrySurvivesAReopenOfTheStore() throws Exception {
    catalog.create(EPISODES, IDS, "log");
    append(EPISODES, 0, 6);
    catalog.close();
    store.close();
    store = RocksDbMetaStore.open(dir.resolve("meta"));
    catalog = Catalog.open(store, Map.of("log", log), dir.resolve("warehouse"));
    assertEquals(Version.of(1), catalog.lookup(EPISODES).orElseThrow().version());
    assertEquals(6, catalog.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
  }

  @Test
  void aCreatedNamespaceExistsEmptyAndSurvivesAReopen() {
    long start = catalog.directoryGeneration();
    catalog.createNamespace("empty");
    assertTrue(catalog.directoryGeneration() > start);
    assertEquals(List.of("empty"), catalog.namespaces());
    assertTrue(catalog.namespaceExists("empty"));
    assertEquals(List.of(), catalog.tables("empty"));
    catalog.close();
    catalog = Catalog.open(store, Map.of("log", log), dir.resolve("warehouse"));
    assertEquals(List.of("empty"), catalog.namespaces());
  }

  @Test
  void creatingAnExistingNamespaceIsRefusedWhetherCreatedOrHoldingTables() {
    catalog.createNamespace("made");
    assertThrows(NamespaceAlreadyExistsException.class, () -> catalog.createNamespace("made"));
    catalog.create(EPISODES, IDS, "log");
    assertThrows(NamespaceAlreadyExistsException.class, () -> catalog.createNamespace("robots"));
    assertThrows(InvalidNameException.class, () -> catalog.createNamespace("no-dashes"));
    assertEquals(List.of("made", "robots"), catalog.namespaces());
  }

  @Test
  void dropNamespaceRestrictRefusesTablesAndCascadeDropsThem() throws Exception {
    catalog.createNamespace("robots");
    TableEntry table = catalog.create(EPISODES, IDS, "log");
    append(EPISODES, 0, 3);
    NamespaceNotEmptyException refused = assertThrows(NamespaceNotEmptyException.class,
        () -> catalog.dropNamespace("robots", false));
    assertEquals(List.of("episodes"), refused.tables());
    assertTrue(refused.getMessage().contains("episodes"), refused.getMessage());
    assertEquals(Version.of(1), catalog.lookup(EPISODES).orElseThrow().version());
    catalog.dropNamespace("robots", true);
    assertEquals(List.of(), catalog.namespaces());
    assertTrue(catalog.lookup(EPISODES).isEmpty());
    assertFalse(Files.exists(table.location().localPath()));
    assertThrows(NamespaceNotFoundException.class, () -> catalog.dropNamespace("robots", true));
  }

  @Test
  void dropOfANamespaceThatOnlyHoldsTablesWorksWithCascade() throws Exception {
    catalog.create(EPISODES, IDS, "log");
    assertThrows(NamespaceNotEmptyException.class, () -> catalog.dropNamespace("robots", false));
    catalog.dropNamespace("robots", true);
    assertFalse(catalog.namespaceExists("robots"));
  }

  @Test
  void createWithRegistersTheTableWithItsDataAsOneVersion() throws Exception {
    TableEntry entry;
    try (VectorSchemaRoot root = ids(0, 4);
        RecordBatchReader reader = new RecordBatchReader(allocator, IDS,
            List.of(new VectorUnloader(root).getRecordBatch()))) {
      entry = catalog.createWith(EPISODES, IDS, "log", operation(1), reader);
    }
    assertEquals(Version.of(1), entry.version());
    assertEquals(4, catalog.readHandle(EPISODES).orElseThrow().latestSnapshot().rowCount());
    try (VectorSchemaRoot root = ids(0, 4);
        RecordBatchReader reader = new RecordBatchReader(allocator, IDS,
            List.of(new VectorUnloader(root).getRecordBatch()))) {
      assertThrows(TableAlreadyExistsException.class,
          () -> catalog.createWith(EPISODES, IDS, "log", operation(2), reader));
    }
    try (var files = Files.list(dir.resolve("warehouse").resolve("robots"))) {
      assertEquals(1, files.count(), "a refused create leaves no files");
    }
  }

  @Test
  void appendToAnIncarnationThatWasDroppedAndCreatedAgainIsNotFound() throws Exception {
    TableEntry old = catalog.create(EPISODES, IDS, "log");
    catalog.drop(EPISODES);
    catalog.create(EPISODES, IDS, "log");
    try (VectorSchemaRoot root = ids(0, 2);
        RecordBatchReader reader = new RecordBatchReader(allocator, IDS,
            List.of(new VectorUnloader(root).getRecordBatch()))) {
      assertThrows(TableNotFoundException.class,
          () -> catalog.append(EPISODES, old.location(), operation(3), reader));
    }
    assertEquals(Version.INITIAL, catalog.lookup(EPISODES).orElseThrow().version());
  }

  private Version append(TableIdent table, long first, int rows) throws Exception {
    try (VectorSchemaRoot root = ids(first, rows);
        RecordBatchReader reader = new RecordBatchReader(allocator, IDS,
            List.of(new VectorUnloader(root).getRecordBatch()))) {
      return catalog.append(table, operation(first), reader);
    }
  }

  private VectorSchemaRoot ids(long first, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator);
    BigIntVector id = (BigIntVector) root.getVector(0);
    id.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      id.set(i, first + i);
    }
    root.setRowCount(rows);
    return root;
  }

  private static AppendOperation operation(long seed) {
    return new AppendOperation("default", "robots.episodes", UUID.randomUUID(),
        String.format("%064x", seed));
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
