package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * CAST between the supported types. Narrowing numeric casts that do not fit, and strings that
 * do not parse, are errors. Floats and decimals cast to integers round half away from zero.
 */
final class CastKernel implements Kernel {
  static final long MICROS_PER_DAY = 86_400_000_000L;

  private final Kernel arg;
  private final SqlType from;
  private final SqlType to;

  CastKernel(Kernel arg, SqlType from, SqlType to) {
    this.arg = arg;
    this.from = from;
    this.to = to;
  }

  @Override
  public Col eval(Batch batch) {
    Col in = arg.eval(batch);
    int n = in.size;
    Col out = Col.allocate(to, n);
    if (from.kind() == SqlType.Kind.NULL) {
      for (int i = 0; i < n; i++) {
        setNull(out, i);
      }
      return out;
    }
    // Same representation and no range or scale change: only the type label changes.
    if (from.isLongBacked() && to.isLongBacked() && from.kind() == to.kind()) {
      return in;
    }
    switch (in) {
      case Col.Longs c when to.isLongBacked() -> {
        Col.Longs o = (Col.Longs) out;
        for (int i = 0; i < n; i++) {
          o.nulls[i] = c.nulls[i];
          if (!c.nulls[i]) {
            o.values[i] = longToLong(c.values[i]);
          }
        }
      }
      case Col.Longs c when to.isFloat() -> {
        Col.Doubles o = (Col.Doubles) out;
        for (int i = 0; i < n; i++) {
          o.nulls[i] = c.nulls[i];
          o.values[i] = roundFloat(c.values[i]);
        }
      }
      case Col.Doubles c when to.isFloat() -> {
        Col.Doubles o = (Col.Doubles) out;
        for (int i = 0; i < n; i++) {
          o.nulls[i] = c.nulls[i];
          o.values[i] = roundFloat(c.values[i]);
        }
      }
      default -> {
        for (int i = 0; i < n; i++) {
          Object v = in.get(i);
          if (v == null) {
            setNull(out, i);
          } else {
            set(out, i, convert(v));
          }
        }
      }
    }
    return out;
  }

  /** One non-null value of type {@code from} cast to {@code to}. */
  static Object castValue(Object v, SqlType from, SqlType to) {
    return new CastKernel(null, from, to).convert(v);
  }

  private double roundFloat(double v) {
    return to.kind() == SqlType.Kind.FLOAT32 ? (double) (float) v : v;
  }

  private long longToLong(long v) {
    if (from.kind() == SqlType.Kind.DATE && to.kind() == SqlType.Kind.TIMESTAMP) {
      return Math.multiplyExact(v, MICROS_PER_DAY);
    }
    if (from.kind() == SqlType.Kind.TIMESTAMP && to.kind() == SqlType.Kind.DATE) {
      return Math.floorDiv(v, MICROS_PER_DAY);
    }
    if (!from.isInteger() || !to.isInteger()) {
      throw new ExecutionException("cannot cast " + from + " to " + to);
    }
    return checkRange(v);
  }

  private long checkRange(long v) {
    if (v < to.minValue() || v > to.maxValue()) {
      throw new ExecutionException("value " + v + " out of range for " + to);
    }
    return v;
  }

  private static void setNull(Col out, int i) {
    switch (out) {
      case Col.Longs o -> o.nulls[i] = true;
      case Col.Doubles o -> o.nulls[i] = true;
      case Col.Bools o -> o.nulls[i] = true;
      case Col.Objects o -> o.values[i] = null;
    }
  }

  private static void set(Col out, int i, Object v) {
    switch (out) {
      case Col.Longs o -> o.values[i] = (Long) v;
      case Col.Doubles o -> o.values[i] = (Double) v;
      case Col.Bools o -> o.values[i] = (Boolean) v;
      case Col.Objects o -> o.values[i] = v;
    }
  }

  /** Converts one non-null value of {@link #from}'s representation to {@link #to}'s. */
  private Object convert(Object v) {
    try {
      return switch (to.kind()) {
        case BOOL -> toBool(v);
        case INT8, INT16, INT32, INT64 -> checkRange(toLong(v));
        case FLOAT32, FLOAT64 -> roundFloat(toDouble(v));
        case DECIMAL -> toDecimal(v);
        case UTF8 -> toText(v);
        case DATE -> toDate(v);
        case TIMESTAMP -> toTimestamp(v);
        case NULL -> null;
        case LIST -> toList(v);
      };
    } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
      throw new ExecutionException("cannot cast '" + v + "' to " + to, e);
    }
  }

  private Boolean toBool(Object v) {
    return switch (v) {
      case Boolean b -> b;
      case Long l -> l != 0;
      case String s -> switch (s.trim().toLowerCase(Locale.ROOT)) {
        case "true", "t", "1", "yes" -> true;
        case "false", "f", "0", "no" -> false;
        default -> throw new NumberFormatException(s);
      };
      default -> throw new ExecutionException("cannot cast " + from + " to BOOLEAN");
    };
  }

  private long toLong(Object v) {
    return switch (v) {
      case Long l -> longToLong(l);
      case Boolean b -> b ? 1 : 0;
      case Double d -> {
        if (d.isNaN() || d.isInfinite() || Math.abs(d) >= 9.223372036854775807E18) {
          throw new ExecutionException("value " + d + " out of range for " + to);
        }
        yield Math.round(d);
      }
      case BigDecimal d -> d.setScale(0, RoundingMode.HALF_UP).longValueExact();
      case String s -> new BigDecimal(s.trim()).setScale(0, RoundingMode.HALF_UP).longValueExact();
      default -> throw new ExecutionException("cannot cast " + from + " to " + to);
    };
  }

  private double toDouble(Object v) {
    return switch (v) {
      case Long l -> l;
      case Double d -> d;
      case BigDecimal d -> d.doubleValue();
      case String s -> Double.parseDouble(s.trim());
      default -> throw new ExecutionException("cannot cast " + from + " to " + to);
    };
  }

  private BigDecimal toDecimal(Object v) {
    BigDecimal d = switch (v) {
      case Long l -> BigDecimal.valueOf(l);
      case Double x -> {
        if (x.isNaN() || x.isInfinite()) {
          throw new ExecutionException("value " + x + " out of range for " + to);
        }
        yield BigDecimal.valueOf(x);
      }
      case BigDecimal x -> x;
      case String s -> new BigDecimal(s.trim());
      default -> throw new ExecutionException("cannot cast " + from + " to " + to);
    };
    d = d.setScale(to.scale(), RoundingMode.HALF_UP);
    if (d.precision() - d.scale() > to.precision() - to.scale()) {
      throw new ExecutionException("value " + d.toPlainString() + " out of range for " + to);
    }
    return d;
  }

  private static final DateTimeFormatter TIMESTAMP_TEXT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSSSSS]", Locale.ROOT);

  /**
   * A list from its text ({@code [1, 2]} as DuckDB writes it, {@code {1,2}} as PostgreSQL does)
   * or from a list of another element type, each element cast to the target's element type.
   */
  private java.util.List<Object> toList(Object v) {
    java.util.List<?> items;
    SqlType itemType;
    switch (v) {
      case String s -> {
        items = ListText.parse(s);
        itemType = SqlType.of(SqlType.Kind.UTF8, true);
      }
      case java.util.List<?> l when from.kind() == SqlType.Kind.LIST -> {
        items = l;
        itemType = from.element();
      }
      default -> throw new ExecutionException("cannot cast " + from + " to " + to);
    }
    CastKernel element = new CastKernel(null, itemType, to.element());
    java.util.List<Object> out = new java.util.ArrayList<>(items.size());
    for (Object item : items) {
      out.add(item == null || itemType.kind() == to.element().kind() && itemType.kind() != SqlType.Kind.DECIMAL
          ? item : element.convert(item));
    }
    return out;
  }

  private String toText(Object v) {
    return switch (from.kind()) {
      case LIST -> ListText.format((java.util.List<?>) v, from.element());
      case DATE -> LocalDate.ofEpochDay((Long) v).toString();
      case TIMESTAMP -> formatTimestamp((Long) v);
      case DECIMAL -> ((BigDecimal) v).toPlainString();
      default -> v.toString();
    };
  }

  static String formatTimestamp(long micros) {
    LocalDateTime t = LocalDateTime.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), (int) Math.floorMod(micros, 1_000_000L) * 1000,
        ZoneOffset.UTC);
    return t.getNano() == 0
        ? t.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT))
        : t.format(TIMESTAMP_TEXT);
  }

  private long toDate(Object v) {
    return switch (v) {
      case Long l -> longToLong(l);
      case String s -> LocalDate.parse(s.trim()).toEpochDay();
      default -> throw new ExecutionException("cannot cast " + from + " to DATE");
    };
  }

  private long toTimestamp(Object v) {
    return switch (v) {
      case Long l -> longToLong(l);
      case String s -> parseTimestamp(s);
      default -> throw new ExecutionException("cannot cast " + from + " to TIMESTAMP");
    };
  }

  /**
   * Parses {@code 2024-01-01}, {@code 2024-01-01 12:00:00[.ffffff]} (also with {@code T}) as UTC,
   * or an ISO-8601 instant with an offset, into microseconds since the epoch.
   */
  static long parseTimestamp(String text) {
    String s = text.trim().replace(' ', 'T');
    Instant instant;
    if (s.length() == 10) {
      instant = LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant();
    } else if (s.endsWith("Z") || s.matches(".*[+-]\\d\\d:\\d\\d$")) {
      instant = OffsetDateTime.parse(s).toInstant();
    } else {
      instant = LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
    }
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }
}
