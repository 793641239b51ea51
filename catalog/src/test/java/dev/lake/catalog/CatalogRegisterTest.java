package dev.lake.catalog;

import static dev.lake.catalog.LogTables.IDS;
import static dev.lake.catalog.LogTables.ids;
import static dev.lake.catalog.LogTables.logEngine;
import static dev.lake.catalog.LogTables.operation;
import static dev.lake.catalog.LogTables.writeAt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Catalog#register}: adopting a table written outside lake, over the real log engine. */
class CatalogRegisterTest {

    private static final TableIdent RUNS = TableIdent.of("lab", "runs");

  @TempDir Path dir;
  private BufferAllocator allocator;
  private RocksDbMetaStore store;
  private TableEngine log;
  private Catalog catalog;
  private TableLocation outside;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    store = RocksDbMetaStore.open(dir.resolve("meta"));
    log = logEngine();
    catalog = Catalog.open(store, Map.of("log", log), dir.resolve("warehouse"));
    outside = TableLocation.of(dir.resolve("written-elsewhere"));
  }

  @AfterEach
  void close() {
    catalog.close();
    log.close();
    store.close();
    allocator.close();
  }

  @Test
  void registerAdoptsTheTableAtItsCurrentVersionAndLaterAppendsContinueIt() throws Exception {
    writeOutside(2, 5); // versions 1 and 2, 10 rows
    TableEntry entry = catalog.register(RUNS, "log", outside);

    assertEquals(Version.of(2), entry.version());
    assertEquals(IDS, entry.schema());
    assertEquals(outside, entry.location());
    assertEquals("log", entry.engine());
    assertEquals(entry, catalog.lookup(RUNS).orElseThrow());
    assertEquals(List.of(entry), catalog.tables("lab"));
    assertEquals(10, catalog.readHandle(RUNS).orElseThrow().latestSnapshot().rowCount());
    assertEquals(5, catalog.readHandle(RUNS).orElseThrow().snapshot(Version.of(1)).rowCount());

    assertEquals(Version.of(3), append(100, 4));
    assertEquals(14, catalog.readHandle(RUNS).orElseThrow().latestSnapshot().rowCount());
  }

  @Test
  void registeredTableSurvivesAReopenAndDropDeletesItsFiles() throws Exception {
    writeOutside(1, 3);
    catalog.register(RUNS, "log", outside);
    catalog.close();
    catalog = Catalog.open(store, Map.of("log", log), dir.resolve("warehouse"));
    assertEquals(3, catalog.readHandle(RUNS).orElseThrow().latestSnapshot().rowCount());

    catalog.drop(RUNS);
    assertTrue(catalog.lookup(RUNS).isEmpty());
    assertTrue(log.open(outside).isEmpty(), "lake owned the files once registered: drop removed them");
  }

  @Test
  void registerOfAnEmptyLocationNamesItAndRegistersNothing() {
    CatalogException e = assertThrows(CatalogException.class, () -> catalog.register(RUNS, "log", outside));
    assertTrue(e.getMessage().contains(outside.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("no log table"), e.getMessage());
    assertTrue(catalog.lookup(RUNS).isEmpty());
    assertEquals(List.of(), catalog.namespaces());
  }

  @Test
  void registerOfCorruptFilesIsTheEnginesCorruptTableExceptionAndRegistersNothing() throws Exception {
    writeOutside(1, 3);
    Files.writeString(outside.localPath().resolve("_log/00000000000000000001.json"), "{ not a commit",
        StandardCharsets.UTF_8);
    assertThrows(CorruptTableException.class, () -> catalog.register(RUNS, "log", outside));
    assertTrue(catalog.lookup(RUNS).isEmpty());
  }

  @Test
  void registerUnderATakenNameIsRefusedAndTouchesNeitherTable() throws Exception {
    TableEntry existing = catalog.create(RUNS, IDS, "log");
    writeOutside(1, 3);
    assertThrows(TableAlreadyExistsException.class, () -> catalog.register(RUNS, "log", outside));
    assertEquals(existing, catalog.lookup(RUNS).orElseThrow());
    try (TableHandle t = log.open(outside).orElseThrow()) {
      assertEquals(3, t.latestSnapshot().rowCount(), "the unregistered files are untouched");
    }
  }

  @Test
  void registerOfALocationAnotherTableUsesIsRefused() throws Exception {
    writeOutside(1, 3);
    catalog.register(RUNS, "log", outside);
    TableIdent twin = TableIdent.of("lab", "twin");
    CatalogException e = assertThrows(CatalogException.class, () -> catalog.register(twin, "log", outside));
    assertTrue(e.getMessage().contains("lab.runs"), e.getMessage());
    assertTrue(catalog.lookup(twin).isEmpty());
  }

  @Test
  void registerWithAnUnknownEngineIsAnInvalidName() throws Exception {
    writeOutside(1, 3);
    InvalidNameException e = assertThrows(InvalidNameException.class,
        () -> catalog.register(RUNS, "lancedb9", outside));
    assertTrue(e.getMessage().contains("lancedb9"), e.getMessage());
    assertFalse(catalog.lookup(RUNS).isPresent());
  }

  /** Writes a log table at {@link #outside} with the engine alone, no registry: {@code appends} versions. */
  private void writeOutside(int appends, int rowsEach) throws Exception {
    writeAt(log, allocator, outside, appends, rowsEach);
  }

  private Version append(long first, int rows) throws Exception {
    try (VectorSchemaRoot root = ids(allocator, first, rows);
        RecordBatchReader reader = LogTables.reader(allocator, root)) {
      return catalog.append(RUNS, operation(first), reader);
    }
  }
}
