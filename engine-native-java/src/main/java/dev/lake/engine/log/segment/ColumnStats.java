package dev.lake.engine.log.segment;

import java.util.Arrays;

/**
 * Statistics of one column in one block. {@code min} and {@code max} bound the non-null values
 * ({@code min <= every value <= max}) or are null when unknown (all values null, a NaN seen, a
 * kind without statistics). Values are normalised: {@link Long} for integers, dates and
 * timestamps, {@link Double} for floating point, {@link Boolean}, {@link java.math.BigDecimal}
 * and, for utf8, the UTF-8 bytes compared unsigned. {@code exact} is false when a bound was
 * truncated, so it bounds the values without being one of them.
 */
public record ColumnStats(long nullCount, Object min, Object max, boolean exact) {

  public ColumnStats {
    if (nullCount < 0) {
      throw new IllegalArgumentException("negative null count");
    }
  }

  /** Statistics that bound nothing: every block may match. */
  static ColumnStats unknown(long nullCount) {
    return new ColumnStats(nullCount, null, null, false);
  }

  boolean hasBounds() {
    return min != null && max != null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ColumnStats s
        && s.nullCount == nullCount
        && s.exact == exact
        && valueEquals(s.min, min)
        && valueEquals(s.max, max);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(nullCount);
  }

  private static boolean valueEquals(Object a, Object b) {
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.equals(x, y);
    }
    return java.util.Objects.equals(a, b);
  }
}
