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
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry's side of tables written by outside writers (stock Lance through the Lance
 * Namespace): declared names, adoption, following outside versions, deregister, rename; over the
 * real log engine (the catalog's methods do not depend on the engine).
 */
class CatalogOutsideWritersTest {

    private static final TableIdent RUNS = TableIdent.of("lab", "runs");

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
    catalog.createNamespace("lab");
  }

  @AfterEach
  void close() {
    catalog.close();
    log.close();
    store.close();
    allocator.close();
  }

  @Test
  void aDeclaredNameIsTakenForEveryCreateUntilUndeclared() {
    DeclaredTable declared = catalog.declare(RUNS, "log");
    assertThrows(TableAlreadyExistsException.class, () -> catalog.create(RUNS, IDS, "log"));
    assertThrows(TableAlreadyExistsException.class, () -> catalog.declare(RUNS, "log"));
    assertThrows(TableAlreadyExistsException.class,
        () -> catalog.register(RUNS, "log", TableLocation.of(dir.resolve("x"))));
    assertTrue(catalog.lookup(RUNS).isEmpty());
    assertEquals(List.of(declared), catalog.declared("lab"));
    assertThrows(NamespaceNotFoundException.class, () -> catalog.declare(TableIdent.of("nowhere", "t"), "log"));
    assertEquals(declared, catalog.undeclare(RUNS, true));
    assertThrows(TableNotFoundException.class, () -> catalog.undeclare(RUNS, true));
    catalog.create(RUNS, IDS, "log");
  }

  @Test
  void adoptRegistersWhatAnOutsideWriterCreatedAtTheDeclaredLocation() throws Exception {
    DeclaredTable declared = catalog.declare(RUNS, "log");
    assertTrue(catalog.adopt(RUNS).isEmpty(), "nothing written yet");
    writeAt(log, allocator, declared.location(), 2, 5);
    TableEntry adopted = catalog.adopt(RUNS).orElseThrow();
    assertEquals(declared.incarnation(), adopted.incarnation());
    assertEquals(declared.location(), adopted.location());
    assertEquals(Version.of(2), adopted.version());
    assertTrue(catalog.declaredTable(RUNS).isEmpty());
    assertEquals(10, catalog.readHandle(RUNS).orElseThrow().latestSnapshot().rowCount());
    assertTrue(catalog.adopt(RUNS).isEmpty(), "adopted once");
  }

  @Test
  void followMakesVersionsAnOutsideWriterCommittedVisible() throws Exception {
    TableLocation outside = TableLocation.of(dir.resolve("outside"));
    writeAt(log, allocator, outside, 1, 3);
    catalog.register(RUNS, "log", outside);
    long generation = catalog.generation();
    try (TableHandle writer = log.open(outside).orElseThrow();
        VectorSchemaRoot root = ids(allocator, 100, 4);
        RecordBatchReader reader = LogTables.reader(allocator, root)) {
      writer.append(operation(7), reader);
    }
    assertEquals(Version.of(1), catalog.lookup(RUNS).orElseThrow().version(), "not visible before follow");
    assertEquals(Version.of(2), catalog.follow(RUNS).orElseThrow().version());
    assertNotEquals(generation, catalog.generation());
    assertEquals(7, catalog.readHandle(RUNS).orElseThrow().latestSnapshot().rowCount());
    assertTrue(catalog.follow(TableIdent.of("lab", "missing")).isEmpty());
  }

  @Test
  void deregisterKeepsTheFilesAndRegisterBringsTheTableBack() throws Exception {
    TableLocation outside = TableLocation.of(dir.resolve("outside"));
    writeAt(log, allocator, outside, 2, 3);
    catalog.register(RUNS, "log", outside);
    TableEntry removed = catalog.deregister(RUNS);
    assertEquals(outside, removed.location());
    assertTrue(catalog.lookup(RUNS).isEmpty());
    assertTrue(Files.isDirectory(outside.localPath()));
    assertThrows(TableNotFoundException.class, () -> catalog.deregister(RUNS));
    TableEntry back = catalog.register(RUNS, "log", outside);
    assertEquals(Version.of(2), back.version());
    assertEquals(6, catalog.readHandle(RUNS).orElseThrow().latestSnapshot().rowCount());
  }

  @Test
  void renameKeepsIncarnationFilesAndRowsAndRefusesATakenName() throws Exception {
    TableLocation outside = TableLocation.of(dir.resolve("outside"));
    writeAt(log, allocator, outside, 1, 4);
    TableEntry before = catalog.register(RUNS, "log", outside);
    TableIdent taken = TableIdent.of("lab", "taken");
    catalog.create(taken, IDS, "log");
    assertThrows(TableAlreadyExistsException.class, () -> catalog.rename(RUNS, taken));
    assertThrows(TableAlreadyExistsException.class, () -> catalog.rename(RUNS, RUNS));
    assertEquals(before, catalog.lookup(RUNS).orElseThrow());

    TableIdent trials = TableIdent.of("lab", "trials");
    TableEntry renamed = catalog.rename(RUNS, trials);
    assertEquals(before.incarnation(), renamed.incarnation());
    assertEquals(outside, renamed.location());
    assertTrue(catalog.lookup(RUNS).isEmpty());
    assertThrows(TableNotFoundException.class, () -> catalog.rename(RUNS, TableIdent.of("lab", "other")));
    catalog.close();
    catalog = Catalog.open(store, Map.of("log", log), dir.resolve("warehouse"));
    assertEquals(renamed, catalog.lookup(trials).orElseThrow());
    assertEquals(4, catalog.readHandle(trials).orElseThrow().latestSnapshot().rowCount());
  }

  @Test
  void aRenameInterruptedAfterItsNewRecordIsFinishedByTheNextOpen() throws Exception {
    assertEquals(Optional.of(TableIdent.of("lab", "trials")), interruptedRename(3),
        "the old record's delete was lost: the next open removes the old name");
  }

  @Test
  void aRenameInterruptedBeforeItsNewRecordIsRolledBackByTheNextOpen() throws Exception {
    assertEquals(Optional.of(RUNS), interruptedRename(2),
        "the new record was never written: the next open keeps the old name");
  }

  /** Renames runs to trials, losing the {@code n}-th store write; reopens; the one name left. */
  private Optional<TableIdent> interruptedRename(int n) throws Exception {
    TableLocation outside = TableLocation.of(dir.resolve("outside"));
    writeAt(log, allocator, outside, 1, 2);
    catalog.register(RUNS, "log", outside);
    catalog.close();
    FaultyMetaStore faulty = new FaultyMetaStore(store);
    catalog = Catalog.open(faulty, Map.of("log", log), dir.resolve("warehouse"));
    TableIdent trials = TableIdent.of("lab", "trials");
    faulty.failWrite(n, FaultyMetaStore.Mode.BEFORE);
    assertThrows(RuntimeException.class, () -> catalog.rename(RUNS, trials));
    assertTrue(faulty.failed());
    catalog.close();
    catalog = Catalog.open(store, Map.of("log", log), dir.resolve("warehouse"));
    List<TableIdent> names = catalog.allTables().stream().map(TableEntry::ident).toList();
    assertEquals(1, names.size(), "one name holds the files: " + names);
    assertTrue(store.scan(RenameIntent.PREFIX, Optional.empty(), 10).entries().isEmpty(), "intent resolved");
    assertEquals(2, catalog.readHandle(names.getFirst()).orElseThrow().latestSnapshot().rowCount());
    return Optional.of(names.getFirst());
  }

  @Test
  void aDeclaredTableKeepsItsNamespaceUnlessDroppedWithCascade() throws Exception {
    DeclaredTable declared = catalog.declare(RUNS, "log");
    writeAt(log, allocator, declared.location(), 1, 1);
    NamespaceNotEmptyException e = assertThrows(NamespaceNotEmptyException.class,
        () -> catalog.dropNamespace("lab", false));
    assertEquals(List.of("runs"), e.tables());
    catalog.dropNamespace("lab", true);
    assertFalse(catalog.namespaceExists("lab"));
    assertTrue(catalog.declaredTable(RUNS).isEmpty());
    assertFalse(Files.exists(declared.location().localPath()), "cascade deletes what was written");
  }
}
