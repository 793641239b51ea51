package dev.lake.exec.fn;

import static dev.lake.exec.fn.Param.BIGINT;
import static dev.lake.exec.fn.Param.DOUBLE;
import static dev.lake.exec.fn.Param.NUMBER;

import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Kernel;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * Numeric functions, PostgreSQL's semantics: functions of a number keep its type (abs, sign,
 * ceil, floor, round, trunc); the others compute in DOUBLE. Integer results that do not fit
 * their type are errors ({@code abs(-2147483648)}), as are values outside a function's domain
 * ({@code sqrt(-1)}, {@code ln(0)}); NaN and infinities pass through.
 */
public final class MathFunctions {
  private MathFunctions() {}

  private static final SqlType.Kind FLOAT64 = SqlType.Kind.FLOAT64;

  /** {@code abs(x)}, of x's type; the smallest integer of a type has no absolute value in it. */
  public static final ScalarFunction ABS = Scalar.named("abs")
      .takes(NUMBER)
      .returns(args -> args.type(0))
      .kernel((args, b, t) -> {
        SqlType type = b.type(0);
        if (type.isInteger()) {
          long min = type.minValue();
          return Rows.longs(args.getFirst(), v -> {
            if (v == min) {
              throw outOfRange("abs(" + v + ")", type);
            }
            return Math.abs(v);
          });
        }
        if (type.isFloat()) {
          return Rows.doubles(args.getFirst(), Math::abs);
        }
        return new Rows.RowKernel(args, t, true, a -> ((BigDecimal) a[0]).abs());
      });

  /** {@code ceil(x)} (also {@code ceiling}): the smallest integral value not below x, of x's kind. */
  public static final ScalarFunction CEIL = integral("ceil", RoundingMode.CEILING, Math::ceil, "ceiling");

  /** {@code floor(x)}: the largest integral value not above x, of x's kind. */
  public static final ScalarFunction FLOOR = integral("floor", RoundingMode.FLOOR, Math::floor);

  /**
   * {@code round(x [, digits])}: to {@code digits} decimal places (0 by default; negative rounds
   * to tens, hundreds, ...), halves away from zero, of x's kind. A decimal rounded to a constant
   * number of places gets that scale.
   */
  public static final ScalarFunction ROUND = toPlaces("round", RoundingMode.HALF_UP);

  /** {@code trunc(x [, digits])} (also {@code truncate}): as {@code round}, toward zero. */
  public static final ScalarFunction TRUNC = toPlaces("trunc", RoundingMode.DOWN, "truncate");

  /** {@code sign(x)}: -1, 0 or 1, of x's type (a decimal as DECIMAL(1,0)). */
  public static final ScalarFunction SIGN = Scalar.named("sign")
      .takes(NUMBER)
      .returns(args -> args.type(0).kind() == SqlType.Kind.DECIMAL ? SqlType.decimal(1, 0, true) : args.type(0))
      .kernel((args, b, t) -> {
        SqlType type = b.type(0);
        if (type.isInteger()) {
          return Rows.longs(args.getFirst(), Long::signum);
        }
        if (type.isFloat()) {
          return Rows.doubles(args.getFirst(), Math::signum);
        }
        return new Rows.RowKernel(args, t, true, a -> BigDecimal.valueOf(((BigDecimal) a[0]).signum()));
      });

  /** {@code power(x, y)} (also {@code pow}): x to the y; 0 to a negative power and a negative x to a fractional one are errors. */
  public static final ScalarFunction POWER = Scalar.named("power", "pow")
      .takes(DOUBLE, DOUBLE)
      .returns(FLOAT64)
      .rows(a -> {
        double x = (Double) a[0];
        double y = (Double) a[1];
        if (x == 0 && y < 0) {
          throw new ExecutionException("power: zero raised to a negative power is undefined");
        }
        if (x < 0 && y != Math.rint(y) && Double.isFinite(y)) {
          throw new ExecutionException("power: a negative number raised to a non-integer power yields a complex result");
        }
        return finite(Math.pow(x, y), "power", x, y);
      });

  /** {@code sqrt(x)}; a negative x is an error. */
  public static final ScalarFunction SQRT = doubleFunction("sqrt", x -> {
    if (x < 0) {
      throw new ExecutionException("sqrt: cannot take the square root of a negative number (" + x + ")");
    }
    return Math.sqrt(x);
  });

  /** {@code exp(x)}: e to the x; a result too large for DOUBLE is an error. */
  public static final ScalarFunction EXP = doubleFunction("exp", x -> finite(Math.exp(x), "exp", x, 0));

  /** {@code ln(x)}: the natural logarithm; x must be positive. */
  public static final ScalarFunction LN = doubleFunction("ln", x -> Math.log(positive(x, "ln")));

  /** {@code log10(x)}; x must be positive. */
  public static final ScalarFunction LOG10 = doubleFunction("log10", x -> Math.log10(positive(x, "log10")));

  /** {@code log2(x)}; x must be positive. */
  public static final ScalarFunction LOG2 = doubleFunction("log2", x -> Math.log(positive(x, "log2")) / Math.log(2));

  /** {@code log(x)}: base 10, as in PostgreSQL; {@code log(b, x)}: base b. */
  public static final ScalarFunction LOG = Scalar.named("log")
      .takes(DOUBLE)
      .takes(DOUBLE, DOUBLE)
      .returns(FLOAT64)
      .rows(a -> {
        if (a.length == 1) {
          return Math.log10(positive((Double) a[0], "log"));
        }
        double base = positive((Double) a[0], "log");
        double x = positive((Double) a[1], "log");
        if (base == 1) {
          throw new ExecutionException("division by zero (log with base 1)");
        }
        return Math.log(x) / Math.log(base);
      });

  static final List<ScalarFunction> ALL = List.of(ABS, CEIL, FLOOR, ROUND, TRUNC, SIGN, POWER, SQRT,
      EXP, LN, LOG10, LOG2, LOG);

  // ---------------------------------------------------------------- helpers

  private static ExecutionException outOfRange(String what, SqlType type) {
    return new ExecutionException("integer out of range: " + what + " does not fit " + type);
  }

  private static double positive(double x, String function) {
    if (x == 0) {
      throw new ExecutionException(function + ": cannot take the logarithm of zero");
    }
    if (x < 0) {
      throw new ExecutionException(function + ": cannot take the logarithm of a negative number (" + x + ")");
    }
    return x;
  }

  /** {@code result}, unless finite arguments made it infinite (an overflow). */
  private static double finite(double result, String function, double x, double y) {
    if (Double.isInfinite(result) && Double.isFinite(x) && Double.isFinite(y)) {
      throw new ExecutionException(function + ": value out of range: overflow");
    }
    return result;
  }

  private static ScalarFunction doubleFunction(String name, DoubleUnaryOperator f) {
    return Scalar.named(name)
        .takes(DOUBLE)
        .returns(FLOAT64)
        .kernel((args, b, t) -> Rows.doubles(args.getFirst(), f));
  }

  /** The type of an integral decimal able to hold every integral value near those of {@code t}. */
  private static SqlType integralDecimal(SqlType t, int scale) {
    int precision = Math.min(SqlType.MAX_DECIMAL_PRECISION, Math.max(1, t.precision() - t.scale() + 1 + scale));
    return SqlType.decimal(Math.max(precision, scale), scale, true);
  }

  private static ScalarFunction integral(String name, RoundingMode mode, DoubleUnaryOperator onDouble,
      String... aliases) {
    return Scalar.named(name, aliases)
        .takes(NUMBER)
        .returns(args -> args.type(0).kind() == SqlType.Kind.DECIMAL ? integralDecimal(args.type(0), 0) : args.type(0))
        .kernel((args, b, t) -> {
          SqlType type = b.type(0);
          if (type.isInteger()) {
            return args.getFirst();
          }
          if (type.isFloat()) {
            return Rows.doubles(args.getFirst(), onDouble);
          }
          return new Rows.RowKernel(args, t, true, a -> ((BigDecimal) a[0]).setScale(0, mode));
        });
  }

  private static ScalarFunction toPlaces(String name, RoundingMode mode, String... aliases) {
    return Scalar.named(name, aliases)
        .takes(NUMBER)
        .takes(NUMBER, BIGINT)
        .returns(args -> {
          SqlType x = args.type(0);
          if (x.kind() != SqlType.Kind.DECIMAL) {
            return x;
          }
          if (args.size() == 1) {
            return integralDecimal(x, 0);
          }
          if (args.isConstant(1) && args.constant(1) instanceof Long places) {
            return integralDecimal(x, (int) Math.clamp(places, 0, x.scale()));
          }
          return x;
        })
        .kernel((args, b, t) -> {
          SqlType type = b.type(0);
          Kernel x = args.getFirst();
          if (args.size() == 1) {
            if (type.isInteger()) {
              return x;
            }
            if (type.isFloat()) {
              return Rows.doubles(x, v -> roundDouble(v, 0, mode));
            }
            return new Rows.RowKernel(args, t, true, a -> ((BigDecimal) a[0]).setScale(0, mode));
          }
          return new Rows.RowKernel(args, t, true, a -> {
            long places = (Long) a[1];
            if (type.isInteger()) {
              return roundLong((Long) a[0], places, mode, type, name);
            }
            if (type.isFloat()) {
              return roundDouble((Double) a[0], places, mode);
            }
            int p = (int) Math.clamp(places, -SqlType.MAX_DECIMAL_PRECISION - 1, SqlType.MAX_DECIMAL_PRECISION);
            return ((BigDecimal) a[0]).setScale(p, mode).setScale(t.scale(), RoundingMode.UNNECESSARY);
          });
        });
  }

  private static long roundLong(long v, long places, RoundingMode mode, SqlType type, String name) {
    if (places >= 0) {
      return v;
    }
    if (places < -19) {
      return 0;
    }
    BigDecimal rounded = BigDecimal.valueOf(v).setScale((int) places, mode);
    if (rounded.compareTo(BigDecimal.valueOf(type.minValue())) < 0
        || rounded.compareTo(BigDecimal.valueOf(type.maxValue())) > 0) {
      throw outOfRange(name + "(" + v + ", " + places + ")", type);
    }
    return rounded.longValue();
  }

  /**
   * {@code v} rounded to {@code places} decimal places of its shortest decimal spelling (so
   * {@code round(2.675, 2)} is 2.68, as a person writing 2.675 expects).
   */
  static double roundDouble(double v, long places, RoundingMode mode) {
    if (!Double.isFinite(v) || places > 330) {
      return v;
    }
    if (places == 0 && Math.abs(v) < 0x1p52) {
      double a = Math.abs(v);
      double f = Math.floor(a);
      double r = switch (mode) {
        case DOWN -> f;
        default -> a - f >= 0.5 ? f + 1 : f;
      };
      return Math.copySign(r, v);
    }
    if (places < -330) {
      return Math.copySign(0.0, v);
    }
    return BigDecimal.valueOf(v).setScale((int) places, mode).doubleValue();
  }
}
