package dev.lake.catalog;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link Catalog} places tables and keeps operation records.
 *
 * @param placement where created tables' files go
 * @param operationRetention how long a finished (committed or aborted) operation record is kept,
 *     so that a retry with the same operation id within it returns the original result; positive
 * @param clock the time of records and of their expiry
 */
public record CatalogSettings(Placement placement, Duration operationRetention, Clock clock) {

  /** Operation records are kept 7 days unless configured otherwise. */
  public static final Duration DEFAULT_OPERATION_RETENTION = Duration.ofDays(7);

  public CatalogSettings {
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(operationRetention, "operationRetention");
    Objects.requireNonNull(clock, "clock");
    if (operationRetention.isNegative() || operationRetention.isZero()) {
      throw new IllegalArgumentException("operationRetention must be positive, got " + operationRetention);
    }
  }

  /** Tables under the local {@code warehouse}, the default retention, the system clock. */
  public static CatalogSettings of(Path warehouse) {
    return of(Placement.local(warehouse));
  }

  public static CatalogSettings of(Placement placement) {
    return new CatalogSettings(placement, DEFAULT_OPERATION_RETENTION, Clock.systemUTC());
  }

  public CatalogSettings withOperationRetention(Duration retention) {
    return new CatalogSettings(placement, retention, clock);
  }

  public CatalogSettings withClock(Clock newClock) {
    return new CatalogSettings(placement, operationRetention, newClock);
  }
}
