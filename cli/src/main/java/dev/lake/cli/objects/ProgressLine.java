package dev.lake.cli.objects;

import dev.lake.sdk.UploadProgress;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Upload progress on standard error: bytes, rate and time left. On a terminal one line redrawn in
 * place (at most ten times a second); otherwise a plain line every {@value #PLAIN_INTERVAL_SECONDS}
 * seconds, and always the last one.
 */
final class ProgressLine implements UploadProgress {

  static final int PLAIN_INTERVAL_SECONDS = 5;

  private final PrintWriter err;
  private final String name;
  private final boolean terminal;
  private final LongSupplier nanoTime;
  private final long started;
  private long lastDrawn = Long.MIN_VALUE;
  private boolean finished;

  ProgressLine(PrintWriter err, String name, boolean terminal, LongSupplier nanoTime) {
    this.err = err;
    this.name = name;
    this.terminal = terminal;
    this.nanoTime = nanoTime;
    this.started = nanoTime.getAsLong();
  }

  @Override
  public void onProgress(long done, long total) {
    if (finished) {
      return;
    }
    long now = nanoTime.getAsLong();
    boolean last = done >= total;
    long interval = terminal ? 100_000_000L : PLAIN_INTERVAL_SECONDS * 1_000_000_000L;
    if (!last && lastDrawn != Long.MIN_VALUE && now - lastDrawn < interval) {
      return;
    }
    lastDrawn = now;
    finished = last;
    String line = line(done, total, now - started);
    if (terminal) {
      err.print("\r" + line + "\u001b[K" + (last ? "\n" : ""));
    } else {
      err.println(line);
    }
    err.flush();
  }

  /** {@code name: 12.0 MiB / 200.0 MiB (6%), 45.3 MiB/s, 0:04 left}. */
  String line(long done, long total, long elapsedNanos) {
    double seconds = elapsedNanos / 1e9;
    double rate = seconds > 0 ? done / seconds : 0;
    int percent = total == 0 ? 100 : (int) (done * 100 / total);
    String tail;
    if (done >= total) {
      tail = "done in " + duration(seconds);
    } else if (rate > 0) {
      tail = duration((total - done) / rate) + " left";
    } else {
      tail = "time left unknown";
    }
    return String.format(Locale.ROOT, "%s: %s / %s (%d%%), %s/s, %s", name, bytes(done),
        bytes(total), percent, bytes((long) rate), tail);
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = n;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  private static String duration(double seconds) {
    long s = Math.round(seconds);
    return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
        : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }
}
