package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.RelFactories;
import org.junit.jupiter.api.Test;

/**
 * Many-way joins (SQLite's select5 has joins of up to 64 tables) are ordered in bounded work:
 * the ordering's steps are counted, so the bound does not depend on the machine's speed.
 */
class JoinOrderTest extends SqlFixture {

  /**
   * {@code n} tables {@code s.t1..tn (a_i, b_i, x_i)} of 10 rows (a = b = 1..10) and a query
   * joining all of them along a random spanning tree of equalities {@code a_i = b_j}, with the
   * tables and conditions in random order and one {@code a_k = 10}: exactly one row, every
   * {@code x_i} = 'table ti row 10'.
   */
  private static String manyWayJoin(InMemoryCatalog catalog, int n, long seed, List<Integer> selected) {
    for (int i = 1; i <= n; i++) {
      InMemoryTable t = new InMemoryTable(new Schema(List.of(
          field("a" + i, new ArrowType.Int(32, true), false),
          field("b" + i, new ArrowType.Int(32, true), true),
          field("x" + i, ArrowType.Utf8.INSTANCE, true))), 4);
      List<Object[]> rows = new ArrayList<>();
      for (int r = 1; r <= 10; r++) {
        rows.add(row(r, r, "table t" + i + " row " + r));
      }
      t.appendRows(rows);
      catalog.put(new TableName("s", "t" + i), t);
    }
    Random random = new Random(seed);
    List<Integer> tables = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      tables.add(i);
    }
    Collections.shuffle(tables, random);
    List<String> conditions = new ArrayList<>();
    for (int k = 1; k < n; k++) {
      int i = tables.get(k);
      int j = tables.get(random.nextInt(k));
      conditions.add(random.nextBoolean() ? "a" + i + " = b" + j : "b" + i + " = a" + j);
    }
    conditions.add("a" + tables.get(random.nextInt(n)) + " = 10");
    Collections.shuffle(conditions, random);
    Collections.shuffle(tables, random);
    selected.addAll(tables);
    return "SELECT " + String.join(", ", tables.stream().map(i -> "x" + i).toList())
        + " FROM " + String.join(", ", tables.stream().map(i -> "s.t" + i).toList())
        + " WHERE " + String.join(" AND ", conditions);
  }

  @Test
  void sixtyFourWayJoinIsOrderedInBoundedStepsWithEveryJoinOnAKey() {
    InMemoryCatalog many = new InMemoryCatalog();
    List<Integer> selected = new ArrayList<>();
    String sql = manyWayJoin(many, 64, 7, selected);
    RelPlanner.Planned planned = new RelPlanner(many, Map.of()).plan(SqlParsing.parse(sql));
    // Ordering the planned region again does the same work as ordering it the first time.
    long steps = JoinOrder.countSteps(planned.rel(),
        RelFactories.LOGICAL_BUILDER.create(planned.rel().getCluster(), null));
    // 64 greedy passes of 64 steps over 126 key ends: about 342,000 steps (the old ordering
    // re-ordered each of the 62 nested sub-regions as well, and took seconds).
    assertTrue(steps < 1_000_000, "steps: " + steps);
    assertTrue(steps <= JoinOrder.BUDGET, "steps: " + steps);
    List<Join> joins = new ArrayList<>();
    collectJoins(planned.rel(), joins);
    assertEquals(63, joins.size());
    for (Join join : joins) {
      assertFalse(join.getCondition().isAlwaysTrue(), "a cross product in the plan: " + join);
    }
    List<List<Object>> rows = rows(new SqlEngine(many).prepare(sql));
    assertEquals(1, rows.size());
    assertEquals(selected.stream().map(i -> (Object) ("table t" + i + " row 10")).toList(), rows.getFirst());
  }

  @Test
  void orderingBeyondItsBudgetStartsFromFewerRelationsAndStaysBounded() {
    InMemoryCatalog many = new InMemoryCatalog();
    List<Integer> selected = new ArrayList<>();
    String sql = manyWayJoin(many, 120, 11, selected);
    RelPlanner.Planned planned = new RelPlanner(many, Map.of()).plan(SqlParsing.parse(sql));
    long steps = JoinOrder.countSteps(planned.rel(),
        RelFactories.LOGICAL_BUILDER.create(planned.rel().getCluster(), null));
    // Every first relation would take 120 passes of about 120 * 359 steps (5.2 million).
    assertTrue(steps <= JoinOrder.BUDGET + 200_000, "steps: " + steps);
    List<List<Object>> rows = rows(new SqlEngine(many).prepare(sql));
    assertEquals(selected.stream().map(i -> (Object) ("table t" + i + " row 10")).toList(), rows.getFirst());
  }

  @Test
  void anInterruptedPlanningThreadStopsOrderingJoinsAsCancelled() {
    InMemoryCatalog many = new InMemoryCatalog();
    String sql = manyWayJoin(many, 20, 3, new ArrayList<>());
    RelPlanner.Planned planned = new RelPlanner(many, Map.of()).plan(SqlParsing.parse(sql));
    RelNode rel = planned.rel();
    Thread.currentThread().interrupt();
    try {
      SqlException e = assertThrows(SqlException.class,
          () -> JoinOrder.reorder(rel, RelFactories.LOGICAL_BUILDER.create(rel.getCluster(), null)));
      assertEquals(SqlException.Kind.CANCELLED, e.kind());
    } finally {
      Thread.interrupted();
    }
  }

  private static void collectJoins(RelNode rel, List<Join> joins) {
    if (rel instanceof Join join) {
      joins.add(join);
    }
    rel.getInputs().forEach(input -> collectJoins(input, joins));
  }
}
