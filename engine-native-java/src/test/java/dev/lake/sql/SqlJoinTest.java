package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.Version;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Joins, subqueries, set operations and WITH, planned relationally, over the fixture tables. */
class SqlJoinTest extends SqlFixture {

  @Test
  void innerJoinWithResidualConditionPairsMatchingRows() {
    assertEquals(List.of(list(1L, 2L), list(1L, 8L), list(2L, 8L), list(3L, 4L), list(6L, 7L)),
        rows("SELECT a.id, b.id FROM episodes a JOIN episodes b ON a.robot = b.robot AND a.id < b.id "
            + "ORDER BY 1, 2"));
  }

  @Test
  void leftAndRightJoinsKeepUnmatchedRowsWithNulls() {
    List<List<Object>> left = rows(
        "SELECT e.id, s.x FROM episodes e LEFT JOIN demo.shared s ON e.id = s.x WHERE e.id <= 3 ORDER BY e.id");
    assertEquals(List.of(list(1L, 1), list(2L, null), list(3L, null)), left);
    List<List<Object>> right = rows(
        "SELECT s.x, e.id FROM demo.shared s RIGHT JOIN episodes e ON e.id = s.x WHERE e.id <= 2 ORDER BY e.id");
    assertEquals(List.of(list(1, 1L), list(null, 2L)), right);
  }

  @Test
  void inAndExistsSubqueriesAreSemiAndAntiJoinsWithSqlNullSemantics() {
    assertEquals(List.of(1L, 2L, 8L), column(rows(
        "SELECT id FROM episodes WHERE robot IN (SELECT robot FROM episodes WHERE task = 'place') ORDER BY id")));
    assertEquals(List.of(), rows(
        "SELECT id FROM episodes WHERE robot NOT IN (SELECT robot FROM episodes WHERE task = 'place')"),
        "NOT IN over a set holding NULL is never true");
    assertEquals(List.of(4L, 5L, 7L, 8L), column(rows(
        "SELECT id FROM episodes e WHERE NOT EXISTS "
            + "(SELECT 1 FROM episodes f WHERE f.robot = e.robot AND f.id > e.id) ORDER BY id")));
    List<Object> plan = column(rows("EXPLAIN SELECT id FROM episodes e WHERE NOT EXISTS "
        + "(SELECT 1 FROM episodes f WHERE f.robot = e.robot AND f.id > e.id)"));
    assertTrue(plan.stream().anyMatch(l -> ((String) l).contains("HashJoin ANTI")), plan.toString());
    assertTrue(plan.stream().noneMatch(l -> ((String) l).contains("HashJoin LEFT")), plan.toString());
  }

  @Test
  void existsCorrelatedByEqualityIsOneSemiOrAntiJoinWithoutReevaluatingTheOuterQuery() {
    String exists = "SELECT id FROM episodes e WHERE %s (SELECT 1 FROM episodes f "
        + "WHERE f.robot = e.robot AND f.task = 'place') %s ORDER BY id";
    assertEquals(List.of(1L, 2L, 8L), column(rows(exists.formatted("EXISTS", ""))));
    assertEquals(List.of(3L, 4L, 5L, 6L, 7L), column(rows(exists.formatted("NOT EXISTS", ""))),
        "a NULL robot equals nothing, so nothing exists for it");
    assertEquals(List.of(4L, 5L), column(rows(exists.formatted("NOT EXISTS", "AND id IN (1, 4, 5)"))));
    assertEquals(List.of(1L, 2L, 3L, 8L), column(rows(
        exists.formatted("id = 3 OR EXISTS", ""))), "EXISTS under OR is not a join filter");
    String another = "SELECT id FROM episodes e WHERE EXISTS (SELECT 1 FROM episodes f "
        + "WHERE f.robot = e.robot AND f.id <> e.id) ORDER BY id";
    assertEquals(List.of(1L, 2L, 3L, 4L, 6L, 7L, 8L), column(rows(another)),
        "every robot but the NULL one has a second episode");
    assertTrue(column(rows("EXPLAIN " + another)).stream()
        .anyMatch(l -> ((String) l).contains("HashJoin SEMI keys=1 residual")), "hashed on the equality");
    for (String form : List.of("EXISTS", "NOT EXISTS")) {
      List<Object> plan = column(rows("EXPLAIN " + exists.formatted(form, "")));
      String join = form.equals("EXISTS") ? "HashJoin SEMI" : "HashJoin ANTI";
      assertEquals(1, plan.stream().filter(l -> ((String) l).contains(join)).count(), plan.toString());
      assertEquals(2, plan.stream().filter(l -> ((String) l).contains("Scan")).count(),
          "the outer table is read once, the subquery's once: " + plan);
    }
  }

  @Test
  void aSemiOrAntiJoinWhoseKeptSideIsFarSmallerBuildsTheKeptSideAndAnswersTheSame() {
    String query = "SELECT id, robot FROM episodes e WHERE e.id = %d AND %s (SELECT 1 FROM episodes f "
        + "WHERE f.robot = e.robot AND f.id <> e.id)";
    // Every robot but the NULL one (episode 5) has a second episode.
    for (long id = 1; id <= 8; id++) {
      boolean exists = id != 5;
      for (String form : List.of("EXISTS", "NOT EXISTS")) {
        List<List<Object>> answer = rows(query.formatted(id, form));
        assertEquals(exists == form.equals("EXISTS") ? 1 : 0, answer.size(), form + " for episode " + id);
        List<Object> plan = column(rows("EXPLAIN " + query.formatted(id, form)));
        String join = form.equals("EXISTS") ? "HashJoin SEMI (build left)" : "HashJoin ANTI (build left)";
        assertTrue(plan.stream().anyMatch(l -> ((String) l).contains(join)), plan.toString());
      }
    }
  }

  @Test
  void correlatedAggregateGroupsOnlyTheKeysTheFilteredOuterRowsCarry() {
    String query = "SELECT id FROM episodes e WHERE e.task = 'pick' AND e.duration_s %s "
        + "(SELECT avg(f.duration_s) FROM episodes f WHERE f.robot = e.robot) ORDER BY id";
    // averages: r2d2 27.5, c3po 8.25, bb8 6.25; the NULL robot has none
    assertEquals(List.of(7L, 8L), column(rows(query.formatted(">"))));
    assertEquals(List.of(3L, 7L, 8L), column(rows(query.formatted(">="))));
    List<Object> plan = column(rows("EXPLAIN " + query.formatted(">")));
    int aggregate = indexOf(plan, "HashAggregate");
    int semi = indexOf(plan, "HashJoin SEMI");
    assertTrue(aggregate >= 0 && semi > aggregate,
        "the subquery's rows are semi-joined with the filtered outer keys below its aggregate: " + plan);
  }

  private static int indexOf(List<Object> plan, String operator) {
    for (int i = 0; i < plan.size(); i++) {
      if (((String) plan.get(i)).contains(operator)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void notInOverAnEmptySubqueryIsTrueForEveryRowEvenANullKey() {
    // demo.nobody has no rows, so its scan has no units: the parallel aggregate that counts the
    // subquery's rows merges no partials at all.
    useEmptyTableAndParallelPlans();
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L), column(rows(
        "SELECT id FROM episodes WHERE robot NOT IN (SELECT robot FROM demo.nobody) ORDER BY id")));
    assertEquals(List.of(list(4L, "c3po"), list(5L, null)), rows(
        "SELECT id, robot FROM episodes WHERE NOT robot IN (SELECT robot FROM demo.nobody) "
            + "AND ((id IN (4, 5)) OR (id IN (5, NULL))) ORDER BY id"));
    assertEquals(List.of(list(1L, "r2d2"), list(2L, "r2d2"), list(3L, "c3po")), rows(
        "SELECT id, robot FROM episodes WHERE NOT robot IN (SELECT robot FROM demo.nobody) "
            + "AND ((id IN (1, 2, 3)) OR (id IN (1, 2, 3, NULL))) ORDER BY id"));
    List<Object> plan = column(rows(
        "EXPLAIN SELECT id FROM episodes WHERE robot NOT IN (SELECT robot FROM demo.nobody)"));
    assertTrue(plan.stream().anyMatch(l -> ((String) l).contains("ParallelHashAggregate")), plan.toString());
    assertTrue(plan.stream().anyMatch(l -> ((String) l).contains("demo.nobody version 0 columns=[robot] units=0")),
        plan.toString());
  }

  @Test
  void countOfATableWithNoScanUnitsIsZeroNotNull() {
    useEmptyTableAndParallelPlans();
    assertEquals(List.of(list(1L, 0L, 0L, null), list(2L, 0L, 0L, null)), rows(
        "SELECT id, (SELECT count(*) FROM demo.nobody), (SELECT count(robot) FROM demo.nobody), "
            + "(SELECT sum(x) FROM demo.nobody) FROM episodes WHERE id <= 2 ORDER BY id"));
    assertEquals(List.of(list(0L, 0L, null, null)), rows(
        "SELECT count(*), count(x), sum(x), avg(x) FROM (SELECT x FROM demo.nobody WHERE x > 0) n"));
  }

  /** Adds the empty table {@code demo.nobody (robot, x)} and plans with 4 workers on any machine. */
  private void useEmptyTableAndParallelPlans() {
    catalog.put(new TableName("demo", "nobody"), new InMemoryTable(new Schema(
        List.of(field("robot", ArrowType.Utf8.INSTANCE, true),
            field("x", new ArrowType.Int(32, true), true))), 3));
    engine = new SqlEngine(catalog, Long.MAX_VALUE, 4);
  }

  @Test
  void scalarSubqueriesCompareWithOneValueAndFailOnMoreThanOneRow() {
    assertEquals(List.of(2L, 5L, 8L), column(rows(
        "SELECT id FROM episodes WHERE duration_s > (SELECT avg(duration_s) FROM episodes) ORDER BY id")));
    assertEquals(List.of(list(1L, 3L), list(2L, 3L)), rows(
        "SELECT id, (SELECT count(*) FROM episodes f WHERE f.robot = e.robot) FROM episodes e "
            + "WHERE id <= 2 ORDER BY id"));
    SqlException e = assertThrows(SqlException.class,
        () -> rows("SELECT (SELECT id FROM episodes) FROM demo.shared"));
    assertEquals(SqlException.Kind.EXECUTION, e.kind());
    assertTrue(e.getMessage().contains("more than one row"), e.getMessage());
  }

  @Test
  void withUnionAndDerivedTablesCompose() {
    assertEquals(List.of("bb8", "c3po", "r2d2", "x"), column(rows(
        "WITH t AS (SELECT robot FROM episodes WHERE robot IS NOT NULL) "
            + "SELECT robot FROM t UNION SELECT 'x' ORDER BY 1")));
    assertEquals(List.of(list(3L)), rows(
        "SELECT count(*) FROM (SELECT x FROM demo.shared UNION ALL SELECT x FROM lab.shared "
            + "UNION ALL SELECT 7) AS u (x)"));
  }

  @Test
  void timeTravelAndPinsApplyToJoinedTables() {
    PreparedQuery q = engine.prepare(
        "SELECT count(*) FROM episodes FOR VERSION AS OF 1 a JOIN demo.shared s ON a.id = s.x");
    assertEquals(List.of(list(1L)), rows(q));
    assertEquals(Version.of(1), q.pins().get(EPISODES));
    PreparedQuery pinned = engine.prepare(
        "SELECT count(*) FROM episodes a JOIN demo.shared s ON a.id >= s.x",
        java.util.Map.of(EPISODES, Version.of(1)));
    assertEquals(List.of(list(6L)), rows(pinned));
    SqlException missing = assertThrows(SqlException.class, () -> engine.prepare(
        "SELECT count(*) FROM episodes FOR VERSION AS OF 9 a JOIN demo.shared s ON a.id = s.x"));
    assertEquals(SqlException.Kind.VERSION_NOT_FOUND, missing.kind());
  }

  @Test
  void divisionByZeroInAJoinFailsAtExecution() {
    PreparedQuery q = engine.prepare("SELECT e.id / (s.x - 1) FROM episodes e JOIN demo.shared s ON e.id = s.x");
    SqlException e = assertThrows(SqlException.class, () -> rows(q));
    assertEquals(SqlException.Kind.EXECUTION, e.kind());
    assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
  }
}
