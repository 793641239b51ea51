package dev.lake.exec.fn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The registry aggregates' states directly: accumulation, merging of partial states, error bounds. */
class AggregateStatesTest {
  private static final SqlType FLOAT64 = SqlType.of(SqlType.Kind.FLOAT64, true);
  private static final SqlType INT64 = SqlType.of(SqlType.Kind.INT64, true);

  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  private static AggregateSpec spec(AggregateFunction f, SqlType arg) {
    Binding b = Binding.of(List.of(arg));
    return new AggregateSpec(f, b, f.resultType(b), false, List.of());
  }

  private static Col.Doubles doubles(double... values) {
    Col.Doubles c = new Col.Doubles(values.length);
    System.arraycopy(values, 0, c.values, 0, values.length);
    return c;
  }

  private double varianceOf(GroupState state) {
    try (Float8Vector out = new Float8Vector("v", allocator)) {
      state.write(1, out);
      return out.get(0);
    }
  }

  @Test
  void varianceOfValuesFarFromZeroKeepsItsDigits() {
    // A sum of squares loses every digit here (1e18 + small); Welford's update does not.
    GroupState state = StatisticsAggregates.VAR_SAMP.newState(spec(StatisticsAggregates.VAR_SAMP, FLOAT64));
    state.add(new int[4], 4, new Col[] {doubles(1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16)}, 1);
    assertEquals(30.0, varianceOf(state), 1e-9);
  }

  @Test
  void mergedPartialMomentsEqualOneStateOverEveryRow() {
    AggregateSpec spec = spec(StatisticsAggregates.VAR_POP, FLOAT64);
    double[] values = {3.5, -2, 1e6, 7, 7, 0.25, -1e6 + 1, 42};
    GroupState whole = StatisticsAggregates.VAR_POP.newState(spec);
    whole.add(new int[values.length], values.length, new Col[] {doubles(values)}, 1);
    GroupState left = StatisticsAggregates.VAR_POP.newState(spec);
    GroupState right = StatisticsAggregates.VAR_POP.newState(spec);
    left.add(new int[3], 3, new Col[] {doubles(3.5, -2, 1e6)}, 1);
    // The right state's group 1 goes to group 0; its group 0 is skipped (-1).
    right.add(new int[] {1, 1, 1, 1, 1, 0}, 6, new Col[] {doubles(7, 7, 0.25, -1e6 + 1, 42, 99)}, 2);
    left.merge(right, new int[] {-1, 0}, 1);
    double expected = varianceOf(whole);
    assertEquals(expected, varianceOf(left), Math.abs(expected) * 1e-12);
  }

  private long estimate(GroupState state) {
    try (BigIntVector out = new BigIntVector("n", allocator)) {
      state.write(1, out);
      return out.get(0);
    }
  }

  private static Col.Longs longs(long from, int n) {
    Col.Longs c = new Col.Longs(n);
    for (int i = 0; i < n; i++) {
      c.values[i] = from + i;
    }
    return c;
  }

  @Test
  void approxCountDistinctIsExactBelowTheSparseLimitAndWithinItsErrorBoundAbove() {
    AggregateSpec spec = spec(ApproximateAggregates.APPROX_COUNT_DISTINCT, INT64);
    GroupState small = ApproximateAggregates.APPROX_COUNT_DISTINCT.newState(spec);
    small.add(new int[600], 600, new Col[] {longs(0, 600)}, 1);
    small.add(new int[600], 600, new Col[] {longs(300, 600)}, 1);
    assertEquals(900, estimate(small));
    small.add(new int[1], 1, new Col[] {longs(5_000, 1)}, 1);
    assertEquals(901, estimate(small));

    int n = 1_000_000;
    GroupState big = ApproximateAggregates.APPROX_COUNT_DISTINCT.newState(spec);
    for (int from = 0; from < n; from += 10_000) {
      big.add(new int[10_000], 10_000, new Col[] {longs(from, 10_000)}, 1);
      // Every value twice: duplicates never count.
      big.add(new int[10_000], 10_000, new Col[] {longs(from, 10_000)}, 1);
    }
    long e = estimate(big);
    double bound = 4 * ApproximateAggregates.STANDARD_ERROR * n;
    assertTrue(Math.abs(e - n) <= bound, "estimate " + e + " of " + n + " distinct, bound " + bound);
    assertTrue(big.heapBytes() >= ApproximateAggregates.REGISTERS, "registers are charged: " + big.heapBytes());
  }

  @Test
  void mergedSketchesEqualOneSketchOverEveryRow() {
    AggregateSpec spec = spec(ApproximateAggregates.APPROX_COUNT_DISTINCT, INT64);
    GroupState whole = ApproximateAggregates.APPROX_COUNT_DISTINCT.newState(spec);
    GroupState a = ApproximateAggregates.APPROX_COUNT_DISTINCT.newState(spec);
    GroupState b = ApproximateAggregates.APPROX_COUNT_DISTINCT.newState(spec);
    whole.add(new int[50_000], 50_000, new Col[] {longs(0, 50_000)}, 1);
    a.add(new int[30_000], 30_000, new Col[] {longs(0, 30_000)}, 1);
    b.add(new int[30_000], 30_000, new Col[] {longs(20_000, 30_000)}, 1);
    a.merge(b, new int[] {0}, 1);
    assertEquals(estimate(whole), estimate(a));
  }

  @Test
  void collectedRowsAreChargedAsTheyArrive() {
    AggregateSpec spec = spec(OrderedAggregates.MEDIAN, FLOAT64);
    GroupState state = OrderedAggregates.MEDIAN.newState(spec);
    long before = state.heapBytes();
    state.add(new int[1000], 1000, new Col[] {doubles(new double[1000])}, 1);
    assertTrue(state.heapBytes() - before >= 1000 * 16, "bytes " + state.heapBytes());
  }
}
