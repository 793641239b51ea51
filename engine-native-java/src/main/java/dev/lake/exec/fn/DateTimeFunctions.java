package dev.lake.exec.fn;

import static dev.lake.exec.fn.Param.BIGINT;
import static dev.lake.exec.fn.Param.DOUBLE;
import static dev.lake.exec.fn.Param.STRING;
import static dev.lake.exec.fn.Param.TIMESTAMP;

import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Kernel;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Date and time functions, PostgreSQL's semantics over lake's DATE (days) and TIMESTAMP
 * (microseconds, UTC): {@code date_part}/{@code EXTRACT}, {@code date_trunc}, {@code
 * to_timestamp}, {@code to_date}, {@code make_date}, {@code make_timestamp}, and the statement
 * clock ({@code now()}, {@code current_timestamp}, {@code localtimestamp}, {@code current_date}).
 * A DATE argument is read as the TIMESTAMP of its midnight. Fields are {@link DateTimeFields};
 * an unknown field, a value outside a function's range or text its format cannot read is an
 * error naming the function and the value.
 */
public final class DateTimeFunctions {
  private DateTimeFunctions() {}

  private static final SqlType.Kind INT64 = SqlType.Kind.INT64;
  private static final SqlType.Kind FLOAT64 = SqlType.Kind.FLOAT64;

  /**
   * {@code date_part(field, x)} (and {@code EXTRACT(field FROM x)}): BIGINT for whole fields,
   * DOUBLE for {@code second}, {@code milliseconds}, {@code epoch} and {@code julian} (which have
   * fractions) and for a field not written as a constant.
   */
  public static final ScalarFunction DATE_PART = Scalar.named("date_part")
      .takes(STRING, TIMESTAMP)
      .returns(args -> {
        DateTimeFields f = args.isConstant(0) && args.constant(0) instanceof String s ? DateTimeFields.lookup(s) : null;
        return SqlType.of(f != null && !DateTimeFields.FRACTIONAL.contains(f) ? INT64 : FLOAT64, true);
      })
      .kernel((args, b, t) -> fieldKernel("date_part", args, t, DateTimeFields.ALL, false));

  /** {@code date_trunc(field, x)}: the TIMESTAMP starting x's microsecond, ..., week (Monday), ..., millennium. */
  public static final ScalarFunction DATE_TRUNC = Scalar.named("date_trunc")
      .takes(STRING, TIMESTAMP)
      .returns(SqlType.Kind.TIMESTAMP)
      .kernel((args, b, t) -> fieldKernel("date_trunc", args, t, DateTimeFields.TRUNCATABLE, true));

  /**
   * {@code to_timestamp(seconds)}: the TIMESTAMP that many seconds (with fraction, rounded to the
   * microsecond) after 1970-01-01 UTC; {@code to_timestamp(text, format)}: text read by a
   * PostgreSQL format ({@link DateTimeFormat}).
   */
  public static final ScalarFunction TO_TIMESTAMP = Scalar.named("to_timestamp")
      .takes(DOUBLE)
      .takes(STRING, STRING)
      .returns(SqlType.Kind.TIMESTAMP)
      .kernel((args, b, t) -> b.size() == 1 ? fromEpochSeconds(args.getFirst()) : formatted("to_timestamp", args, t, false));

  /** {@code to_date(text, format)}: the DATE text holds, read by a PostgreSQL format; times of day are dropped. */
  public static final ScalarFunction TO_DATE = Scalar.named("to_date")
      .takes(STRING, STRING)
      .returns(SqlType.Kind.DATE)
      .kernel((args, b, t) -> formatted("to_date", args, t, true));

  /** {@code make_date(year, month, day)}; a negative year is BC (there is no year 0). */
  public static final ScalarFunction MAKE_DATE = Scalar.named("make_date")
      .takes(BIGINT, BIGINT, BIGINT)
      .returns(SqlType.Kind.DATE)
      .rows(a -> date("make_date", (Long) a[0], (Long) a[1], (Long) a[2]).toEpochDay());

  /** {@code make_timestamp(year, month, day, hour, minute, seconds)}, seconds with a fraction. */
  public static final ScalarFunction MAKE_TIMESTAMP = Scalar.named("make_timestamp")
      .takes(BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, DOUBLE)
      .returns(SqlType.Kind.TIMESTAMP)
      .rows(a -> {
        LocalDate d = date("make_timestamp", (Long) a[0], (Long) a[1], (Long) a[2]);
        long hour = (Long) a[3];
        long minute = (Long) a[4];
        double seconds = (Double) a[5];
        if (hour < 0 || hour > 24 || minute < 0 || minute > 59 || !(seconds >= 0 && seconds <= 60)
            || hour == 24 && (minute > 0 || seconds > 0)) {
          throw new ExecutionException("make_timestamp: time field value out of range: " + hour + ":" + minute + ":" + seconds);
        }
        long micros = Math.round(seconds * DateTimeFields.MICROS_PER_SECOND);
        return outOfRangeChecked("make_timestamp", () -> Math.addExact(
            Math.multiplyExact(d.toEpochDay(), DateTimeFields.MICROS_PER_DAY),
            (hour * 3600 + minute * 60) * DateTimeFields.MICROS_PER_SECOND + micros));
      });

  /**
   * {@code now()} (also written {@code current_timestamp} and {@code localtimestamp}): the
   * statement's time ({@link StatementClock}), UTC.
   */
  public static final ScalarFunction NOW = Scalar.named("now")
      .takes()
      .returns(SqlType.Kind.TIMESTAMP)
      .kernel((args, b, t) -> constant(StatementClock.micros()));

  /** {@code today()} (DuckDB's name; also written {@code current_date}): the date (UTC) of the statement's time. */
  public static final ScalarFunction CURRENT_DATE = Scalar.named("today")
      .takes()
      .returns(SqlType.Kind.DATE)
      .kernel((args, b, t) -> constant(Math.floorDiv(StatementClock.micros(), DateTimeFields.MICROS_PER_DAY)));

  /**
   * {@code x + INTERVAL 'n' MONTH} for a DATE or TIMESTAMP x and BIGINT n (months, negative to
   * go back), with PostgreSQL's end-of-month rule: a day past the end of the target month becomes
   * its last day (January 31 plus one month is February 28, or 29). Not callable by name; the
   * planner uses it for month and year intervals.
   */
  public static final ScalarFunction PLUS_MONTHS = Scalar.named("plus_months")
      .takes(Param.SAME, BIGINT)
      .returns(args -> args.type(0))
      .kernel((args, b, t) -> {
        boolean timestamp = b.type(0).kind() == SqlType.Kind.TIMESTAMP;
        Kernel base = args.get(0);
        Kernel months = args.get(1);
        return batch -> {
          Col.Longs x = (Col.Longs) base.eval(batch);
          Col.Longs n = (Col.Longs) months.eval(batch);
          Col.Longs out = new Col.Longs(x.size);
          boolean nulls = false;
          for (int i = 0; i < x.size; i++) {
            if (x.nulls[i] || n.nulls[i]) {
              out.nulls[i] = true;
              nulls = true;
            } else {
              out.values[i] = plusMonths(x.values[i], n.values[i], timestamp);
            }
          }
          return nulls ? out : out.markNoNulls();
        };
      });

  /** The clock functions: their value is the statement's, so a plan holding them is built per execution. */
  public static final Set<ScalarFunction> CLOCK = Set.of(NOW, CURRENT_DATE);

  public static final List<ScalarFunction> ALL = List.of(DATE_PART, DATE_TRUNC, TO_TIMESTAMP, TO_DATE,
      MAKE_DATE, MAKE_TIMESTAMP, NOW, CURRENT_DATE);

  /** {@code value} (days, or microseconds when {@code timestamp}) plus {@code months} months. */
  static long plusMonths(long value, long months, boolean timestamp) {
    try {
      if (!timestamp) {
        return LocalDate.ofEpochDay(value).plusMonths(months).toEpochDay();
      }
      long day = Math.floorDiv(value, DateTimeFields.MICROS_PER_DAY);
      long ofDay = Math.floorMod(value, DateTimeFields.MICROS_PER_DAY);
      long shifted = LocalDate.ofEpochDay(day).plusMonths(months).toEpochDay();
      return Math.addExact(Math.multiplyExact(shifted, DateTimeFields.MICROS_PER_DAY), ofDay);
    } catch (DateTimeException | ArithmeticException e) {
      throw new ExecutionException((timestamp ? "timestamp" : "date") + " out of range: " + months
          + " months from " + (timestamp ? formatTimestamp(value) : LocalDate.ofEpochDay(value).toString()));
    }
  }

  private static String formatTimestamp(long micros) {
    return java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(micros, DateTimeFields.MICROS_PER_SECOND),
        (int) Math.floorMod(micros, DateTimeFields.MICROS_PER_SECOND) * 1000, java.time.ZoneOffset.UTC).toString();
  }

  private static Kernel constant(long value) {
    return batch -> {
      Col.Longs out = new Col.Longs(batch.count());
      Arrays.fill(out.values, value);
      return out.markNoNulls();
    };
  }

  /**
   * date_part or date_trunc: the field is read per row, but parsed again only when it changes (it
   * is almost always a constant).
   */
  private static Kernel fieldKernel(String function, List<Kernel> args, SqlType result,
      Set<DateTimeFields> allowed, boolean truncate) {
    Kernel fieldArg = args.get(0);
    Kernel valueArg = args.get(1);
    boolean asDouble = result.kind() == FLOAT64;
    return batch -> {
      Col fields = fieldArg.eval(batch);
      Col.Longs in = (Col.Longs) valueArg.eval(batch);
      int n = in.size;
      Col out = Col.allocate(result, n);
      String last = null;
      DateTimeFields field = null;
      boolean nulls = false;
      for (int i = 0; i < n; i++) {
        Object f = fields.get(i);
        if (f == null || in.nulls[i]) {
          Rows.set(out, i, null);
          nulls = true;
          continue;
        }
        if (!f.equals(last)) {
          last = (String) f;
          field = DateTimeFields.parse(function, last, allowed);
        }
        long v = in.values[i];
        if (truncate) {
          ((Col.Longs) out).values[i] = field.truncate(v);
        } else if (asDouble) {
          ((Col.Doubles) out).values[i] = field.fraction(v);
        } else {
          ((Col.Longs) out).values[i] = field.part(v);
        }
      }
      return nulls ? out : out.markNoNulls();
    };
  }

  private static Kernel fromEpochSeconds(Kernel arg) {
    return batch -> {
      Col.Doubles in = (Col.Doubles) arg.eval(batch);
      Col.Longs out = new Col.Longs(in.size);
      for (int i = 0; i < in.size; i++) {
        if (in.nulls[i]) {
          out.nulls[i] = true;
          continue;
        }
        double micros = Math.rint(in.values[i] * DateTimeFields.MICROS_PER_SECOND);
        // Long.MAX_VALUE as a double rounds up to 2^63, so the bound is exclusive.
        if (!(micros > -0x1p63 && micros < 0x1p63)) {
          throw new ExecutionException("to_timestamp: " + in.values[i] + " seconds is out of the TIMESTAMP range");
        }
        out.values[i] = (long) micros;
      }
      return in.noNulls() ? out.markNoNulls() : out;
    };
  }

  /** to_timestamp(text, format) or to_date: the format compiled again only when it changes. */
  private static Kernel formatted(String function, List<Kernel> args, SqlType result, boolean date) {
    Kernel textArg = args.get(0);
    Kernel formatArg = args.get(1);
    return batch -> {
      Col text = textArg.eval(batch);
      Col formats = formatArg.eval(batch);
      Col.Longs out = new Col.Longs(text.size);
      DateTimeFormat format = null;
      boolean nulls = false;
      for (int i = 0; i < text.size; i++) {
        String s = (String) text.get(i);
        String f = (String) formats.get(i);
        if (s == null || f == null) {
          out.nulls[i] = true;
          nulls = true;
          continue;
        }
        if (format == null || !format.format().equals(f)) {
          format = DateTimeFormat.of(function, f);
        }
        DateTimeFormat reader = format;
        long micros = outOfRangeChecked(function, () -> reader.parse(s));
        out.values[i] = date ? Math.floorDiv(micros, DateTimeFields.MICROS_PER_DAY) : micros;
      }
      return nulls ? out : out.markNoNulls();
    };
  }

  private static LocalDate date(String function, long year, long month, long day) {
    try {
      if (year == 0) {
        throw new DateTimeException("year 0");
      }
      return LocalDate.of(Math.toIntExact(year < 0 ? year + 1 : year), Math.toIntExact(month), Math.toIntExact(day));
    } catch (DateTimeException | ArithmeticException e) {
      throw new ExecutionException(function + ": date field value out of range: " + year + "-" + month + "-" + day);
    }
  }

  private static long outOfRangeChecked(String function, java.util.function.LongSupplier f) {
    try {
      return f.getAsLong();
    } catch (ArithmeticException e) {
      throw new ExecutionException(function + ": timestamp out of range");
    }
  }
}
