package dev.lake.engine.lance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.CatalogException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import dev.lake.sql.SqlEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;

/**
 * A dataset written by the stock Lance library (not through lake) is registered with {@link
 * Catalog#register} in the real registry (RocksDB, both engines found by ServiceLoader) and
 * queried with lake's SQL engine; what lake appends afterwards is again readable by stock Lance.
 */
class StockLanceRegisterTest {

  private static final TableIdent STOCK = TableIdent.of("lab", "stock");

  @TempDir Path dir;
  private BufferAllocator allocator;
  private RocksDbMetaStore store;
  private final Map<String, TableEngine> engines = new TreeMap<>();
  private Catalog catalog;
  private SqlEngine sql;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    store = RocksDbMetaStore.open(dir.resolve("meta"));
    for (TableEngineFactory f : ServiceLoader.load(TableEngineFactory.class)) {
      engines.put(f.name(), f.create(Map.of()));
    }
    assertEquals(List.of("lance", "log"), List.copyOf(engines.keySet()));
    catalog = Catalog.open(store, engines, dir.resolve("warehouse"));
    sql = new SqlEngine(new RegistrySqlCatalog(catalog));
  }

  @AfterEach
  void close() {
    catalog.close();
    engines.values().forEach(TableEngine::close);
    store.close();
    allocator.close();
  }

  @Test
  void stockLanceDatasetIsRegisteredAtItsCurrentVersionAndQueriedWithSql() throws Exception {
    Path path = dir.resolve("written-by-lance");
    writeWithStockLance(path, 0, 250, WriteParams.WriteMode.CREATE); // Lance version 1 = lake version 0
    writeWithStockLance(path, 250, 50, WriteParams.WriteMode.APPEND); // Lance version 2 = lake version 1

    TableEntry entry = catalog.register(STOCK, "lance", TableLocation.of(path));
    assertEquals(Version.of(1), entry.version());
    assertEquals("lance", entry.engine());
    assertEquals(TestData.SCHEMA, entry.schema());

    // ids 0..299, score = id / 2, name null where id % 10 == 0
    assertEquals(List.of(List.of("300", "44850", "0", "299", "22425.0")),
        query("SELECT COUNT(*), SUM(id), MIN(id), MAX(id), SUM(score) FROM lab.stock"));
    assertEquals(List.of(List.of("109", "row-109"), List.of("108", "row-108"), List.of("107", "row-107")),
        query("SELECT id, name FROM lab.stock WHERE id BETWEEN 100 AND 110 AND name IS NOT NULL"
            + " ORDER BY id DESC LIMIT 3"));
    assertEquals(List.of(List.of("9")),
        query("SELECT COUNT(*) FROM lab.stock WHERE id BETWEEN 100 AND 110 AND name IS NOT NULL"));
    assertEquals(List.of(List.of("250", "249")), query("SELECT COUNT(*), MAX(id) FROM lab.stock FOR VERSION AS OF 0"));

    try (ArrowReader more = TestData.rows(allocator, 300, 20, 20)) {
      assertEquals(Version.of(2), catalog.append(STOCK, TestData.operation("after register"), more));
    }
    assertEquals(List.of(List.of("320")), query("SELECT COUNT(*) FROM lab.stock"));
    try (Dataset stock = Dataset.open(path.toString(), allocator)) {
      assertEquals(3, stock.version(), "lake version 2 is Lance version 3");
      assertEquals(320, stock.countRows());
    }
  }

  @Test
  void registeringALocationWithoutADatasetNamesItAndRegistersNothing() {
    TableLocation empty = TableLocation.of(dir.resolve("nothing-here"));
    CatalogException e = assertThrows(CatalogException.class, () -> catalog.register(STOCK, "lance", empty));
    assertTrue(e.getMessage().contains(empty.toString()), e.getMessage());
    assertTrue(catalog.lookup(STOCK).isEmpty());
  }

  @Test
  void registeringFilesThatAreNotALanceDatasetIsCorruptTableAndRegistersNothing() throws Exception {
    Path notLance = Files.createDirectories(dir.resolve("not-lance"));
    Files.writeString(notLance.resolve("part-0.parquet"), "not a lance file");
    assertThrows(CorruptTableException.class, () -> catalog.register(STOCK, "lance", TableLocation.of(notLance)));
    assertTrue(catalog.lookup(STOCK).isEmpty());
    assertTrue(Files.exists(notLance.resolve("part-0.parquet")), "nothing was deleted");
  }

  private void writeWithStockLance(Path path, long from, int count, WriteParams.WriteMode mode) {
    try (ArrowReader rows = TestData.rows(allocator, from, count, 100);
        Dataset written = Dataset.write().allocator(allocator).reader(rows).uri(path.toString())
            .mode(mode).execute()) {
      assertTrue(written.version() >= 1);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private List<List<String>> query(String text) throws Exception {
    return RegistrySqlCatalog.query(sql, text, allocator);
  }
}
