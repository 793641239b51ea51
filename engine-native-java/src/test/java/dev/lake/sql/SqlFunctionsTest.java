package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Registry functions through the whole engine, over the fixture's in-memory tables. */
class SqlFunctionsTest extends SqlFixture {

  private SqlException prepareFails(String sql, SqlException.Kind kind) {
    SqlException e = assertThrows(SqlException.class, () -> engine.prepare(sql));
    assertEquals(kind, e.kind(), e.getMessage());
    return e;
  }

  @Test
  void stringFunctionsOverAColumnFollowNullsRowByRow() {
    assertEquals(List.of(
        list(1L, "R2D2", 4L, "r2d2!", "__r2d2", 2L),
        list(5L, null, null, null, null, null),
        list(6L, "BB8", 3L, "bb8!", "___bb8", 0L)), rows(
        "SELECT id, upper(robot), length(robot), robot || '!', lpad(robot, 6, '_'), strpos(robot, '2')"
            + " FROM episodes WHERE id IN (1, 5, 6) ORDER BY id"));
  }

  @Test
  void unicodeIsCountedInCharactersAndBytes() {
    assertEquals(List.of(list("héllo", 5L, 6L, "olléh", "HÉLLO", "hé", 2L)), rows(
        "SELECT s, char_length(s), octet_length(s), reverse(s), upper(s), left(s, 2), strpos(s, 'é')"
            + " FROM demo.types WHERE i8 = -8"));
    assertEquals(List.of(list(3L, "本", true)), rows("SELECT length('日本語'), substring('日本語', 2, 1),"
        + " '日本' || '語' = '日本語'"));
  }

  @Test
  void functionsWorkInWhereGroupByAndOrderBy() {
    assertEquals(List.of(list("B", 2L), list("C", 2L), list("R", 3L)), rows(
        "SELECT upper(left(robot, 1)) AS first_letter, count(*) FROM episodes WHERE robot IS NOT NULL"
            + " GROUP BY upper(left(robot, 1)) ORDER BY first_letter"));
    assertEquals(List.of(3L, 4L), column(rows(
        "SELECT id FROM episodes WHERE starts_with(robot, 'c') AND abs(id - 4) <= 1 ORDER BY id")));
    assertEquals(List.of(6L, 7L, 3L), column(rows(
        "SELECT id FROM episodes WHERE duration_s < 10 ORDER BY abs(duration_s - 6) LIMIT 3")));
  }

  @Test
  void mathKeepsItsArgumentsKind() {
    assertEquals(List.of(list(1L, dec("1"), dec("1.25"), 13.0, dec("1"), 3.0)), rows(
        "SELECT abs(id), round(reward), round(reward, 2), ceil(duration_s), sign(reward), floor(sqrt(duration_s))"
            + " FROM episodes WHERE id = 1"));
    assertEquals(List.of(list((byte) 8, (short) 16, dec("12.3"), 0)), rows(
        "SELECT abs(i8), abs(i16), trunc(dm, 1), greatest(i32, 0) FROM demo.types WHERE i8 = -8"));
  }

  @Test
  void aggregatesOfFunctionsRunOverEveryRow() {
    assertEquals(List.of(list(26L, 8L, dec("3.1"))), rows(
        "SELECT sum(length(coalesce(robot, ''))), count(concat(robot, task)), max(round(abs(reward), 1))"
            + " FROM episodes"));
  }

  @Test
  void integerOverflowInAFunctionFailsTheQuery() {
    SqlException e = assertThrows(SqlException.class,
        () -> rows("SELECT abs(-i32 - 1) FROM demo.types WHERE i8 = 127"));
    assertEquals(SqlException.Kind.EXECUTION, e.kind(), e.getMessage());
    assertTrue(e.getMessage().contains("out of range"), e.getMessage());
    SqlException sqrt = assertThrows(SqlException.class, () -> rows("SELECT sqrt(reward) FROM episodes"));
    assertEquals(SqlException.Kind.EXECUTION, sqrt.kind(), sqrt.getMessage());
    assertTrue(sqrt.getMessage().contains("square root of a negative number"), sqrt.getMessage());
  }

  @Test
  void divisionByZeroInsideAFunctionKeepsItsError() {
    SqlException e = assertThrows(SqlException.class, () -> rows("SELECT abs(id / (id - 1)) FROM episodes"));
    assertEquals(SqlException.Kind.EXECUTION, e.kind(), e.getMessage());
    assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
  }

  @Test
  void wrongArgumentTypesNameTheFunctionAndItsSignatures() {
    SqlException e = prepareFails("SELECT lpad(robot, task) FROM episodes", SqlException.Kind.INVALID);
    assertTrue(e.getMessage().startsWith("function lpad cannot take (VARCHAR, VARCHAR); it takes"
        + " lpad(VARCHAR, BIGINT), lpad(VARCHAR, BIGINT, VARCHAR)"), e.getMessage());
    assertEquals(1, e.line());
    assertEquals(8, e.column());
    SqlException count = prepareFails("SELECT abs(1, 2)", SqlException.Kind.INVALID);
    assertTrue(count.getMessage().contains("abs(NUMERIC)"), count.getMessage());
    SqlException type = prepareFails("SELECT sqrt(robot) FROM episodes", SqlException.Kind.INVALID);
    assertTrue(type.getMessage().contains("sqrt(DOUBLE)"), type.getMessage());
    prepareFails("SELECT greatest(id, robot) FROM episodes", SqlException.Kind.INVALID);
    prepareFails("SELECT upper(started_at) FROM episodes", SqlException.Kind.INVALID);
  }

  @Test
  void unknownFunctionListsTheClosestNames() {
    SqlException e = prepareFails("SELECT lenght(robot) FROM episodes", SqlException.Kind.INVALID);
    assertTrue(e.getMessage().startsWith("function lenght(VARCHAR) does not exist; did you mean length?"),
        e.getMessage());
    SqlException upr = prepareFails("SELECT uper(robot) FROM episodes", SqlException.Kind.INVALID);
    assertTrue(upr.getMessage().contains("did you mean upper"), upr.getMessage());
    SqlException none = prepareFails("SELECT frobnicate(1)", SqlException.Kind.INVALID);
    assertTrue(none.getMessage().startsWith("function frobnicate(INTEGER) does not exist"), none.getMessage());
    // A Calcite function the engine does not run is unknown too, not a failure at run time.
    SqlException sin = prepareFails("SELECT sin(duration_s) FROM episodes", SqlException.Kind.INVALID);
    assertTrue(sin.getMessage().contains("did you mean ") && sin.getMessage().contains("sign"), sin.getMessage());
  }

  @Test
  void specialSyntaxMeansTheRegistryFunction() {
    assertEquals(List.of(list("ab", "abxx", 3L, "el", 2.0, -1.0, true, false)), rows(
        "SELECT trim(BOTH 'x' FROM 'xxabxx'), trim(LEADING 'x' FROM 'xxabxx'), position('c' IN 'abc'),"
            + " substring('hello' FROM 2 FOR 2), ceil(1.5e0), floor(-0.5e0), 'Pick' ILIKE 'p%',"
            + " 'Pick' NOT ILIKE 'p%'"));
  }
}
