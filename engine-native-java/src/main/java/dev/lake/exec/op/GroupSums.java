package dev.lake.exec.op;

import dev.lake.exec.Simd;
import java.util.Arrays;

/**
 * Per-group sums of doubles (also used for counts, exact below 2^53). With few groups, one
 * group's additions from consecutive rows would each wait for the previous one to reach memory;
 * so while there are at most {@value #LANED_GROUPS} groups each group keeps {@value #LANES} partial
 * sums and row {@code i} adds to lane {@code i % LANES}, letting the processor overlap them. The
 * lanes are added together when read, in a fixed order, so a sum is the same on every run.
 * Beyond that many groups, the table is flat: additions to one group are rare and lanes would
 * only multiply its size. While there are at most {@value FewGroupSums#GROUPS} groups and SIMD is
 * enabled, whole batches go through {@link FewGroupSums} into sums of their own, added in when
 * read.
 */
final class GroupSums {
  private static final int LANES = 4;
  private static final int LANED_GROUPS = 1024;

  private double[] laned = new double[16 * LANES];
  private double[] flat;
  /** {@link FewGroupSums#LANES} partial sums a group for the batches that went through SIMD. */
  private double[] few;
  /** The group count of the batches being added, as last told by {@link #ensure}. */
  private int groups;

  void ensure(int groupCount) {
    groups = groupCount;
    if (flat == null && groupCount > LANED_GROUPS) {
      double[] folded = new double[Accumulator.grow(0, Math.max(groupCount, laned.length / LANES))];
      for (int g = 0; g < laned.length / LANES; g++) {
        folded[g] = get(g);
      }
      flat = folded;
      laned = null;
      few = null;
    } else if (flat == null && laned.length < groupCount * LANES) {
      laned = Arrays.copyOf(laned, Accumulator.grow(laned.length / LANES, groupCount) * LANES);
    } else if (flat != null && flat.length < groupCount) {
      flat = Arrays.copyOf(flat, Accumulator.grow(flat.length, groupCount));
    }
  }

  /** Adds {@code values[i]} to group {@code groups[i]} for every {@code i < count}. */
  void addAll(int[] groups, double[] values, int count) {
    if (fewGroups()) {
      FewGroupSums.addAll(groups, values, count, few);
    } else if (flat != null) {
      double[] s = flat;
      for (int i = 0; i < count; i++) {
        s[groups[i]] += values[i];
      }
    } else {
      double[] s = laned;
      for (int i = 0; i < count; i++) {
        s[groups[i] * LANES + (i & (LANES - 1))] += values[i];
      }
    }
  }

  /** Adds {@code a[i] * b[i]} to group {@code groups[i]} for every {@code i < count}. */
  void addProducts(int[] groups, double[] a, double[] b, int count) {
    if (fewGroups()) {
      FewGroupSums.addProducts(groups, a, b, count, few);
    } else if (flat != null) {
      double[] s = flat;
      for (int i = 0; i < count; i++) {
        s[groups[i]] += a[i] * b[i];
      }
    } else {
      double[] s = laned;
      for (int i = 0; i < count; i++) {
        s[groups[i] * LANES + (i & (LANES - 1))] += a[i] * b[i];
      }
    }
  }

  /** Adds {@code values[i]} to group {@code groups[i]} for every {@code i < count}. */
  void addAll(int[] groups, long[] values, int count) {
    if (flat != null) {
      double[] s = flat;
      for (int i = 0; i < count; i++) {
        s[groups[i]] += values[i];
      }
    } else {
      double[] s = laned;
      for (int i = 0; i < count; i++) {
        s[groups[i] * LANES + (i & (LANES - 1))] += values[i];
      }
    }
  }

  /** Adds one to group {@code groups[i]} for every {@code i < count}. */
  void countAll(int[] groups, int count) {
    if (fewGroups()) {
      FewGroupSums.countAll(groups, count, few);
    } else if (flat != null) {
      double[] s = flat;
      for (int i = 0; i < count; i++) {
        s[groups[i]]++;
      }
    } else {
      double[] s = laned;
      for (int i = 0; i < count; i++) {
        s[groups[i] * LANES + (i & (LANES - 1))]++;
      }
    }
  }

  void add(int group, double value) {
    if (flat != null) {
      flat[group] += value;
    } else {
      laned[group * LANES] += value;
    }
  }

  double get(int group) {
    if (flat != null) {
      return group < flat.length ? flat[group] : 0;
    }
    int at = group * LANES;
    if (at >= laned.length) {
      return 0;
    }
    double sum = laned[at];
    for (int lane = 1; lane < LANES; lane++) {
      sum += laned[at + lane];
    }
    if (few != null && group < FewGroupSums.GROUPS) {
      for (int lane = 0; lane < FewGroupSums.LANES; lane++) {
        sum += few[group * FewGroupSums.LANES + lane];
      }
    }
    return sum;
  }

  /**
   * Whether, with {@code groupCount} groups, {@link #addAll} and {@link #countAll} skip rows of
   * group -1: the SIMD path matches ids to groups, so an id of no group adds nowhere.
   */
  static boolean skipsUngrouped(int groupCount) {
    return Simd.ENABLED && groupCount <= FewGroupSums.GROUPS;
  }

  /** Whether the batch being added goes through {@link FewGroupSums}, making its sums on first use. */
  private boolean fewGroups() {
    if (flat != null || !skipsUngrouped(groups)) {
      return false;
    }
    if (few == null) {
      few = new double[FewGroupSums.GROUPS * FewGroupSums.LANES];
    }
    return true;
  }
}
