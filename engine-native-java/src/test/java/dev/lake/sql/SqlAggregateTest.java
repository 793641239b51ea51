package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class SqlAggregateTest extends SqlFixture {

  @Test
  void globalAggregatesIgnoreNulls() {
    assertEquals(List.of(list(8L, 7L, 3L, 36L, 123.25, dec("7.625"), 40.0, 5.0, "bb8", "r2d2")),
        rows("SELECT count(*), count(robot), count(DISTINCT robot), sum(id), sum(duration_s), "
            + "sum(reward), max(duration_s), min(duration_s), min(robot), max(robot) FROM episodes"));
    assertEquals(List.of(list(4.5, 123.25 / 7, dec("1.089286"))),
        rows("SELECT avg(id), avg(duration_s), avg(reward) FROM episodes"));
  }

  @Test
  void aggregateResultTypes() {
    Schema s = engine.prepare("SELECT count(*), sum(id), sum(duration_s), sum(reward), avg(id), "
        + "avg(reward), min(\"day\"), max(started_at) FROM episodes").schema();
    assertEquals(new ArrowType.Int(64, true), s.getFields().get(0).getType());
    assertEquals(new ArrowType.Int(64, true), s.getFields().get(1).getType());
    assertEquals(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), s.getFields().get(2).getType());
    assertEquals(new ArrowType.Decimal(38, 3, 128), s.getFields().get(3).getType());
    assertEquals(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), s.getFields().get(4).getType());
    assertEquals(new ArrowType.Decimal(38, 6, 128), s.getFields().get(5).getType());
    assertEquals(EPISODE_SCHEMA.findField("day").getType(), s.getFields().get(6).getType());
    assertEquals(EPISODE_SCHEMA.findField("started_at").getType(), s.getFields().get(7).getType());
  }

  @Test
  void globalAggregateOverNoRowsReturnsOneRowOfNullsAndZeroCounts() {
    assertEquals(List.of(list(0L, 0L, 0L, null, null, null, null)),
        rows("SELECT count(*), count(robot), count(DISTINCT robot), sum(id), avg(duration_s), "
            + "min(robot), max(reward) FROM episodes WHERE id > 100"));
  }

  @Test
  void groupedAggregateOverNoRowsReturnsNoRows() {
    assertEquals(List.of(), rows("SELECT robot, count(*) FROM episodes WHERE id > 100 GROUP BY robot"));
  }

  @Test
  void groupByTreatsNullKeysAsOneGroup() {
    assertEquals(List.of(
            list("bb8", 2L, 12.5, 1L),
            list("c3po", 2L, 8.25, 1L),
            list("r2d2", 3L, 82.5, 2L),
            list(null, 1L, 20.0, 1L)),
        rows("SELECT robot, count(*), sum(duration_s), count(DISTINCT task) FROM episodes "
            + "GROUP BY robot ORDER BY robot"));
    assertEquals(List.of(
            list("bb8", null, 1L), list("bb8", "pick", 1L), list("c3po", "pick", 2L),
            list("r2d2", "pick", 2L), list("r2d2", "place", 1L), list(null, "place", 1L)),
        rows("SELECT robot, task, count(*) FROM episodes GROUP BY robot, task "
            + "ORDER BY robot, task NULLS FIRST"));
  }

  @Test
  void groupByThreeKeysOfMixedTypesComputedOrRead() {
    String values = "(VALUES ('x', CAST(0.0 AS DOUBLE), 1), ('x', CAST(-0.0 AS DOUBLE), 1), "
        + "('x', CAST(1.5 AS DOUBLE), 1), (CAST(NULL AS VARCHAR), CAST(1.5 AS DOUBLE), 2), "
        + "('x', CAST(1.5 AS DOUBLE), 1), ('yy', CAST(NULL AS DOUBLE), 2), "
        + "(CAST(NULL AS VARCHAR), CAST(1.5 AS DOUBLE), 2)) AS t(a, b, c)";
    List<List<Object>> expected = List.of(
        list("X", 0.0, 1, 2L), list("X", 1.5, 1, 2L), list("YY", null, 2, 1L), list(null, 1.5, 2, 2L));
    assertEquals(expected, rows("SELECT upper(a), b, c, count(*) FROM " + values
        + " GROUP BY upper(a), b, c ORDER BY 1 NULLS LAST, 2 NULLS FIRST"));
    assertEquals(expected, rows("SELECT upper(a), b, c, count(*) FROM " + values
        + " GROUP BY a, b, c ORDER BY 1 NULLS LAST, 2 NULLS FIRST"));
  }

  @Test
  void groupByExpressionsAliasesAndOrdinals() {
    List<List<Object>> expected = List.of(list(false, 3L), list(true, 5L));
    assertEquals(expected, rows("SELECT id > 3, count(*) FROM episodes GROUP BY id > 3 ORDER BY 1"));
    assertEquals(expected, rows("SELECT id > 3 AS late, count(*) FROM episodes GROUP BY late ORDER BY late"));
    assertEquals(expected, rows("SELECT id > 3, count(*) FROM episodes GROUP BY 1 ORDER BY 1"));
    assertEquals(List.of(list(2L, 3L), list(5L, 6L)),
        rows("SELECT (id - 1) / 3 * 3 + 2 AS bucket_mid, max(id) FROM episodes WHERE id <= 6 "
            + "GROUP BY (id - 1) / 3 ORDER BY bucket_mid"));
  }

  @Test
  void havingFiltersGroupsAndMayUseAggregatesNotSelected() {
    assertEquals(List.of(list("r2d2", 3L)),
        rows("SELECT robot, count(*) FROM episodes GROUP BY robot HAVING sum(duration_s) > 50"));
    assertEquals(List.of(list("bb8"), list("c3po")),
        rows("SELECT robot FROM episodes GROUP BY robot HAVING count(*) = 2 ORDER BY robot"));
  }

  @Test
  void aggregatesOfExpressionsAndExpressionsOfAggregates() {
    assertEquals(List.of(list(72L, 9L, 123.25 / 7)),
        rows("SELECT sum(id * 2), max(id) + 1, sum(duration_s) / count(duration_s) FROM episodes"));
    assertEquals(List.of(list(1L, 0L)),
        rows("SELECT count(CASE WHEN success THEN 1 END) - 2, count(DISTINCT \"day\") - 3 FROM episodes WHERE id <= 6"));
  }

  @Test
  void distinctAppliesToEveryAggregate() {
    assertEquals(List.of(list(2L, 6L, 2.0, 1L)),
        rows("SELECT count(DISTINCT task), sum(DISTINCT CAST(id / 4 AS BIGINT) + 1), "
            + "avg(DISTINCT CAST(id / 4 AS DOUBLE)) + 1, min(DISTINCT id) FROM episodes"));
  }

  @Test
  void booleanAndDateAggregates() {
    assertEquals(List.of(list(false, true, day("2024-01-01"), day("2024-01-04"))),
        rows("SELECT min(success), max(success), min(\"day\"), max(\"day\") FROM episodes"));
  }

  @Test
  void integerSumOverflowIsAnErrorNotAWrap() {
    SqlException e = fails("SELECT sum(CASE WHEN i64 > 0 THEN i64 ELSE 2 END) FROM demo.types");
    assertEquals(SqlException.Kind.EXECUTION, e.kind());
    assertTrue(e.getMessage().contains("out of range"), e.getMessage());
  }

  @Test
  void manyGroupsSpanSeveralOutputBatches() {
    InMemoryTable big = new InMemoryTable(
        new Schema(List.of(field("k", new ArrowType.Int(64, true), false))), 10_000);
    List<Object[]> data = new java.util.ArrayList<>();
    for (long i = 0; i < 150_000; i++) {
      data.add(row(i % 100_000));
    }
    big.appendRows(data);
    catalog.put(new TableName("demo", "big"), big);
    List<List<Object>> rows = rows("SELECT k, count(*) FROM demo.big GROUP BY k", Map.of());
    assertEquals(100_000, rows.size());
    assertEquals(150_000L, rows.stream().mapToLong(r -> (Long) r.get(1)).sum());
  }
}
