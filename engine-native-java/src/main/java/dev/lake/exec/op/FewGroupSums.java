package dev.lake.exec.op;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * SIMD sums for at most {@value #GROUPS} groups: eight rows at a time, each group adds the rows
 * whose id is its own under a mask, so no row waits for another's store. Loaded only when
 * {@link dev.lake.exec.Simd#ENABLED}; {@link GroupSums} keeps the scalar path.
 */
final class FewGroupSums {
  static final int GROUPS = 4;
  private static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_512;
  private static final VectorSpecies<Integer> IDS = IntVector.SPECIES_256;
  /** Partial sums a group keeps: one per vector lane. */
  static final int LANES = 8;

  private FewGroupSums() {}

  /**
   * Adds {@code values[i]} to {@code sums[groups[i] * LANES ..]} for every {@code i < count};
   * every group id is below {@value #GROUPS}, and a row of group -1 is skipped.
   */
  static void addAll(int[] groups, double[] values, int count, double[] sums) {
    add(groups, values, null, count, sums);
  }

  /** Adds {@code values[i] * factors[i]} to {@code sums[groups[i] * LANES ..]} for every {@code i < count}. */
  static void addProducts(int[] groups, double[] values, double[] factors, int count, double[] sums) {
    add(groups, values, factors, count, sums);
  }

  /** Adds one to {@code sums[groups[i] * LANES ..]} for every {@code i < count}. */
  static void countAll(int[] groups, int count, double[] sums) {
    add(groups, null, null, count, sums);
  }

  /**
   * The loop of all three: {@code values} null adds ones, {@code factors} null multiplies by
   * nothing (both tests are hoisted out of the loop).
   */
  private static void add(int[] groups, double[] values, double[] factors, int count, double[] sums) {
    DoubleVector one = DoubleVector.broadcast(DOUBLES, 1.0);
    DoubleVector s0 = DoubleVector.fromArray(DOUBLES, sums, 0);
    DoubleVector s1 = DoubleVector.fromArray(DOUBLES, sums, LANES);
    DoubleVector s2 = DoubleVector.fromArray(DOUBLES, sums, 2 * LANES);
    DoubleVector s3 = DoubleVector.fromArray(DOUBLES, sums, 3 * LANES);
    int i = 0;
    for (; i <= count - LANES; i += LANES) {
      IntVector ids = IntVector.fromArray(IDS, groups, i);
      DoubleVector x = values == null ? one : DoubleVector.fromArray(DOUBLES, values, i);
      if (factors != null) {
        x = x.mul(DoubleVector.fromArray(DOUBLES, factors, i));
      }
      s0 = s0.add(x, ids.eq(0).cast(DOUBLES));
      s1 = s1.add(x, ids.eq(1).cast(DOUBLES));
      s2 = s2.add(x, ids.eq(2).cast(DOUBLES));
      s3 = s3.add(x, ids.eq(3).cast(DOUBLES));
    }
    s0.intoArray(sums, 0);
    s1.intoArray(sums, LANES);
    s2.intoArray(sums, 2 * LANES);
    s3.intoArray(sums, 3 * LANES);
    for (; i < count; i++) {
      if (groups[i] >= 0) {
        sums[groups[i] * LANES] += values == null ? 1 : factors == null ? values[i] : values[i] * factors[i];
      }
    }
  }
}
