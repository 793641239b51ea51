package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SharedAggregatesTest {
  private static final SqlType FLOAT64 = SqlType.of(SqlType.Kind.FLOAT64, true);
  private static final SqlType INT64 = SqlType.of(SqlType.Kind.INT64, true);
  private static final SqlType UTF8 = SqlType.of(SqlType.Kind.UTF8, true);

  /** The calls of a query like Q1 plus NULL-aware ones: slot 0 doubles, 1 integers, 2 strings. */
  private static final List<Expr.Agg> CALLS = List.of(
      agg(Expr.AggFn.SUM, 0, FLOAT64, FLOAT64),
      agg(Expr.AggFn.AVG, 0, FLOAT64, FLOAT64),
      agg(Expr.AggFn.COUNT, 0, FLOAT64, INT64),
      agg(Expr.AggFn.AVG, 1, INT64, FLOAT64),
      agg(Expr.AggFn.COUNT, 2, UTF8, INT64),
      new Expr.Agg(Expr.AggFn.COUNT, false, null, INT64));
  private static final int[] SLOTS = {0, 0, 0, 1, 2, -1};

  @Test
  void sharedSumsCountsAndAveragesEqualTheirOwnAccumulators() {
    Random random = new Random(17);
    SharedAggregates shared = new SharedAggregates();
    List<Accumulator> fused = new ArrayList<>();
    List<Accumulator> alone = new ArrayList<>();
    for (int a = 0; a < CALLS.size(); a++) {
      fused.add(shared.accumulator(CALLS.get(a), SLOTS[a]));
      alone.add(Accumulator.create(CALLS.get(a)));
    }
    int groupCount = 0;
    for (int b = 0; b < 30; b++) {
      groupCount = Math.min(3000, groupCount + random.nextInt(200));
      int n = random.nextInt(1500);
      boolean withNulls = b % 3 == 0;
      int[] groups = new int[n];
      Col.Doubles doubles = new Col.Doubles(n);
      Col.Longs longs = new Col.Longs(n);
      Col.Objects strings = new Col.Objects(n);
      for (int i = 0; i < n; i++) {
        groups[i] = random.nextInt(Math.max(1, groupCount));
        doubles.values[i] = random.nextDouble() * 1e6;
        doubles.nulls[i] = withNulls && random.nextInt(4) == 0;
        longs.values[i] = random.nextInt(100);
        longs.nulls[i] = withNulls && random.nextInt(4) == 0;
        strings.values[i] = withNulls && random.nextInt(4) == 0 ? null : "s" + i;
      }
      if (!withNulls) {
        doubles.markNoNulls();
        longs.markNoNulls();
        strings.markNoNulls();
      }
      Col[] args = {doubles, longs, strings};
      int groupsNow = Math.max(1, groupCount);
      shared.add(groups, n, args, groupsNow);
      for (int a = 0; a < CALLS.size(); a++) {
        alone.get(a).add(groups, n, SLOTS[a] < 0 ? null : args[SLOTS[a]], groupsNow);
      }
    }
    int groups = Math.max(1, groupCount);
    for (int a = 0; a < CALLS.size(); a++) {
      Col want = alone.get(a).result(groups);
      Col got = fused.get(a).result(groups);
      for (int g = 0; g < groups; g++) {
        if (CALLS.get(a).fn() == Expr.AggFn.SUM && want.get(g) instanceof Double w) {
          // SumDouble adds row by row once it has seen NULLs: the same sum, rounded otherwise.
          assertEquals(w, (Double) got.get(g), Math.abs(w) * 1e-12, CALLS.get(a) + " of group " + g);
        } else {
          assertEquals(want.get(g), got.get(g), CALLS.get(a) + " of group " + g);
        }
      }
    }
  }

  @Test
  void sumsOfProductsEqualSumsOfTheComputedProducts() {
    Random random = new Random(23);
    Expr product = new Expr.Call(Expr.Op.MUL, List.of(column(0, FLOAT64), column(1, FLOAT64)), FLOAT64);
    Expr.Agg sum = new Expr.Agg(Expr.AggFn.SUM, false, product, FLOAT64);
    Expr.Agg avg = new Expr.Agg(Expr.AggFn.AVG, false, product, FLOAT64);
    SharedAggregates shared = new SharedAggregates();
    Accumulator fusedSum = shared.accumulator(sum, 0, 1);
    Accumulator fusedAvg = shared.accumulator(avg, 0, 1);
    Accumulator aloneSum = Accumulator.create(sum);
    Accumulator aloneAvg = Accumulator.create(avg);
    int groupCount = 6;
    for (int b = 0; b < 12; b++) {
      int n = random.nextInt(700);
      boolean withNulls = b % 4 == 1;
      int[] groups = new int[n];
      Col.Doubles x = new Col.Doubles(n);
      Col.Doubles y = new Col.Doubles(n);
      Col.Doubles xy = new Col.Doubles(n);
      for (int i = 0; i < n; i++) {
        groups[i] = random.nextInt(b < 6 ? 3 : groupCount);
        x.values[i] = random.nextDouble() * 100;
        y.values[i] = 1 - random.nextDouble();
        x.nulls[i] = withNulls && random.nextInt(5) == 0;
        y.nulls[i] = withNulls && random.nextInt(5) == 0;
        xy.nulls[i] = x.nulls[i] || y.nulls[i];
        xy.values[i] = xy.nulls[i] ? 0 : x.values[i] * y.values[i];
      }
      if (!withNulls) {
        x.markNoNulls();
        y.markNoNulls();
        xy.markNoNulls();
      }
      int groupsNow = b < 6 ? 3 : groupCount;
      shared.add(groups, n, new Col[] {x, y}, groupsNow);
      aloneSum.add(groups, n, xy, groupsNow);
      aloneAvg.add(groups, n, xy, groupsNow);
    }
    for (int g = 0; g < groupCount; g++) {
      Double want = (Double) aloneSum.result(groupCount).get(g);
      assertEquals(want, (Double) fusedSum.result(groupCount).get(g), Math.abs(want) * 1e-12, "sum of group " + g);
      assertEquals(aloneAvg.result(groupCount).get(g), fusedAvg.result(groupCount).get(g), "avg of group " + g);
    }
    assertEquals(true, SharedAggregates.sumsProduct(sum));
    assertEquals(false, SharedAggregates.sumsProduct(new Expr.Agg(Expr.AggFn.SUM, false,
        new Expr.Call(Expr.Op.MUL, List.of(column(0, FLOAT64), new Expr.Literal(2.0, FLOAT64)), FLOAT64), FLOAT64)));
  }

  @Test
  void aGroupOfOnlyNullsSumsToNullAndCountsZero() {
    SharedAggregates shared = new SharedAggregates();
    Accumulator sum = shared.accumulator(CALLS.get(0), 0);
    Accumulator avg = shared.accumulator(CALLS.get(1), 0);
    Accumulator count = shared.accumulator(CALLS.get(2), 0);
    Accumulator rows = shared.accumulator(CALLS.get(5), -1);
    Col.Doubles values = new Col.Doubles(3);
    values.values[0] = 2.5;
    values.nulls[1] = true;
    values.nulls[2] = true;
    shared.add(new int[] {0, 1, 1}, 3, new Col[] {values}, 2);
    assertEquals(2.5, sum.result(2).get(0));
    assertNull(sum.result(2).get(1));
    assertNull(avg.result(2).get(1));
    assertEquals(0L, count.result(2).get(1));
    assertEquals(2L, rows.result(2).get(1));
  }

  @Test
  void noRowsCountZeroAndSumNull() {
    SharedAggregates shared = new SharedAggregates();
    Accumulator sum = shared.accumulator(CALLS.get(0), 0);
    Accumulator rows = shared.accumulator(CALLS.get(5), -1);
    shared.add(new int[0], 0, new Col[] {new Col.Doubles(0).markNoNulls()}, 1);
    assertNull(sum.result(1).get(0));
    assertEquals(0L, rows.result(1).get(0));
  }

  @Test
  void distinctMinMaxAndExactSumsKeepTheirOwnAccumulators() {
    SharedAggregates shared = new SharedAggregates();
    assertNull(shared.accumulator(new Expr.Agg(Expr.AggFn.SUM, true, column(0, FLOAT64), FLOAT64), 0));
    assertNull(shared.accumulator(agg(Expr.AggFn.MAX, 0, FLOAT64, FLOAT64), 0));
    assertNull(shared.accumulator(agg(Expr.AggFn.SUM, 0, INT64, INT64), 0));
  }

  private static Expr.Agg agg(Expr.AggFn fn, int slot, SqlType in, SqlType out) {
    return new Expr.Agg(fn, false, column(slot, in), out);
  }

  private static Expr column(int index, SqlType type) {
    return new Expr.Column(index, "c" + index, type);
  }
}
