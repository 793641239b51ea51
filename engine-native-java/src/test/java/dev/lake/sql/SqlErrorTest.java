package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SqlErrorTest extends SqlFixture {

  private SqlException prepareFails(String sql, SqlException.Kind kind) {
    SqlException e = assertThrows(SqlException.class, () -> engine.prepare(sql));
    assertEquals(kind, e.kind(), e.getMessage());
    return e;
  }

  @Test
  void parseErrorIsSyntaxWithCalcitesPosition() {
    SqlException e = prepareFails("SELECT id\nFROM episodes WHERE", SqlException.Kind.SYNTAX);
    assertEquals(2, e.line());
    assertTrue(e.column() > 0);
    assertTrue(e.getMessage().startsWith("syntax error: "), e.getMessage());
    SqlException select = prepareFails("SELEC 1", SqlException.Kind.SYNTAX);
    assertEquals(1, select.line());
    assertEquals(1, select.column());
  }

  @Test
  void unknownTableIsTableNotFoundNamingIt() {
    SqlException e = prepareFails("SELECT * FROM lake.demo.nope", SqlException.Kind.TABLE_NOT_FOUND);
    assertEquals("table lake.demo.nope not found (line 1, column 15)", e.getMessage());
    assertEquals(15, e.column());
    prepareFails("SELECT * FROM nope.episodes", SqlException.Kind.TABLE_NOT_FOUND);
    prepareFails("SELECT * FROM iceberg.demo.episodes", SqlException.Kind.TABLE_NOT_FOUND);
    prepareFails("SELECT * FROM nope", SqlException.Kind.TABLE_NOT_FOUND);
  }

  @Test
  void unqualifiedNameInTwoSchemasMustBeQualified() {
    SqlException e = prepareFails("SELECT x FROM shared", SqlException.Kind.TABLE_NOT_FOUND);
    assertTrue(e.getMessage().contains("qualify it as schema.table"), e.getMessage());
    assertTrue(e.getMessage().contains("demo, lab"), e.getMessage());
    assertEquals(1, rows("SELECT x FROM lab.shared").size());
  }

  @Test
  void unknownColumnIsInvalidWithPosition() {
    SqlException e = prepareFails("SELECT id,\n  nope FROM episodes", SqlException.Kind.INVALID);
    assertEquals("column nope not found (line 2, column 3)", e.getMessage());
    assertEquals(2, e.line());
    assertEquals(3, e.column());
    prepareFails("SELECT x.id FROM episodes e", SqlException.Kind.INVALID);
  }

  @Test
  void typeErrorsAreInvalidNamingTheExpression() {
    SqlException e = prepareFails("SELECT 'a' + 1", SqlException.Kind.INVALID);
    assertTrue(e.getMessage().contains("'a' + 1"), e.getMessage());
    assertTrue(e.getMessage().contains("VARCHAR"), e.getMessage());
    prepareFails("SELECT id FROM episodes WHERE robot = 1", SqlException.Kind.INVALID);
    prepareFails("SELECT id FROM episodes WHERE id", SqlException.Kind.INVALID);
    prepareFails("SELECT sum(robot) FROM episodes", SqlException.Kind.INVALID);
    prepareFails("SELECT CAST(\"day\" AS BOOLEAN) FROM episodes", SqlException.Kind.INVALID);
    SqlException like = prepareFails("SELECT robot LIKE 1 FROM episodes", SqlException.Kind.INVALID);
    assertTrue(like.getMessage().contains("like cannot take VARCHAR, INTEGER"), like.getMessage());
    SqlException compare = prepareFails("SELECT id FROM episodes WHERE robot = 1", SqlException.Kind.INVALID);
    assertTrue(compare.getMessage().contains("= cannot take VARCHAR, INTEGER"), compare.getMessage());
    // Inside an OR too (Calcite's simplifier once folded it into a mixed-type range and failed).
    SqlException inOr = prepareFails("SELECT id FROM episodes WHERE id = 'abc' OR id = 3",
        SqlException.Kind.INVALID);
    assertTrue(inOr.getMessage().contains("= cannot take BIGINT, VARCHAR"), inOr.getMessage());
    assertEquals(31, inOr.column(), inOr.getMessage());
    assertEquals(2, rows("SELECT id FROM episodes WHERE id = '3' OR id = 4").size());
    // A string literal that reads as a number is taken as one, as PostgreSQL types it by context.
    assertEquals(1, rows("SELECT id FROM episodes WHERE id = '3'").size());
    prepareFails("SELECT CAST('x' AS DATE)", SqlException.Kind.INVALID);
    prepareFails("SELECT nosuchfn(id) FROM episodes", SqlException.Kind.INVALID);
  }

  @Test
  void aggregateMisuseIsInvalid() {
    SqlException e = prepareFails("SELECT robot, count(*) FROM episodes", SqlException.Kind.INVALID);
    assertTrue(e.getMessage().contains("robot must appear in GROUP BY"), e.getMessage());
    prepareFails("SELECT id FROM episodes WHERE count(*) > 1", SqlException.Kind.INVALID);
    prepareFails("SELECT sum(count(*)) FROM episodes", SqlException.Kind.INVALID);
    prepareFails("SELECT id FROM episodes GROUP BY robot", SqlException.Kind.INVALID);
  }

  @Test
  void unsupportedConstructsAreNamed() {
    SqlException window = prepareFails(
        "SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE TIES) FROM episodes",
        SqlException.Kind.UNSUPPORTED);
    assertTrue(window.getMessage().startsWith(
        "window frame ROWS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE TIES is not supported yet"), window.getMessage());
    SqlException columns = prepareFails(
        "SELECT id FROM episodes INTERSECT SELECT id, id FROM episodes", SqlException.Kind.INVALID);
    assertTrue(columns.getMessage().contains("Column count mismatch in INTERSECT")
        && columns.getMessage().contains("line 1, column 42"), columns.getMessage());
    // An update is not a query: it is prepared with prepareUpdate (SqlUpdateTest).
    SqlException insert = prepareFails("INSERT INTO demo.episodes (id) VALUES (1)", SqlException.Kind.INVALID);
    assertTrue(insert.getMessage().contains("update statement"), insert.getMessage());
    SqlException grouping = prepareFails(
        "SELECT robot, grouping(id) FROM episodes GROUP BY ROLLUP(robot)", SqlException.Kind.INVALID);
    assertTrue(grouping.getMessage().contains("GROUPING") && grouping.getMessage().contains("column 24"),
        grouping.getMessage());
  }

  @Test
  void errorsInJoinedQueriesNameTheTableOrColumnWithPosition() {
    SqlException table = prepareFails(
        "SELECT * FROM episodes a JOIN demo.nope b ON a.id = b.id", SqlException.Kind.TABLE_NOT_FOUND);
    assertTrue(table.getMessage().contains("nope"), table.getMessage());
    assertEquals(1, table.line());
    SqlException column = prepareFails(
        "SELECT a.id FROM episodes a JOIN episodes b\n ON a.id = b.nope", SqlException.Kind.INVALID);
    assertTrue(column.getMessage().contains("nope"), column.getMessage());
    assertEquals(2, column.line());
  }

  @Test
  void columnsOfTypesSqlCannotComputeWithPassThroughButCannotBeComputedWith() {
    InMemoryTable blobs = new InMemoryTable(new org.apache.arrow.vector.types.pojo.Schema(java.util.List.of(
        field("id", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true), false),
        field("payload", org.apache.arrow.vector.types.pojo.ArrowType.Binary.INSTANCE, true))), 10);
    blobs.appendRows(java.util.List.<Object[]>of(row(1L, null)));
    catalog.put(new TableName("demo", "blobs"), blobs);
    assertEquals(1, rows("SELECT id FROM demo.blobs").size());
    assertEquals(java.util.List.of(java.util.Arrays.asList(1L, null)), rows("SELECT * FROM demo.blobs"));
    SqlException e = prepareFails("SELECT id FROM demo.blobs WHERE payload IS NULL", SqlException.Kind.UNSUPPORTED);
    assertTrue(e.getMessage().startsWith("column payload"), e.getMessage());
  }

  @Test
  void divisionByZeroFailsTheQueryAtExecution() {
    for (String sql : new String[] {
        "SELECT id / 0 FROM episodes", "SELECT duration_s / 0 FROM episodes",
        "SELECT reward / 0 FROM episodes", "SELECT id % (id - id) FROM episodes"}) {
      PreparedQuery q = engine.prepare(sql);
      SqlException e = assertThrows(SqlException.class, () -> rows(q));
      assertEquals(SqlException.Kind.EXECUTION, e.kind());
      assertEquals("division by zero", e.getMessage());
    }
    // Rows removed by WHERE are never evaluated.
    assertEquals(1, rows("SELECT 10 / (id - 1) FROM episodes WHERE id = 2").size());
  }

  @Test
  void integerOverflowFailsInsteadOfWrapping() {
    SqlException e = assertThrows(SqlException.class, () -> rows("SELECT i64 + 1 FROM demo.types"));
    assertEquals(SqlException.Kind.EXECUTION, e.kind());
    assertThrows(SqlException.class, () -> rows("SELECT i32 * 2 FROM demo.types"));
    assertThrows(SqlException.class, () -> rows("SELECT CAST(i16 AS TINYINT) FROM demo.types"));
  }
}
