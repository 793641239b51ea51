package dev.lake.engine.lance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.SqlException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL statements whose source query reads a Lance table through lake's SQL engine, over the real
 * registry (RocksDB, both engines found by ServiceLoader): every buffer the Lance scan hands out
 * is released by the time the statement returns, so the query's allocator closes empty and the
 * rows land in the target, whether that is a log or a Lance table.
 */
class LanceSqlWriteTest {

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
    catalog = Catalog.open(store, engines, dir.resolve("warehouse"));
    sql = new SqlEngine(new RegistrySqlCatalog(catalog));
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.lance_t (id BIGINT, name VARCHAR) WITH (engine = 'lance')");
    update("INSERT INTO s.lance_t VALUES (1, 'a'), (2, NULL), (3, 'c')");
    update("CREATE TABLE s.log_t (id BIGINT, name VARCHAR)");
    update("INSERT INTO s.log_t VALUES (1, 'x'), (3, 'z'), (4, 'w')");
  }

  @AfterEach
  void close() {
    catalog.close();
    engines.values().forEach(TableEngine::close);
    store.close();
    allocator.close(); // throws if a statement left a buffer behind
  }

  @Test
  void createTableAsSelectFromALanceTableWritesALogTable() throws Exception {
    assertEquals(3, update("CREATE TABLE s.copy AS SELECT * FROM s.lance_t"));
    assertEquals(List.of(List.of("1", "a"), List.of("2", "null"), List.of("3", "c")),
        query("SELECT id, name FROM s.copy ORDER BY id"));
    assertEquals("log", catalog.lookup(TableIdent.of("s", "copy")).orElseThrow().engine());
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void createTableAsSelectFromALanceTableWritesALanceTable() throws Exception {
    assertEquals(2, update("CREATE TABLE s.copy WITH (engine = 'lance') AS"
        + " SELECT id * 10 AS id, name FROM s.lance_t WHERE id <> 2"));
    assertEquals(List.of(List.of("10", "a"), List.of("30", "c")),
        query("SELECT id, name FROM s.copy ORDER BY id"));
    assertEquals("lance", catalog.lookup(TableIdent.of("s", "copy")).orElseThrow().engine());
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void insertSelectFromALanceTableAppendsToALogTable() throws Exception {
    assertEquals(3, update("INSERT INTO s.log_t SELECT * FROM s.lance_t"));
    assertEquals(List.of(List.of("1", "a"), List.of("1", "x"), List.of("2", "null"),
            List.of("3", "c"), List.of("3", "z"), List.of("4", "w")),
        query("SELECT id, name FROM s.log_t ORDER BY id, name"));
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void insertSelectFromALanceTableAppendsToALanceTable() throws Exception {
    assertEquals(3, update("INSERT INTO s.lance_t (name, id) SELECT name, id + 100 FROM s.lance_t"));
    assertEquals(List.of(List.of("6", "4", "1", "103")),
        query("SELECT COUNT(*), COUNT(name), MIN(id), MAX(id) FROM s.lance_t"));
    assertEquals(List.of(List.of("101", "a"), List.of("102", "null"), List.of("103", "c")),
        query("SELECT id, name FROM s.lance_t WHERE id > 100 ORDER BY id"));
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void insertSelectJoiningALanceAndALogTableWritesTheJoinedRows() throws Exception {
    update("CREATE TABLE s.joined (id BIGINT, lance_name VARCHAR, log_name VARCHAR)");
    assertEquals(2, update("INSERT INTO s.joined SELECT l.id, l.name, g.name"
        + " FROM s.lance_t l JOIN s.log_t g ON l.id = g.id"));
    assertEquals(List.of(List.of("1", "a", "x"), List.of("3", "c", "z")),
        query("SELECT * FROM s.joined ORDER BY id"));
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void queriesJoiningAndAggregatingALanceTableReleaseEveryBuffer() throws Exception {
    assertEquals(List.of(List.of("1", "a", "x"), List.of("3", "c", "z")),
        query("SELECT l.id, l.name, g.name FROM s.lance_t l JOIN s.log_t g ON l.id = g.id ORDER BY l.id"));
    assertEquals(List.of(List.of("false", "1", "2"), List.of("true", "2", "4")),
        query("SELECT id % 2 = 1 AS odd, COUNT(*), SUM(id) FROM s.lance_t GROUP BY id % 2 = 1 ORDER BY odd"));
    assertEquals(List.of(List.of("3", "ac")),
        query("SELECT COUNT(*), STRING_AGG(name, '' ORDER BY name) FROM s.lance_t"));
    assertEquals(2, update("CREATE TABLE s.agg AS SELECT name IS NULL AS missing, COUNT(*) AS n"
        + " FROM s.lance_t GROUP BY name IS NULL"));
    assertEquals(List.of(List.of("false", "2"), List.of("true", "1")),
        query("SELECT missing, n FROM s.agg ORDER BY missing"));
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void aRefusedInsertFromALanceTableWritesNothingAndReleasesEveryBuffer() throws Exception {
    update("CREATE TABLE s.strict (id BIGINT, name VARCHAR NOT NULL)");
    SqlException e = assertThrows(SqlException.class,
        () -> update("INSERT INTO s.strict SELECT id, name FROM s.lance_t"));
    assertEquals(SqlException.Kind.INVALID, e.kind());
    assertTrue(e.getMessage().contains("column 'name'") && e.getMessage().contains("NOT NULL"),
        e.getMessage());
    assertEquals(List.of(List.of("0")), query("SELECT COUNT(*) FROM s.strict"));
    SqlException twice = assertThrows(SqlException.class,
        () -> update("CREATE TABLE s.dup AS SELECT l.id, g.id FROM s.lance_t l JOIN s.log_t g ON l.id = g.id"));
    assertTrue(twice.getMessage().contains("two columns named 'id'"), twice.getMessage());
    assertTrue(catalog.lookup(TableIdent.of("s", "dup")).isEmpty());
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void insertSelectFromALogTableAppendsToALanceTable() throws Exception {
    // A log block's column buffers lie back to back (values right after a 1-byte bitmap), not
    // aligned as Lance's reader requires: they are copied aligned on the way to Lance.
    assertEquals(3, update("INSERT INTO s.lance_t SELECT * FROM s.log_t"));
    assertEquals(2, update("CREATE TABLE s.copy WITH (engine = 'lance') AS"
        + " SELECT id, name FROM s.log_t WHERE id > 1"));
    assertEquals(List.of(List.of("1", "a"), List.of("1", "x"), List.of("2", "null"),
            List.of("3", "c"), List.of("3", "z"), List.of("4", "w")),
        query("SELECT id, name FROM s.lance_t ORDER BY id, name"));
    assertEquals(List.of(List.of("3", "z"), List.of("4", "w")),
        query("SELECT id, name FROM s.copy ORDER BY id"));
    assertEquals(0, allocator.getAllocatedMemory());
  }

  private long update(String text) {
    return sql.executeUpdate(text, allocator);
  }

  private List<List<String>> query(String text) throws Exception {
    return RegistrySqlCatalog.query(sql, text, allocator);
  }
}
