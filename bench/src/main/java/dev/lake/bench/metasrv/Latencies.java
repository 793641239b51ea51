package dev.lake.bench.metasrv;

import java.util.Arrays;

/** Latencies of one measured cell, in nanoseconds; thread-safe. */
public final class Latencies {

  private long[] nanos = new long[1024];
  private int count;

  public synchronized void add(long value) {
    if (count == nanos.length) {
      nanos = Arrays.copyOf(nanos, count * 2);
    }
    nanos[count++] = value;
  }

  public synchronized int count() {
    return count;
  }

  /** The {@code p}-quantile (0..1) in milliseconds, nearest rank; NaN when empty. */
  public synchronized double millis(double p) {
    if (count == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(nanos, count);
    Arrays.sort(sorted);
    return sorted[Math.min(count - 1, Math.max(0, (int) Math.ceil(p * count) - 1))] / 1e6;
  }
}
