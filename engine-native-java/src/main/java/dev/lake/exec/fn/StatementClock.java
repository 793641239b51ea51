package dev.lake.exec.fn;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Supplier;

/**
 * The time a statement execution reads with {@code now()}, {@code current_timestamp} and {@code
 * current_date}: one instant per execution, fixed while its plan is built, so every row (and every
 * parallel worker) sees the same value, and an execution of the same kept plan later sees a later
 * one. The planner turns the clock functions into constants while it holds the instant ({@link
 * #during}); a clock function compiled outside of that reads the system clock once per kernel.
 */
public final class StatementClock {
  private StatementClock() {}

  private static final ScopedValue<Long> MICROS = ScopedValue.newInstance();

  /** Runs {@code action} with the statement time {@code micros} (microseconds since the epoch, UTC). */
  public static <T> T during(long micros, Supplier<T> action) {
    return ScopedValue.where(MICROS, micros).call(action::get);
  }

  /** The system clock now, to the microsecond. */
  public static long systemMicros() {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
  }

  /** The statement time if one is bound here, else the system clock now. */
  static long micros() {
    return MICROS.isBound() ? MICROS.get() : systemMicros();
  }
}
