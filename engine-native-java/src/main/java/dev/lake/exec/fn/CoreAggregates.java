package dev.lake.exec.fn;

import dev.lake.exec.SqlType;
import dev.lake.exec.fn.AggregateFunction.Kernel;
import dev.lake.exec.fn.AggregateFunction.Split;
import java.util.List;

/**
 * {@code count} (with {@code count(*)} and {@code count(DISTINCT x)}), {@code sum}, {@code avg},
 * {@code min} and {@code max}, PostgreSQL's: NULL arguments are ignored; {@code count} of no rows
 * is 0, every other of no value NULL. {@code sum} of integers is a BIGINT (an overflow is an
 * error), of floats a DOUBLE, of decimals a DECIMAL(38, s); {@code avg} of decimals is a
 * DECIMAL(38, max(s, 6)) rounded half up, of any other number a DOUBLE; {@code min} and {@code
 * max} are of their argument's type.
 *
 * <p>They run on the engine's typed kernels ({@link AggregateFunction#kernel()}), which update
 * primitive arrays a batch at a time and share counts and sums between calls; {@link
 * AggregateFunction#split()} says how their per-morsel partial results combine.
 */
public final class CoreAggregates {
  private CoreAggregates() {}

  public static final AggregateFunction COUNT = define("count", List.of(Signature.of(), Signature.of(Param.SAME)),
      b -> SqlType.of(SqlType.Kind.INT64, false), Kernel.COUNT, Split.COUNT);
  public static final AggregateFunction SUM = define("sum", List.of(Signature.of(Param.NUMBER)),
      CoreAggregates::sumType, Kernel.SUM, Split.SELF);
  public static final AggregateFunction AVG = define("avg", List.of(Signature.of(Param.NUMBER)), b -> {
    SqlType arg = b.type(0);
    return arg.kind() == SqlType.Kind.DECIMAL
        ? SqlType.decimal(SqlType.MAX_DECIMAL_PRECISION, Math.max(arg.scale(), 6), true)
        : SqlType.of(SqlType.Kind.FLOAT64, true);
  }, Kernel.AVG, Split.SUM_AND_COUNT);
  public static final AggregateFunction MIN = define("min", List.of(Signature.of(Param.SAME)),
      b -> b.type(0).withNullable(true), Kernel.MIN, Split.SELF);
  public static final AggregateFunction MAX = define("max", List.of(Signature.of(Param.SAME)),
      b -> b.type(0).withNullable(true), Kernel.MAX, Split.SELF);

  public static final List<AggregateFunction> ALL = List.of(COUNT, SUM, AVG, MIN, MAX);

  /** The type of {@code sum}: BIGINT of integers, DOUBLE of floats, DECIMAL(38, s) of decimals. */
  private static SqlType sumType(Binding b) {
    SqlType arg = b.type(0);
    return arg.isLongBacked() ? SqlType.of(SqlType.Kind.INT64, true)
        : arg.isFloat() ? SqlType.of(SqlType.Kind.FLOAT64, true)
        : SqlType.decimal(SqlType.MAX_DECIMAL_PRECISION, arg.scale(), true);
  }

  private static AggregateFunction define(String name, List<Signature> signatures,
      java.util.function.Function<Binding, SqlType> result, Kernel kernel, Split split) {
    return new Core(name, signatures, result, kernel, split);
  }

  /** A function of the engine's typed kernels. */
  private record Core(String name, List<Signature> signatures, java.util.function.Function<Binding, SqlType> result,
      Kernel kernel0, Split split0) implements AggregateFunction {

    @Override
    public List<String> aliases() {
      return List.of();
    }

    @Override
    public SqlType resultType(Binding args) {
      return result.apply(args);
    }

    @Override
    public Ordering ordering() {
      return Ordering.FORBIDDEN;
    }

    @Override
    public java.util.Optional<Kernel> kernel() {
      return java.util.Optional.of(kernel0);
    }

    @Override
    public Split split() {
      return split0;
    }

    /** Never called: the aggregation runs the typed kernel {@link #kernel()} names. */
    @Override
    public GroupState newState(AggregateSpec call) {
      throw new UnsupportedOperationException(name + " runs on the engine's typed kernel " + kernel0);
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
