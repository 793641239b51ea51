package dev.lake.engine;

import java.util.OptionalLong;

/**
 * What a table version's metadata says about one column, for planning: how many NULLs, and the
 * smallest and largest non-null value when known. Bounds are {@link Long} for integers, dates
 * (days) and timestamps (microseconds), {@link Double} for floating point, otherwise absent.
 *
 * @param nullCount number of NULLs in the column
 * @param min a value no non-null value is below, or null when unknown
 * @param max a value no non-null value is above, or null when unknown
 */
public record ColumnStatistics(long nullCount, Object min, Object max) {

  public ColumnStatistics {
    if (nullCount < 0) {
      throw new IllegalArgumentException("negative null count: " + nullCount);
    }
    if ((min == null) != (max == null)) {
      throw new IllegalArgumentException("min and max are known together or not at all");
    }
  }

  /**
   * An upper bound on the number of distinct non-null values of an integer column: the size of
   * its value range. Empty when the column is not integral or its bounds are unknown.
   */
  public OptionalLong integralRange() {
    if (min instanceof Long lo && max instanceof Long hi && hi >= lo) {
      long size = hi - lo + 1;
      return size > 0 ? OptionalLong.of(size) : OptionalLong.empty();
    }
    return OptionalLong.empty();
  }
}
