package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Window functions through the SQL front end; the fixture reads its tables in batches of 3 rows. */
class SqlWindowTest extends SqlFixture {

  @Test
  void singleTableWindowQueryIsPlannedAsAWindowOperator() {
    List<String> plan = column(rows("EXPLAIN SELECT id, rank() OVER (PARTITION BY robot ORDER BY id) FROM demo.episodes"))
        .stream().map(String::valueOf).toList();
    assertTrue(plan.stream().anyMatch(l -> l.trim().startsWith("Window partition {1} order [0]")), plan.toString());
  }

  @Test
  void runningSumOverSeveralBatchesMatchesTheRowsInOrder() {
    assertEquals(List.of(List.of(1L, 1L), List.of(2L, 3L), List.of(3L, 6L), List.of(4L, 10L), List.of(5L, 15L),
        List.of(6L, 21L), List.of(7L, 28L), List.of(8L, 36L)),
        rows("SELECT id, sum(id) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) FROM demo.episodes ORDER BY id"));
  }

  @Test
  void windowOverAJoinAndOverAGroupedDerivedTable() {
    assertEquals(List.of(List.of(1L, 1L), List.of(2L, 2L), List.of(3L, 3L)),
        rows("SELECT a.id, row_number() OVER (ORDER BY b.id) FROM demo.episodes a JOIN demo.episodes b"
            + " ON a.id = b.id WHERE a.id <= 3 ORDER BY a.id"));
    assertEquals(List.of(List.of(8L, 1L)),
        rows("SELECT n, dense_rank() OVER (ORDER BY n) FROM (SELECT count(*) AS n FROM demo.episodes) AS t"));
  }

  @Test
  void parameterAsLagOffsetIsBoundPerExecution() {
    PreparedQuery q = engine.prepare("SELECT id, lag(id, CAST(? AS INTEGER)) OVER (ORDER BY id) FROM demo.episodes WHERE id <= 3 ORDER BY id",
        Map.of(), List.of(2));
    assertEquals(List.of(java.util.Arrays.asList(1L, null), java.util.Arrays.asList(2L, null), List.of(3L, 1L)), rows(q));
  }

  @Test
  void frameThatEndsBeforeItStartsIsInvalidNamingTheFrame() {
    SqlException e = fails("SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM demo.episodes");
    assertEquals(SqlException.Kind.INVALID, e.kind());
    assertEquals("window frame ROWS BETWEEN CURRENT ROW AND 1 PRECEDING: frame starting from current row cannot"
        + " have preceding rows (line 1, column 47)", e.getMessage());
  }

  @Test
  void windowBeyondTheQueryBudgetIsResourceExhausted() {
    SqlEngine small = new SqlEngine(catalog, 2048);
    SqlException e = org.junit.jupiter.api.Assertions.assertThrows(SqlException.class,
        () -> rows(small.prepare("SELECT id, row_number() OVER (ORDER BY robot, id) FROM demo.episodes")));
    assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED, e.kind(), e.getMessage());
  }
}
