package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class SqlEngineTest extends SqlFixture {

  @Test
  void stringEqualityAndInListsFollowSqlNullRules() {
    assertEquals(List.of(list(3L)), rows("SELECT count(*) FROM episodes WHERE robot = 'r2d2'"));
    assertEquals(List.of(list(3L)), rows("SELECT count(*) FROM episodes WHERE 'r2d2' = robot"));
    assertEquals(List.of(list(4L)), rows("SELECT count(*) FROM episodes WHERE robot <> 'r2d2'"));
    assertEquals(List.of(list(4L)), rows("SELECT count(*) FROM episodes WHERE robot IN ('bb8', 'c3po', 'x')"));
    assertEquals(List.of(list(5L)), rows("SELECT count(*) FROM episodes WHERE robot NOT IN ('bb8', 'x')"));
    assertEquals(List.of(list(0L)), rows("SELECT count(*) FROM episodes WHERE robot NOT IN ('bb8', NULL)"));
    assertEquals(List.of(list(0L)), rows("SELECT count(*) FROM episodes WHERE robot = 'r2d'"));
  }

  /** A shared subexpression and its negation in one select list each keep their own values. */
  @Test
  void notOfASharedSubexpressionLeavesTheSharedValueAlone() {
    assertEquals(List.of(list(1L, true, false), list(2L, false, true)), rows(
        "SELECT id, id < 2, NOT (id < 2) FROM episodes WHERE id <= 2 ORDER BY id"));
    assertEquals(List.of(list(1L, false, true), list(2L, true, false)), rows(
        "SELECT id, NOT (id < 2), id < 2 FROM episodes WHERE id <= 2 ORDER BY id"));
  }

  @Test
  void inListsHoldingNullAreNullNotFalseInsideOrAndNot() {
    // id IN (1, 2, 3, NULL) is TRUE for 1..3 and NULL (not FALSE) for every other id.
    assertEquals(List.of(1L, 2L, 3L), column(rows(
        "SELECT id FROM episodes WHERE (id IN (1, 2, 3)) OR (id IN (1, 2, 3, NULL)) ORDER BY id")));
    assertEquals(List.of(5L, 7L), column(rows(
        "SELECT id FROM episodes WHERE id IN (7, NULL) OR robot IS NULL ORDER BY id")));
    assertEquals(List.of(list(0L)), rows(
        "SELECT count(*) FROM episodes WHERE NOT ((id IN (1, NULL)) OR (id IN (2)))"));
    assertEquals(List.of(list(7L)), rows(
        "SELECT count(*) FROM episodes WHERE (id IN (1, NULL)) IS NULL"));
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), column(rows(
        "SELECT id FROM episodes WHERE (robot IN ('bb8', NULL)) IS NULL AND id <= 7 ORDER BY id")));
  }

  @Test
  void selectStarReturnsEveryRowOfTheLatestVersionWithTheTableSchema() {
    PreparedQuery q = engine.prepare("SELECT * FROM demo.episodes");
    assertEquals(EPISODE_SCHEMA, q.schema());
    List<List<Object>> rows = rows(q);
    assertEquals(8, rows.size());
    assertEquals(list(1L, "r2d2", "pick", true, 12.5, dec("1.250"), ts("2024-01-01T10:00:00Z"),
        day("2024-01-01")), rows.get(0));
    assertEquals(list(4L, "c3po", "pick", null, null, null, ts("2024-01-02T10:00:00Z"),
        day("2024-01-02")), rows.get(3));
  }

  @Test
  void everyTypeRoundTripsThroughSelect() {
    PreparedQuery q = engine.prepare("SELECT i8, i16, i32, i64, f32, f64, b, s, d, ts, dm FROM demo.types");
    assertEquals(TYPES_SCHEMA, q.schema());
    List<List<Object>> rows = rows(q);
    assertEquals(list((byte) -8, (short) -16, -32, -64L, 1.5f, 2.25, true, "héllo", day("1999-12-31"),
        ts("2000-01-01T00:00:00.000001Z"), dec("12.34")), rows.get(0));
    assertEquals(list((byte) 127, (short) 32767, 2147483647, Long.MAX_VALUE, -0.5f, 1e300, false, "",
        day("2024-02-29"), ts("1969-12-31T23:59:59Z"), dec("-0.01")), rows.get(1));
    assertEquals(list(null, null, null, null, null, null, null, null, null, null, null), rows.get(2));
  }

  @Test
  void everyTypeSurvivesAFilterThatSelectsRows() {
    List<List<Object>> rows = rows("SELECT i8, f32, s, d, ts, dm FROM demo.types WHERE i64 < 0");
    assertEquals(List.of(list((byte) -8, 1.5f, "héllo", day("1999-12-31"),
        ts("2000-01-01T00:00:00.000001Z"), dec("12.34"))), rows);
  }

  @Test
  void namesAreCaseInsensitiveAndCatalogPrefixIsOptional() {
    assertEquals(8, rows("select ID from LAKE.Demo.EPISODES").size());
    assertEquals(8, rows("SELECT e.id FROM lake.demo.episodes e").size());
    assertEquals(8, rows("SELECT episodes.id FROM episodes").size());
  }

  @Test
  void expressionsAndAliasesNameTheOutput() {
    PreparedQuery q = engine.prepare("SELECT id AS ident, id * 2, robot FROM demo.episodes");
    assertEquals(List.of("ident", "expr$1", "robot"),
        q.schema().getFields().stream().map(Field::getName).toList());
    PreparedQuery agg = engine.prepare(
        "SELECT count(*), count(robot), count(DISTINCT robot), sum(duration_s), avg(reward) AS r FROM episodes");
    assertEquals(List.of("count(*)", "count(robot)", "count(distinct robot)", "sum(duration_s)", "r"),
        agg.schema().getFields().stream().map(Field::getName).toList());
  }

  @Test
  void selectWithoutFromEvaluatesOneRow() {
    PreparedQuery q = engine.prepare("SELECT 1, 'a' AS s, 2.50, 1e0, TRUE, NULL, DATE '2024-01-01', "
        + "TIMESTAMP '2024-01-01 12:00:00.5', CAST('7' AS BIGINT)");
    assertEquals(new ArrowType.Int(32, true), q.schema().getFields().get(0).getType());
    assertEquals(new ArrowType.Decimal(3, 2, 128), q.schema().getFields().get(2).getType());
    assertEquals(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), q.schema().getFields().get(3).getType());
    assertEquals(new ArrowType.Date(DateUnit.DAY), q.schema().getFields().get(6).getType());
    assertEquals(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), q.schema().getFields().get(7).getType());
    assertEquals(List.of(list(1, "a", dec("2.50"), 1.0, true, null, day("2024-01-01"),
        ts("2024-01-01T12:00:00.500Z"), 7L)), rows(q));
  }

  @Test
  void arithmeticFollowsTypePromotion() {
    // Decimal division keeps max(6, s1 + p2 + 1) decimals: 1.0 / 3 is DECIMAL(13,12).
    assertEquals(List.of(list(7, 1, 3L, 2.5, dec("3.5"), dec("0.333333333333"), -4)),
        rows("SELECT 1 + 2 * 3, 7 % 3, CAST(7 AS BIGINT) / 2, 5 / 2.0e0, 1.5 + 2, 1.0 / 3, -(4)"));
    assertEquals(List.of(list(25.0, dec("2.500"))),
        rows("SELECT duration_s * 2, reward * 2 FROM demo.episodes WHERE id = 1"));
  }

  @Test
  void filtersUseThreeValuedLogic() {
    // success is NULL for id 4: neither it nor its negation is TRUE.
    assertEquals(List.of(1L, 3L, 6L, 7L), column(rows("SELECT id FROM episodes WHERE success")));
    assertEquals(List.of(2L, 5L, 8L), column(rows("SELECT id FROM episodes WHERE NOT success")));
    assertEquals(List.of(4L), column(rows("SELECT id FROM episodes WHERE success IS NULL")));
    // NULL OR TRUE is TRUE; NULL AND FALSE is FALSE, so NOT(...) keeps it.
    assertEquals(List.of(1L, 3L, 4L, 6L, 7L, 8L),
        column(rows("SELECT id FROM episodes WHERE success OR task = 'pick'")));
    assertEquals(List.of(1L, 3L, 6L, 7L),
        column(rows("SELECT id FROM episodes WHERE success OR duration_s IS NULL AND id = 99")));
    assertEquals(List.of(2L, 5L, 8L),
        column(rows("SELECT id FROM episodes WHERE NOT (success AND duration_s > 0)")));
    assertEquals(List.of(2L, 4L, 5L, 8L),
        column(rows("SELECT id FROM episodes WHERE NOT (success AND id > 0) OR success IS NULL")));
    assertEquals(List.of(2L, 5L, 8L),
        column(rows("SELECT id FROM episodes WHERE success IS NOT NULL AND NOT success")));
  }

  @Test
  void comparisonsInBetweenLikeAndCase() {
    assertEquals(List.of(1L, 2L, 8L), column(rows("SELECT id FROM episodes WHERE robot = 'r2d2'")));
    assertEquals(List.of(1L, 2L, 3L, 4L, 6L, 7L, 8L),
        column(rows("SELECT id FROM episodes WHERE robot IN ('r2d2', 'c3po', 'bb8')")));
    // NOT IN with a NULL in the list is never TRUE.
    assertEquals(List.of(), column(rows("SELECT id FROM episodes WHERE robot NOT IN ('r2d2', NULL)")));
    assertEquals(List.of(3L, 4L, 6L, 7L),
        column(rows("SELECT id FROM episodes WHERE robot NOT IN ('r2d2')")));
    assertEquals(List.of(1L, 3L, 7L),
        column(rows("SELECT id FROM episodes WHERE duration_s BETWEEN 7.5 AND 12.5")));
    assertEquals(List.of(2L, 5L, 6L, 8L),
        column(rows("SELECT id FROM episodes WHERE duration_s NOT BETWEEN 7.5 AND 12.5")));
    assertEquals(List.of(1L, 2L, 3L, 4L, 8L),
        column(rows("SELECT id FROM episodes WHERE robot LIKE '%2%' OR robot LIKE 'c_po'")));
    assertEquals(List.of(5L, 6L, 7L),
        column(rows("SELECT id FROM episodes WHERE id >= 5 AND id <> 8")));
    assertEquals(List.of("ok", "slow", "ok", "unknown"),
        column(rows("SELECT CASE WHEN duration_s > 25 THEN 'slow' WHEN duration_s IS NULL THEN 'unknown' "
            + "ELSE 'ok' END FROM episodes WHERE id <= 4")));
    assertEquals(List.of("two", "other"),
        column(rows("SELECT CASE id WHEN 2 THEN 'two' ELSE 'other' END FROM episodes WHERE id IN (2, 3)")));
  }

  @Test
  void datesTimestampsAndDecimalsCompareWithLiterals() {
    assertEquals(List.of(3L, 4L), column(rows("SELECT id FROM episodes WHERE \"day\" = DATE '2024-01-02'")));
    assertEquals(List.of(3L, 4L), column(rows("SELECT id FROM episodes WHERE \"day\" = '2024-01-02'")));
    assertEquals(List.of(6L, 7L, 8L),
        column(rows("SELECT id FROM episodes WHERE started_at >= TIMESTAMP '2024-01-03 00:00:00'")));
    assertEquals(List.of(3L, 6L),
        column(rows("SELECT id FROM episodes WHERE reward > 1.5")));
    // The date widens to midnight UTC: only id 6 started exactly at midnight.
    assertEquals(List.of(1L, 2L, 3L, 4L, 7L, 8L),
        column(rows("SELECT id FROM episodes WHERE started_at > \"day\"")));
  }

  @Test
  void castsBetweenTypes() {
    assertEquals(List.of(list("12.5", 13L, dec("1.25"), "2024-01-01", day("2024-01-01"), 1, "1.250",
        "2024-01-01 10:00:00")),
        rows("SELECT CAST(duration_s AS VARCHAR), CAST(duration_s AS BIGINT), CAST(reward AS DECIMAL(5,2)), "
            + "CAST(\"day\" AS VARCHAR), CAST(started_at AS DATE), CAST(success AS INTEGER), "
            + "CAST(reward AS VARCHAR), CAST(started_at AS VARCHAR) FROM episodes WHERE id = 1"));
    assertEquals(List.of(list(true, 1.5f, dec("3"), ts("2024-05-06T07:08:09Z"))),
        rows("SELECT CAST('true' AS BOOLEAN), CAST('1.5' AS REAL), CAST(2.5 AS DECIMAL(3,0)), "
            + "CAST('2024-05-06 07:08:09' AS TIMESTAMP)"));
  }

  @Test
  void coalesceAndCaseAreLazy() {
    assertEquals(List.of(0L, 10L), column(rows(
        "SELECT CASE WHEN id = 1 THEN 0 ELSE 10 / (id - 1) END FROM episodes WHERE id IN (1, 2)")));
    assertEquals(List.of("r2d2", "none"), column(rows(
        "SELECT coalesce(robot, 'none') FROM episodes WHERE id IN (1, 5)")));
  }

  @Test
  void selectDistinctRemovesDuplicateRows() {
    assertEquals(list("bb8", "c3po", "r2d2", null),
        column(rows("SELECT DISTINCT robot FROM episodes ORDER BY robot")));
  }

  @Test
  void outputFieldNullabilityFollowsTheExpression() {
    Schema s = engine.prepare("SELECT id, id + 1, robot, count(*) FROM episodes GROUP BY id, robot").schema();
    assertEquals(List.of(false, false, true, false),
        s.getFields().stream().map(Field::isNullable).toList());
    assertTrue(engine.prepare("SELECT sum(id) FROM episodes").schema().getFields().get(0).isNullable());
  }
}
