package dev.lake.exec.op;

import java.util.Objects;

/**
 * The frame of a window: which rows of its partition, around the current one, an aggregate or a
 * value function (first_value, last_value, nth_value) sees. {@code ROWS} counts rows; {@code
 * RANGE} measures the distance of the single order key's value (or, for CURRENT ROW, takes the
 * current row's peers: the rows with equal order keys).
 *
 * @param rows ROWS (true) or RANGE (false)
 */
public record WindowFrame(boolean rows, Bound lower, Bound upper) {

  /** What a frame bound is relative to. */
  public enum Type { UNBOUNDED_PRECEDING, PRECEDING, CURRENT_ROW, FOLLOWING, UNBOUNDED_FOLLOWING }

  /**
   * One end of the frame.
   *
   * @param offset for PRECEDING and FOLLOWING: a row count ({@code Long}) in ROWS mode; in RANGE
   *     mode the distance in the order key's representation: {@code Long} (integers, days of a
   *     date, microseconds of a timestamp), {@code Double}, {@code BigDecimal}, {@link Months} or
   *     {@link DateMicros};
   *     null for the other types. Never negative.
   */
  public record Bound(Type type, Object offset) {
    public Bound {
      Objects.requireNonNull(type, "type");
      if ((type == Type.PRECEDING || type == Type.FOLLOWING) != (offset != null)) {
        throw new IllegalArgumentException(type + " bound with offset " + offset);
      }
    }

    public static Bound of(Type type) {
      return new Bound(type, null);
    }

    @Override
    public String toString() {
      return switch (type) {
        case UNBOUNDED_PRECEDING -> "UNBOUNDED PRECEDING";
        case PRECEDING -> offset + " PRECEDING";
        case CURRENT_ROW -> "CURRENT ROW";
        case FOLLOWING -> offset + " FOLLOWING";
        case UNBOUNDED_FOLLOWING -> "UNBOUNDED FOLLOWING";
      };
    }
  }

  /**
   * A year-month interval: calendar months added to a date or timestamp key.
   *
   * @param days whether the key is a DATE (days since the epoch) rather than a TIMESTAMP
   */
  public record Months(long months, boolean days) {
    @Override
    public String toString() {
      return "INTERVAL '" + months + "' MONTH";
    }
  }

  /**
   * A day-time interval that is not whole days on a DATE key: the key is compared as the
   * timestamp of its midnight, as PostgreSQL does.
   */
  public record DateMicros(long micros) {
    @Override
    public String toString() {
      return "INTERVAL '" + micros + "' MICROSECOND";
    }
  }

  /** The frame PostgreSQL uses by default with an ORDER BY: the partition up to the current row's last peer. */
  public static final WindowFrame DEFAULT = new WindowFrame(false, Bound.of(Type.UNBOUNDED_PRECEDING),
      Bound.of(Type.CURRENT_ROW));

  @Override
  public String toString() {
    return (rows ? "ROWS" : "RANGE") + " BETWEEN " + lower + " AND " + upper;
  }
}
