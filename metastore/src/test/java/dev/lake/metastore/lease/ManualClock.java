package dev.lake.metastore.lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so; safe to share between threads. */
public final class ManualClock extends Clock {

  private final AtomicLong millis;

  public ManualClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  public void advance(Duration by) {
    millis.addAndGet(by.toMillis());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a manual clock is always UTC");
  }
}
