package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The registry's aggregates and FILTER through the whole engine over the fixture's single table
 * (planned relationally, not by the single-table binder), and their refusals.
 */
class SqlRegistryAggregatesTest extends SqlFixture {

  private SqlException refused(String sql) {
    SqlException e = assertThrows(SqlException.class, () -> rows(sql));
    assertEquals(SqlException.Kind.INVALID, e.kind(), e.getMessage());
    return e;
  }

  @Test
  void singleTableQueriesWithRegistryAggregatesAndFilterRun() {
    assertEquals(List.of(
        list("bb8", true, "bb8:6,7", 6.25, 1L),
        list("c3po", true, "c3po:3,4", 8.25, 0L),
        list("r2d2", true, "r2d2:1,2,8", 30.0, 1L)), rows(
        "SELECT robot, bool_or(success), robot || ':' || string_agg(CAST(id AS VARCHAR), ',' ORDER BY id),"
            + " median(duration_s), count(*) FILTER (WHERE reward > 0.9 AND reward < 2)"
            + " FROM episodes WHERE robot IS NOT NULL GROUP BY robot ORDER BY robot"));
    assertEquals(List.of(list(3L, 23L)), rows(
        "SELECT count(DISTINCT robot) FILTER (WHERE success), sum(id) FILTER (WHERE task = 'pick')"
            + " FROM episodes"));
  }

  @Test
  void wrongArgumentTypesNameTheFunctionAndTheTypesItTakes() {
    String m = refused("SELECT stddev(robot) FROM episodes").getMessage();
    assertTrue(m.contains("stddev_samp") && m.contains("(VARCHAR)") && m.contains("stddev_samp(DOUBLE)"), m);
    m = refused("SELECT string_agg(id, ',') FROM episodes").getMessage();
    assertTrue(m.contains("string_agg(VARCHAR, VARCHAR)") && m.contains("BIGINT"), m);
    m = refused("SELECT bool_and(id) FROM episodes").getMessage();
    assertTrue(m.contains("bool_and(BOOLEAN)"), m);
    m = refused("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY robot) FROM episodes").getMessage();
    assertTrue(m.contains("percentile_cont(DOUBLE, DOUBLE)"), m);
  }

  @Test
  void aPercentileFractionOutsideZeroToOneIsRefusedWithTheValue() {
    String m = refused("SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY duration_s) FROM episodes").getMessage();
    assertTrue(m.contains("percentile_cont") && m.contains("1.5") && m.contains("[0, 1]"), m);
    m = refused("SELECT percentile_disc(-0.25) WITHIN GROUP (ORDER BY id) FROM episodes").getMessage();
    assertTrue(m.contains("percentile_disc") && m.contains("-0.25"), m);
    m = refused("SELECT percentile_disc(id) WITHIN GROUP (ORDER BY id) FROM episodes").getMessage();
    assertTrue(m.contains("constant fraction"), m);
  }

  @Test
  void orderingsAreRequiredOrRefusedAsTheFunctionSays() {
    refused("SELECT percentile_cont(0.5) FROM episodes");
    // The parser takes ORDER BY inside a call only for aggregates that may order their rows.
    SqlException e = assertThrows(SqlException.class, () -> rows("SELECT median(duration_s ORDER BY id) FROM episodes"));
    assertEquals(SqlException.Kind.SYNTAX, e.kind(), e.getMessage());
    refused("SELECT median(duration_s) WITHIN GROUP (ORDER BY id) FROM episodes");
    refused("SELECT count(*) FILTER (WHERE id) FROM episodes");
  }

  @Test
  void aMisspelledAggregateListsTheClosestNames() {
    SqlException e = assertThrows(SqlException.class, () -> rows("SELECT stdev_pop(duration_s) FROM episodes"));
    assertTrue(e.getMessage().contains("stddev_pop"), e.getMessage());
  }
}
