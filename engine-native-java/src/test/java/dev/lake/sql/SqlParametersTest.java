package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Statements with {@code ?}: parameter types from the validator, bound values, bad values. */
class SqlParametersTest extends SqlFixture {

  private List<List<Object>> run(String sql, Object... values) {
    return rows(engine.prepare(sql, Map.of(), Arrays.asList(values)));
  }

  private SqlException refused(String sql, Object... values) {
    return assertThrows(SqlException.class, () -> run(sql, values));
  }

  private static List<ArrowType> types(Schema schema) {
    return schema.getFields().stream().map(Field::getType).toList();
  }

  @Test
  void eachParameterTakesTheTypeOfWhatItIsComparedWith() {
    PreparedQuery q = engine.prepare("SELECT id FROM demo.episodes WHERE id = ? AND robot = ? AND reward > ?"
        + " AND \"day\" = ? AND started_at < ? AND success = ? AND duration_s > ?");
    assertEquals(List.of(new ArrowType.Int(64, true), ArrowType.Utf8.INSTANCE,
        new ArrowType.Decimal(10, 3, 128), new ArrowType.Date(DateUnit.DAY),
        new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), ArrowType.Bool.INSTANCE,
        new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), types(q.parameterSchema()));
    assertEquals(List.of("parameter_1", "parameter_2", "parameter_3", "parameter_4", "parameter_5",
        "parameter_6", "parameter_7"),
        q.parameterSchema().getFields().stream().map(Field::getName).toList());
    assertTrue(q.parameterSchema().getFields().stream().allMatch(Field::isNullable));
    assertEquals(List.of("id"), q.schema().getFields().stream().map(Field::getName).toList());
    assertEquals(List.of(list(1L)), rows(engine.prepare(q == null ? "" : "SELECT id FROM demo.episodes"
        + " WHERE id = ? AND robot = ? AND reward > ? AND \"day\" = ? AND started_at < ? AND success = ?"
        + " AND duration_s > ?", Map.of(), List.of(1L, "r2d2", dec("1.000"), day("2024-01-01"),
            ts("2024-01-01T10:00:01Z"), true, 12.0))));
  }

  @Test
  void aStatementWithoutParametersHasAnEmptyParameterSchema() {
    assertEquals(List.of(), engine.prepare("SELECT id FROM demo.episodes").parameterSchema().getFields());
    assertEquals(List.of(list(8L)), rows(engine.prepare("SELECT count(*) FROM demo.episodes", Map.of(), List.of())));
  }

  @Test
  void reExecutionWithNewValuesGivesTheirAnswers() {
    String sql = "SELECT robot, task FROM demo.episodes WHERE id = ?";
    assertEquals(List.of(list("r2d2", "pick")), run(sql, 1L));
    assertEquals(List.of(list("c3po", "pick")), run(sql, 3));
    assertEquals(List.of(list("bb8", null)), run(sql, (short) 6));
    assertEquals(List.of(), run(sql, 99L));
    PreparedQuery bound = engine.prepare(sql, Map.of(), List.of(2L));
    assertEquals(List.of(list("r2d2", "place")), rows(bound));
    assertEquals(List.of(list("r2d2", "place")), rows(bound), "a bound query runs again");
  }

  @Test
  void aParameterInTheSelectListIsTypedByItsContextOrElseVarchar() {
    PreparedQuery bare = engine.prepare("SELECT ?, ? + 1, CAST(? AS DATE), id FROM demo.episodes WHERE id = 1");
    assertEquals(List.of(ArrowType.Utf8.INSTANCE, new ArrowType.Int(32, true),
        new ArrowType.Date(DateUnit.DAY)), types(bare.parameterSchema()));
    assertEquals(List.of(list("hello", 42, day("2026-01-05"), 1L)),
        run("SELECT ?, ? + 1, CAST(? AS DATE), id FROM demo.episodes WHERE id = 1", "hello", 41, day("2026-01-05")));
    assertEquals(List.of(list("röbot-21 🤖")), run("SELECT ?", "röbot-21 🤖"));
    assertEquals(List.of(list((Object) null)), run("SELECT ?", (Object) null));
    assertEquals(List.of(list("none"), list("r2d2")),
        run("SELECT COALESCE(robot, ?) FROM demo.episodes WHERE id IN (5, 8) ORDER BY id", "none"));
  }

  @Test
  void parametersInAnInList() {
    assertEquals(List.of(list(2L), list(5L), list(7L)),
        run("SELECT id FROM demo.episodes WHERE id IN (?, ?, ?) ORDER BY id", 7L, 2L, 5L));
    assertEquals(List.of(list(1L), list(2L), list(8L)),
        run("SELECT id FROM demo.episodes WHERE robot IN (?, ?) ORDER BY id", "r2d2", "nobody"));
    assertEquals(List.of(list(3L)),
        run("SELECT id FROM demo.episodes WHERE id NOT IN (?, ?) AND robot = ? ORDER BY id", 4L, 9L, "c3po"));
  }

  @Test
  void limitAndOffsetTakeParameters() {
    String sql = "SELECT id FROM demo.episodes ORDER BY id LIMIT ? OFFSET ?";
    assertEquals(2, engine.prepare(sql).parameterSchema().getFields().size());
    assertEquals(List.of(list(3L), list(4L)), run(sql, 2, 2));
    assertEquals(List.of(list(8L)), run(sql, 5L, 7L));
    assertEquals(8, run(sql, null, null).size(), "LIMIT NULL is no limit, OFFSET NULL none (PostgreSQL)");
    assertEquals(List.of(), run(sql, 0, 0));
    SqlException negative = refused(sql, -1, 0);
    assertEquals(SqlException.Kind.INVALID, negative.kind());
    assertEquals("parameter 1 (LIMIT) must not be negative, not -1", negative.getMessage());
    assertEquals("parameter 2 (OFFSET) must not be negative, not -3", refused(sql, 1, -3).getMessage());
    assertEquals(List.of(list(1L), list(2L)), run("SELECT id FROM demo.episodes ORDER BY id FETCH FIRST ? ROWS ONLY", 2));
  }

  @Test
  void forVersionAsOfTakesAParameter() {
    String sql = "SELECT count(*) FROM demo.episodes FOR VERSION AS OF ? WHERE id > ?";
    assertEquals(List.of(new ArrowType.Int(64, true), new ArrowType.Int(64, true)),
        types(engine.prepare(sql).parameterSchema()));
    assertEquals(List.of(list(6L)), run(sql, 1L, 0L));
    assertEquals(List.of(list(8L)), run(sql, 2, 0));
    assertEquals(List.of(list(0L)), run(sql, 0, 0));
    assertEquals(List.of(list(3L)), run(sql, 2, 5));
    assertEquals(List.of(list(6L)), run("SELECT count(*) FROM demo.episodes FOR VERSION AS OF ?", 1));
    SqlException missing = refused(sql, 42L, 0L);
    assertEquals(SqlException.Kind.VERSION_NOT_FOUND, missing.kind());
    assertTrue(missing.getMessage().contains("version 42 of table lake.demo.episodes"), missing.getMessage());
    assertEquals("parameter 1 (FOR VERSION AS OF) must be a version number, not NULL",
        refused(sql, null, 0L).getMessage());
    assertEquals("parameter 1 (FOR VERSION AS OF) must be a version number >= 0, not -1",
        refused(sql, -1, 0L).getMessage());
    assertEquals("parameter 1 expects BIGINT, but was given the VARCHAR value '1'",
        refused(sql, "1", 0L).getMessage());
  }

  @Test
  void everyStoredTypeBindsAndNullMatchesNothing() {
    assertEquals(List.of(list(-64L)), run("SELECT i64 FROM demo.types WHERE i8 = ? AND i16 = ? AND i32 = ? AND i64 = ?"
        + " AND f32 = ? AND f64 = ? AND b = ? AND s = ? AND d = ? AND ts = ? AND dm = ?",
        (byte) -8, (short) -16, -32, -64L, 1.5f, 2.25, true, "héllo", day("1999-12-31"),
        ts("2000-01-01T00:00:00.000001Z"), dec("12.34")));
    assertEquals(List.of(list(Long.MAX_VALUE)), run("SELECT i64 FROM demo.types WHERE i8 = ? AND f64 > ? AND dm = ?",
        127L, 1e299, dec("-0.010")));
    assertEquals(List.of(), run("SELECT i64 FROM demo.types WHERE s = ?", (Object) null));
    assertEquals(List.of(list(3L)), run("SELECT count(*) FROM demo.types WHERE ? IS NULL", (Object) null));
    assertEquals(List.of(list(dec("12.34"))), run("SELECT dm FROM demo.types WHERE dm > ?", 12));
    assertEquals(List.of(list(ts("1969-12-31T23:59:59Z"))),
        run("SELECT ts FROM demo.types WHERE ts < ?", day("1970-01-01")));
  }

  @Test
  void parametersWorkInJoinsLikeAndExpressions() {
    assertEquals(List.of(list(1L, 1L), list(2L, 2L)), run("SELECT a.id, b.id FROM demo.episodes a"
        + " JOIN demo.episodes b ON a.id = b.id WHERE a.robot = ? AND b.id < ? ORDER BY a.id", "r2d2", 3L));
    assertEquals(List.of(list(1L), list(2L), list(8L)),
        run("SELECT id FROM demo.episodes WHERE robot LIKE ? ORDER BY id", "r2%"));
    assertEquals(List.of(), run("SELECT id FROM demo.episodes WHERE robot LIKE ?", (Object) null));
    // ? takes the type of reward, DECIMAL(10,3), so the product has scale 6.
    assertEquals(List.of(list(dec("2.500000")), list(dec("-1.000000"))),
        run("SELECT reward * ? FROM demo.episodes WHERE id <= ? ORDER BY id", 2, 2L));
    assertEquals(List.of(list(2L)), run("SELECT count(*) FROM demo.episodes WHERE id BETWEEN ? AND ?"
        + " AND robot = (SELECT max(robot) FROM demo.episodes WHERE id < ?)", 1L, 2L, 3L));
  }

  @Test
  void theWrongNumberOfValuesIsRefusedNamingBothCounts() {
    String sql = "SELECT id FROM demo.episodes WHERE id = ? AND robot = ?";
    SqlException few = refused(sql, 1L);
    assertEquals(SqlException.Kind.INVALID, few.kind());
    assertEquals("the statement has 2 parameters, but 1 value was bound", few.getMessage());
    assertEquals("the statement has 2 parameters, but 3 values were bound", refused(sql, 1L, "a", 2).getMessage());
    assertEquals("the statement has no parameters, but 1 value was bound",
        refused("SELECT id FROM demo.episodes", 1L).getMessage());
    SqlException unbound = assertThrows(SqlException.class, () -> rows(engine.prepare(sql)));
    assertEquals(SqlException.Kind.INVALID, unbound.kind());
    assertEquals("the statement has 2 parameters and no values were bound", unbound.getMessage());
  }

  @Test
  void aValueThatDoesNotConvertIsRefusedNamingPositionAndType() {
    String sql = "SELECT i32 FROM demo.types WHERE i8 = ? AND s = ? AND dm = ? AND d = ? AND b = ?";
    Object[] good = {1, "x", dec("1.00"), day("2024-01-01"), true};
    assertEquals(List.of(), run(sql, good));
    assertEquals("parameter 1 expects TINYINT, but was given the VARCHAR value '7'",
        refused(sql, "7", "x", dec("1"), day("2024-01-01"), true).getMessage());
    assertEquals("parameter 1 expects TINYINT, but 300 is out of its range",
        refused(sql, 300, "x", dec("1"), day("2024-01-01"), true).getMessage());
    assertEquals("parameter 1 expects TINYINT, but was given the DOUBLE value 1.5",
        refused(sql, 1.5, "x", dec("1"), day("2024-01-01"), true).getMessage());
    assertEquals("parameter 2 expects VARCHAR, but was given the INTEGER value 5",
        refused(sql, 1, 5, dec("1"), day("2024-01-01"), true).getMessage());
    assertEquals("parameter 2 expects VARCHAR, but was given a VARBINARY value of 3 bytes",
        refused(sql, 1, new byte[3], dec("1"), day("2024-01-01"), true).getMessage());
    assertEquals("parameter 3 expects DECIMAL(12,2), but 1.125 has more than 2 digits after the point",
        refused(sql, 1, "x", dec("1.125"), day("2024-01-01"), true).getMessage());
    assertEquals("parameter 3 expects DECIMAL(12,2), but 12345678901 is out of its range",
        refused(sql, 1, "x", 12_345_678_901L, day("2024-01-01"), true).getMessage());
    assertEquals("parameter 4 expects DATE, but was given the VARCHAR value '2024-01-01'",
        refused(sql, 1, "x", dec("1"), "2024-01-01", true).getMessage());
    assertEquals("parameter 4 expects DATE, but was given the TIMESTAMP value 2024-01-01T00:00:01Z",
        refused(sql, 1, "x", dec("1"), ts("2024-01-01T00:00:01Z"), true).getMessage());
    assertEquals("parameter 5 expects BOOLEAN, but was given the INTEGER value 1",
        refused(sql, 1, "x", dec("1"), day("2024-01-01"), 1).getMessage());
    String longText = "y".repeat(10_000);
    String message = refused("SELECT i32 FROM demo.types WHERE i32 = ?", longText).getMessage();
    assertTrue(message.length() < 200, message);
    assertTrue(message.startsWith("parameter 1 expects INTEGER, but was given the VARCHAR value 'yyy"), message);
  }

  @Test
  void aParameterWhoseTypeCannotBeComputedWithIsRefused() {
    SqlException e = assertThrows(SqlException.class, () -> engine.prepare("SELECT ? + ?"));
    assertEquals(SqlException.Kind.INVALID, e.kind());
  }

  @Test
  void explainOfABoundQueryShowsTheValueAsAConstant() {
    PreparedQuery bound = engine.prepare("SELECT id FROM demo.episodes WHERE id = ?", Map.of(), List.of(5L));
    String plan = String.join("\n", bound.explain());
    assertTrue(plan.contains("5"), plan);
    assertTrue(plan.contains("pushed="), plan);
  }

  @Test
  void decimalParametersAcceptValuesOfASmallerScale() {
    assertEquals(List.of(list(3L)), run("SELECT id FROM demo.episodes WHERE reward = ?", dec("2")));
    assertEquals(List.of(list(3L)), run("SELECT id FROM demo.episodes WHERE reward = ?", 2.0));
    assertEquals(List.of(list(6L)), run("SELECT id FROM demo.episodes WHERE reward = ?", new BigDecimal("3.125")));
  }
}
