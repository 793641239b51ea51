package dev.lake.metastore.lease;

import java.time.Duration;
import java.util.Objects;

/**
 * Timing of a {@link LeaseElection}. A holder renews every {@code renewInterval}; a lease that is
 * not renewed runs out {@code ttl} after its last renewal; a holder stops acting
 * {@code driftMargin} before that, so clocks that disagree by less than the margin never let two
 * processes act as leader at once. A contender retries every {@code renewInterval}, so a dead
 * leader is replaced within {@code ttl + renewInterval} of its last renewal.
 */
public record LeaseSettings(Duration ttl, Duration renewInterval, Duration driftMargin) {

  /** 10 s lease, renewed every 2 s, 1 s drift margin. */
  public static final LeaseSettings DEFAULT =
      new LeaseSettings(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(1));

  public LeaseSettings {
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(renewInterval, "renewInterval");
    Objects.requireNonNull(driftMargin, "driftMargin");
    if (renewInterval.isNegative() || renewInterval.isZero() || driftMargin.isNegative()) {
      throw new IllegalArgumentException("renew interval must be positive and drift margin not"
          + " negative: " + this);
    }
    if (renewInterval.plus(driftMargin).compareTo(ttl) >= 0) {
      throw new IllegalArgumentException("renew interval + drift margin must be below the TTL,"
          + " or a healthy leader would lose its lease between renewals: " + this);
    }
  }
}
