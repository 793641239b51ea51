package dev.lake.exec.fn;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Kernel;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import java.util.function.LongUnaryOperator;

/** Kernels for functions written as a rule for one row, and typed loops for the common shapes. */
public final class Rows {
  private Rows() {}

  /**
   * One row's result from its argument values ({@link Long} for integers, {@link Double},
   * {@link java.math.BigDecimal}, {@link String}, {@link Boolean}; null is NULL). Returns null for
   * NULL.
   */
  @FunctionalInterface
  public interface RowFunction {
    Object apply(Object[] args);
  }

  /** Evaluates the arguments, then the function row by row (strict: NULL in, NULL out). */
  static final class RowKernel implements Kernel {
    private final List<Kernel> args;
    private final SqlType result;
    private final boolean strict;
    private final RowFunction f;

    RowKernel(List<Kernel> args, SqlType result, boolean strict, RowFunction f) {
      this.args = List.copyOf(args);
      this.result = result;
      this.strict = strict;
      this.f = f;
    }

    @Override
    public Col eval(Batch batch) {
      int n = batch.count();
      Col[] in = new Col[args.size()];
      for (int k = 0; k < in.length; k++) {
        in[k] = args.get(k).eval(batch);
      }
      Col out = Col.allocate(result, n);
      Object[] row = new Object[in.length];
      boolean nulls = false;
      for (int i = 0; i < n; i++) {
        boolean anyNull = false;
        for (int k = 0; k < in.length; k++) {
          Object v = in[k].get(i);
          row[k] = v;
          anyNull |= v == null;
        }
        Object value = strict && anyNull ? null : f.apply(row);
        nulls |= value == null;
        set(out, i, value);
      }
      return nulls ? out : out.markNoNulls();
    }
  }

  /** Writes {@code value} (null: NULL) into row {@code i} of {@code out}. */
  static void set(Col out, int i, Object value) {
    switch (out) {
      case Col.Longs c -> {
        if (value == null) {
          c.nulls[i] = true;
        } else {
          c.values[i] = ((Number) value).longValue();
        }
      }
      case Col.Doubles c -> {
        if (value == null) {
          c.nulls[i] = true;
        } else {
          c.values[i] = ((Number) value).doubleValue();
        }
      }
      case Col.Bools c -> {
        if (value == null) {
          c.nulls[i] = true;
        } else {
          c.values[i] = (Boolean) value;
        }
      }
      case Col.Objects c -> c.values[i] = value;
    }
  }

  /** {@code f} over a DOUBLE argument, in one loop over primitives. */
  static Kernel doubles(Kernel arg, DoubleUnaryOperator f) {
    return batch -> {
      Col.Doubles in = (Col.Doubles) arg.eval(batch);
      Col.Doubles out = new Col.Doubles(in.size);
      if (in.noNulls()) {
        for (int i = 0; i < in.size; i++) {
          out.values[i] = f.applyAsDouble(in.values[i]);
        }
        return out.markNoNulls();
      }
      for (int i = 0; i < in.size; i++) {
        if (in.nulls[i]) {
          out.nulls[i] = true;
        } else {
          out.values[i] = f.applyAsDouble(in.values[i]);
        }
      }
      return out;
    };
  }

  /** {@code f} over an integer argument, in one loop over primitives. */
  static Kernel longs(Kernel arg, LongUnaryOperator f) {
    return batch -> {
      Col.Longs in = (Col.Longs) arg.eval(batch);
      Col.Longs out = new Col.Longs(in.size);
      if (in.noNulls()) {
        for (int i = 0; i < in.size; i++) {
          out.values[i] = f.applyAsLong(in.values[i]);
        }
        return out.markNoNulls();
      }
      for (int i = 0; i < in.size; i++) {
        if (in.nulls[i]) {
          out.nulls[i] = true;
        } else {
          out.values[i] = f.applyAsLong(in.values[i]);
        }
      }
      return out;
    };
  }
}
