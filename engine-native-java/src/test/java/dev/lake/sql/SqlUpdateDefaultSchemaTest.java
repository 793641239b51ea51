package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.Version;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Update statements under a session's default schema ({@link SqlEngine#prepareUpdate(String, String)}). */
class SqlUpdateDefaultSchemaTest extends LogTablesFixture {

  @BeforeEach
  void createSchemas() {
    engine.executeUpdate("CREATE SCHEMA lab", allocator);
    engine.executeUpdate("CREATE SCHEMA demo", allocator);
  }

  private long update(String sql, String schema) {
    return engine.prepareUpdate(sql, schema).execute(allocator).count();
  }

  private long count(String sql, String schema) throws Exception {
    try (ArrowReader reader = engine.prepare(sql, Map.of(), schema).execute(allocator)) {
      assertTrue(reader.loadNextBatch());
      return ((Number) SqlFixture.value(reader.getVectorSchemaRoot().getVector(0), 0)).longValue();
    }
  }

  private Version version(String schema, String table) {
    return catalog.openTable(new TableName(schema, table)).orElseThrow().currentVersion();
  }

  @Test
  void bareCreateInsertCtasAndDropGoToTheDefaultSchema() throws Exception {
    update("CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR)", "lab");
    assertEquals(List.of("t"), catalog.tableNames("lab"));
    assertEquals(List.of(), catalog.tableNames("public"), "nothing in public");
    assertEquals(2, update("INSERT INTO t VALUES (1, 'a'), (2, 'b')", "lab"));
    assertEquals(Version.of(1), version("lab", "t"));
    update("CREATE TABLE copy AS SELECT id FROM t WHERE id > 1", "lab");
    assertEquals(1, count("SELECT count(*) FROM lab.copy", null));
    assertEquals(1, update("INSERT INTO t SELECT id + 10, 'c' FROM copy", "lab"));
    assertEquals(3, count("SELECT count(*) FROM t", "lab"));
    update("DROP TABLE copy", "lab");
    assertEquals(List.of("t"), catalog.tableNames("lab"));
  }

  @Test
  void aBareNameInTwoSchemasMeansTheDefaultSchemasTable() throws Exception {
    update("CREATE TABLE t (id BIGINT)", "lab");
    update("CREATE TABLE t (id BIGINT)", "demo");
    SqlException ambiguous = assertThrows(SqlException.class,
        () -> engine.executeUpdate("INSERT INTO t VALUES (1)", allocator));
    assertEquals(SqlException.Kind.INVALID, ambiguous.kind());
    assertEquals(1, update("INSERT INTO t VALUES (1)", "demo"));
    assertEquals(Version.of(1), version("demo", "t"));
    assertEquals(Version.of(0), version("lab", "t"), "the other schema's table is untouched");
    update("DROP TABLE t", "lab");
    assertEquals(List.of(), catalog.tableNames("lab"));
    assertEquals(List.of("t"), catalog.tableNames("demo"));
  }

  @Test
  void aBareNameOnlyElsewhereStillResolvesAndMissingOnesNameTheDefaultSchema() {
    update("CREATE TABLE only (id BIGINT)", "demo");
    assertEquals(1, update("INSERT INTO only VALUES (5)", "lab"));
    assertEquals(Version.of(1), version("demo", "only"));
    SqlException missing = assertThrows(SqlException.class,
        () -> update("INSERT INTO nowhere VALUES (1)", "lab"));
    assertEquals(SqlException.Kind.TABLE_NOT_FOUND, missing.kind());
    assertTrue(missing.getMessage().contains("lake.lab.nowhere"), missing.getMessage());
    SqlException exists = assertThrows(SqlException.class,
        () -> update("CREATE TABLE only (id BIGINT)", "demo"));
    assertEquals(SqlException.Kind.ALREADY_EXISTS, exists.kind());
  }
}
