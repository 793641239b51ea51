package dev.lake.exec.fn;

import dev.lake.exec.ExecutionException;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.temporal.IsoFields;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The fields of a date or timestamp that {@code date_part}, {@code EXTRACT} and {@code date_trunc}
 * name, with PostgreSQL's spellings (singular, plural and the usual abbreviations, any case) and
 * its arithmetic: years before 1 AD count as PostgreSQL counts them (there is no year 0), weeks
 * and ISO years are ISO 8601's (weeks start on Monday; week 1 holds the year's first Thursday).
 * Timestamps are microseconds since 1970-01-01 00:00:00 UTC.
 */
enum DateTimeFields {
  MICROSECONDS("microseconds", "microsecond", "us", "usec", "usecs", "useconds"),
  MILLISECONDS("milliseconds", "millisecond", "ms", "msec", "msecs", "mseconds"),
  SECOND("second", "seconds", "s", "sec", "secs"),
  MINUTE("minute", "minutes", "m", "min", "mins"),
  HOUR("hour", "hours", "h", "hr", "hrs"),
  DAY("day", "days", "d"),
  WEEK("week", "weeks", "w"),
  MONTH("month", "months", "mon", "mons"),
  QUARTER("quarter", "quarters", "qtr"),
  YEAR("year", "years", "y", "yr", "yrs"),
  DECADE("decade", "decades", "dec"),
  CENTURY("century", "centuries", "c", "cent"),
  MILLENNIUM("millennium", "millennia", "millenniums", "mil", "mils"),
  DOW("dow"),
  ISODOW("isodow"),
  DOY("doy"),
  ISOYEAR("isoyear"),
  EPOCH("epoch"),
  JULIAN("julian");

  static final long MICROS_PER_SECOND = 1_000_000L;
  static final long MICROS_PER_DAY = 86_400L * MICROS_PER_SECOND;
  /** The Julian day number of 1970-01-01. */
  private static final long JULIAN_EPOCH_DAY = 2_440_588L;

  /** The fields {@code date_trunc} can truncate to. */
  static final Set<DateTimeFields> TRUNCATABLE = EnumSet.range(MICROSECONDS, MILLENNIUM);

  /** The fields whose {@code date_part} has a fractional part (a DOUBLE); the others are BIGINT. */
  static final Set<DateTimeFields> FRACTIONAL = EnumSet.of(MILLISECONDS, SECOND, EPOCH, JULIAN);

  private final List<String> spellings;

  DateTimeFields(String... spellings) {
    this.spellings = List.of(spellings);
  }

  /** The canonical spelling, as messages show it. */
  String spelling() {
    return spellings.getFirst();
  }

  /** The field {@code text} names (any case, surrounding blanks ignored), or null. */
  static DateTimeFields lookup(String text) {
    String wanted = text.trim().toLowerCase(Locale.ROOT);
    for (DateTimeFields f : values()) {
      if (f.spellings.contains(wanted)) {
        return f;
      }
    }
    return null;
  }

  /**
   * The field {@code text} names among {@code allowed}.
   *
   * @throws ExecutionException naming {@code function}, the text and the fields it takes, when
   *     {@code text} names no field or one {@code function} does not take
   */
  static DateTimeFields parse(String function, String text, Set<DateTimeFields> allowed) {
    DateTimeFields f = lookup(text);
    if (f == null || !allowed.contains(f)) {
      String valid = allowed.stream().map(DateTimeFields::spelling).sorted().collect(Collectors.joining(", "));
      throw new ExecutionException(function + ": " + (f == null ? "unknown field '" + text + "'"
          : "field '" + text + "' is not supported") + "; valid fields are " + valid);
    }
    return f;
  }

  static final Set<DateTimeFields> ALL = EnumSet.allOf(DateTimeFields.class);

  /** {@code date_part(this, micros)} as a long (fractional fields: truncated; use {@link #fraction}). */
  long part(long micros) {
    long day = Math.floorDiv(micros, MICROS_PER_DAY);
    long ofDay = Math.floorMod(micros, MICROS_PER_DAY);
    return switch (this) {
      case MICROSECONDS -> ofDay % (60 * MICROS_PER_SECOND);
      case MILLISECONDS -> ofDay % (60 * MICROS_PER_SECOND) / 1000;
      case SECOND -> ofDay / MICROS_PER_SECOND % 60;
      case MINUTE -> ofDay / (60 * MICROS_PER_SECOND) % 60;
      case HOUR -> ofDay / (3600 * MICROS_PER_SECOND);
      case EPOCH -> Math.floorDiv(micros, MICROS_PER_SECOND);
      case JULIAN -> day + JULIAN_EPOCH_DAY;
      default -> datePart(LocalDate.ofEpochDay(day));
    };
  }

  /** {@code date_part(this, micros)} with its fraction, for the {@link #FRACTIONAL} fields and all others. */
  double fraction(long micros) {
    long ofDay = Math.floorMod(micros, MICROS_PER_DAY);
    return switch (this) {
      case MILLISECONDS -> ofDay % (60 * MICROS_PER_SECOND) / 1000.0;
      case SECOND -> ofDay % (60 * MICROS_PER_SECOND) / (double) MICROS_PER_SECOND;
      case EPOCH -> micros / (double) MICROS_PER_SECOND;
      case JULIAN -> Math.floorDiv(micros, MICROS_PER_DAY) + JULIAN_EPOCH_DAY + ofDay / (double) MICROS_PER_DAY;
      default -> part(micros);
    };
  }

  private long datePart(LocalDate d) {
    int y = d.getYear(); // astronomical: 0 is 1 BC
    return switch (this) {
      case DAY -> d.getDayOfMonth();
      case WEEK -> d.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR);
      case MONTH -> d.getMonthValue();
      case QUARTER -> (d.getMonthValue() - 1) / 3 + 1;
      case YEAR -> y > 0 ? y : y - 1;
      case DECADE -> y >= 0 ? y / 10 : -((8 - (y - 1)) / 10);
      case CENTURY -> y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100);
      case MILLENNIUM -> y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000);
      case DOW -> d.getDayOfWeek().getValue() % 7;
      case ISODOW -> d.getDayOfWeek().getValue();
      case DOY -> d.getDayOfYear();
      case ISOYEAR -> {
        int iso = d.get(IsoFields.WEEK_BASED_YEAR);
        yield iso > 0 ? iso : iso - 1;
      }
      default -> throw new IllegalStateException(this + " is not a field of a date");
    };
  }

  /** {@code date_trunc(this, micros)}: the start of the field's unit holding {@code micros}. */
  long truncate(long micros) {
    long day = Math.floorDiv(micros, MICROS_PER_DAY);
    return switch (this) {
      case MICROSECONDS -> micros;
      case MILLISECONDS -> Math.floorDiv(micros, 1000L) * 1000L;
      case SECOND -> Math.floorDiv(micros, MICROS_PER_SECOND) * MICROS_PER_SECOND;
      case MINUTE -> Math.floorDiv(micros, 60 * MICROS_PER_SECOND) * 60 * MICROS_PER_SECOND;
      case HOUR -> Math.floorDiv(micros, 3600 * MICROS_PER_SECOND) * 3600 * MICROS_PER_SECOND;
      case DAY -> day * MICROS_PER_DAY;
      default -> startOf(LocalDate.ofEpochDay(day)).toEpochDay() * MICROS_PER_DAY;
    };
  }

  private LocalDate startOf(LocalDate d) {
    int y = d.getYear();
    return switch (this) {
      case WEEK -> d.minusDays(d.getDayOfWeek().getValue() - DayOfWeek.MONDAY.getValue());
      case MONTH -> d.withDayOfMonth(1);
      case QUARTER -> LocalDate.of(y, (d.getMonthValue() - 1) / 3 * 3 + 1, 1);
      case YEAR -> LocalDate.of(y, 1, 1);
      // PostgreSQL's: decades start in years ending in 0, centuries and millennia in years ending in 1.
      case DECADE -> LocalDate.of(y > 0 ? y / 10 * 10 : -((8 - (y - 1)) / 10) * 10, 1, 1);
      case CENTURY -> LocalDate.of(y > 0 ? (y + 99) / 100 * 100 - 99 : -((99 - (y - 1)) / 100) * 100 + 1, 1, 1);
      case MILLENNIUM -> LocalDate.of(y > 0 ? (y + 999) / 1000 * 1000 - 999 : -((999 - (y - 1)) / 1000) * 1000 + 1, 1, 1);
      default -> throw new IllegalStateException(this + " is not a unit of a date");
    };
  }

  @Override
  public String toString() {
    return spelling();
  }

  /** Every canonical spelling, for documentation and messages. */
  static String describeAll() {
    return Arrays.stream(values()).map(DateTimeFields::spelling).sorted().collect(Collectors.joining(", "));
  }
}
