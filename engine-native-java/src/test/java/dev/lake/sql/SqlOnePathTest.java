package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Single-table queries run through the one planner: parallel aggregates, names, errors. */
class SqlOnePathTest extends SqlFixture {

  private static final String AVERAGES = "SELECT robot, avg(reward), avg(duration_s), sum(reward), count(*),"
      + " min(reward), max(duration_s) FROM episodes GROUP BY robot ORDER BY robot";

  private List<String> plan(SqlEngine sql, String query) {
    return rows(sql.prepare("EXPLAIN " + query)).stream().map(r -> (String) r.getFirst()).toList();
  }

  @Test
  void aSingleTableAggregateRunsPartialPerMorselOnTheWorkers() {
    SqlEngine parallel = new SqlEngine(catalog, Long.MAX_VALUE, 2);
    List<String> lines = plan(parallel, AVERAGES);
    assertTrue(lines.stream().anyMatch(l -> l.contains("ParallelHashAggregate")), lines.toString());
    assertTrue(plan(parallel, "SELECT avg(reward) FROM episodes").stream()
        .anyMatch(l -> l.contains("ParallelHashAggregate")), "decimal avg splits too");
    SqlEngine serial = new SqlEngine(catalog, Long.MAX_VALUE, 1);
    assertTrue(plan(serial, AVERAGES).stream().noneMatch(l -> l.contains("ParallelHashAggregate")));
    // The decimal average of the split (sum and count per morsel) is the one-pass average exactly.
    assertEquals(rows(serial.prepare(AVERAGES)), rows(parallel.prepare(AVERAGES)));
    assertEquals(List.of(java.util.Arrays.asList("bb8", dec("2.062500"), 6.25, dec("4.125"), 2L, dec("1.000"), 7.5)),
        rows(parallel.prepare(AVERAGES)).subList(0, 1));
  }

  @Test
  void anAverageOverNoRowsIsNullAndACountZeroInBothPlans() {
    for (int threads : new int[] {1, 2}) {
      SqlEngine sql = new SqlEngine(catalog, Long.MAX_VALUE, threads);
      assertEquals(List.of(java.util.Arrays.asList(null, null, 0L)),
          rows(sql.prepare("SELECT avg(reward), avg(duration_s), count(*) FROM episodes WHERE id > 100")));
    }
  }

  @Test
  void aggregatesOfAPlainColumnAreNamedAfterIt() {
    assertEquals(List.of("robot", "avg(reward)", "avg(duration_s)", "sum(reward)", "count(*)", "min(reward)",
        "max(duration_s)"), engine.prepare(AVERAGES).schema().getFields().stream().map(f -> f.getName()).toList());
    assertEquals(List.of("expr$0", "m"),
        engine.prepare("SELECT max(id + 1), min(id) AS m FROM episodes").schema().getFields().stream()
            .map(f -> f.getName()).toList());
  }

  @Test
  void textAndNumbersDoNotMixImplicitly() {
    SqlException sum = assertThrows(SqlException.class, () -> engine.prepare("SELECT sum(robot) FROM episodes"));
    assertEquals(SqlException.Kind.INVALID, sum.kind());
    assertTrue(sum.getMessage().startsWith("sum cannot take VARCHAR"), sum.getMessage());
    SqlException plus = assertThrows(SqlException.class, () -> engine.prepare("SELECT robot + 1 FROM episodes"));
    assertEquals(SqlException.Kind.INVALID, plus.kind());
    assertEquals(List.of(List.of(2)), rows("SELECT '1' + 1"));
  }

  @Test
  void castsOfConstantsRoundAsCastsOfColumns() {
    assertEquals(List.of(List.of(dec("3"), dec("-3"), 3, dec("1.3"))),
        rows("SELECT CAST(2.5 AS DECIMAL(3,0)), CAST(-2.5 AS DECIMAL(3,0)), CAST(2.5 AS INTEGER),"
            + " CAST(1.25 AS DECIMAL(3,1))"));
    SqlException bad = assertThrows(SqlException.class, () -> engine.prepare("SELECT CAST('x' AS DATE)"));
    assertEquals(SqlException.Kind.INVALID, bad.kind());
    assertTrue(bad.getMessage().contains("cannot cast 'x' to DATE"), bad.getMessage());
  }

  @Test
  void integerModuloHasTheWiderOperandsType() {
    assertEquals(List.of(List.of(2L, 1, 1L)),
        rows("SELECT id % 3, CAST(7 AS INTEGER) % CAST(3 AS SMALLINT), 7 % CAST(3 AS BIGINT) FROM episodes WHERE id = 2"));
  }
}
