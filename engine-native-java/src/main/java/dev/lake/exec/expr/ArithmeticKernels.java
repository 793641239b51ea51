package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.List;

/**
 * {@code + - * / %} and unary minus. Integer results are checked against their type's range and
 * overflow is an error, never a wrap; division or modulo by zero is an error for every numeric
 * type (the SQL standard's "division by zero" exception), not NULL and not infinity.
 */
final class ArithmeticKernels {
  private ArithmeticKernels() {}

  static Kernel binary(Expr.Op op, Kernel left, Kernel right, SqlType type) {
    return binary(op, left, right, type, false);
  }

  /**
   * As {@link #binary(Expr.Op, Kernel, Kernel, SqlType)}; with {@code recycle}, a {@code double}
   * result is written into the arrays of the kernel's previous result when they are large
   * enough, for consumers that are done with one batch's values before they evaluate the next
   * (see {@link Kernel#compileShared(List, boolean)}).
   */
  static Kernel binary(Expr.Op op, Kernel left, Kernel right, SqlType type, boolean recycle) {
    if (type.isLongBacked()) {
      return batch -> longs(op, (Col.Longs) left.eval(batch), (Col.Longs) right.eval(batch), type);
    }
    if (type.isFloat()) {
      Results results = new Results(recycle);
      if (op == Expr.Op.ADD || op == Expr.Op.SUB || op == Expr.Op.MUL) {
        if (right instanceof LogicKernels.Constant c && c.value() instanceof Double y) {
          return batch -> doublesScalar(op, left, batch, y, false, results);
        }
        if (left instanceof LogicKernels.Constant c && c.value() instanceof Double x) {
          return batch -> doublesScalar(op, right, batch, x, true, results);
        }
        return batch -> {
          MemorySegment x = ColumnKernel.denseDoubles(left, batch);
          MemorySegment y = ColumnKernel.denseDoubles(right, batch);
          if (x == null && y == null) {
            return doubles(op, (Col.Doubles) left.eval(batch), (Col.Doubles) right.eval(batch), results);
          }
          // At least one side straight from its Arrow buffer; the other, if computed, no NULLs.
          Col.Doubles a = x == null ? (Col.Doubles) left.eval(batch) : null;
          Col.Doubles b = y == null ? (Col.Doubles) right.eval(batch) : null;
          if (a != null && !a.noNulls() || b != null && !b.noNulls()) {
            return doubles(op, a != null ? a : (Col.Doubles) left.eval(batch),
                b != null ? b : (Col.Doubles) right.eval(batch), results);
          }
          return doubles(op, x != null ? x : MemorySegment.ofArray(a.values),
              y != null ? y : MemorySegment.ofArray(b.values), batch.count(), results);
        };
      }
      return batch -> doubles(op, (Col.Doubles) left.eval(batch), (Col.Doubles) right.eval(batch), results);
    }
    return batch -> decimals(op, (Col.Objects) left.eval(batch), (Col.Objects) right.eval(batch), type);
  }

  /**
   * Where one kernel's {@code double} results go: fresh arrays each batch, or, when recycling,
   * the arrays of its previous result (its own, never an input's), with NULL flags cleared if
   * that result had any.
   */
  private static final class Results {
    private final boolean recycle;
    private Col.Doubles last;

    Results(boolean recycle) {
      this.recycle = recycle;
    }

    Col.Doubles doubles(int n) {
      if (!recycle) {
        return new Col.Doubles(n);
      }
      if (last == null || last.values.length < n) {
        last = new Col.Doubles(n);
        return last;
      }
      if (!last.noNulls()) {
        Arrays.fill(last.nulls, false);
      }
      last = new Col.Doubles(n, last.values, last.nulls);
      return last;
    }
  }

  static Kernel negate(Kernel arg, SqlType type) {
    return (Batch batch) -> switch (arg.eval(batch)) {
      case Col.Longs a -> {
        Col.Longs out = new Col.Longs(a.size);
        for (int i = 0; i < a.size; i++) {
          out.nulls[i] = a.nulls[i];
          if (!a.nulls[i]) {
            long v = a.values[i];
            if (v == Long.MIN_VALUE || -v < type.minValue() || -v > type.maxValue()) {
              throw new ExecutionException(type + " out of range: -(" + v + ")");
            }
            out.values[i] = -v;
          }
        }
        yield out;
      }
      case Col.Doubles a -> {
        Col.Doubles out = new Col.Doubles(a.size);
        for (int i = 0; i < a.size; i++) {
          out.nulls[i] = a.nulls[i];
          out.values[i] = -a.values[i];
        }
        yield out;
      }
      case Col.Objects a -> {
        Col.Objects out = new Col.Objects(a.size);
        for (int i = 0; i < a.size; i++) {
          if (a.values[i] != null) {
            out.values[i] = ((BigDecimal) a.values[i]).negate();
          }
        }
        yield out;
      }
      case Col.Bools a -> throw new IllegalStateException("negate of boolean");
    };
  }

  /** The error for {@code x op y} outside {@code type}: PostgreSQL's message, naming the operands. */
  private static ExecutionException outOfRange(SqlType type, Expr.Op op, Object x, Object y) {
    String symbol = switch (op) {
      case ADD -> "+";
      case SUB -> "-";
      case MUL -> "*";
      case DIV -> "/";
      case MOD -> "%";
      default -> op.name();
    };
    return new ExecutionException(type + " out of range: " + x + " " + symbol + " " + y);
  }

  private static Col longs(Expr.Op op, Col.Longs a, Col.Longs b, SqlType type) {
    int n = a.size;
    Col.Longs out = new Col.Longs(n);
    long min = type.minValue();
    long max = type.maxValue();
    for (int i = 0; i < n; i++) {
      if (a.nulls[i] || b.nulls[i]) {
        out.nulls[i] = true;
        continue;
      }
      long x = a.values[i];
      long y = b.values[i];
      long r;
      try {
        r = switch (op) {
          case ADD -> Math.addExact(x, y);
          case SUB -> Math.subtractExact(x, y);
          case MUL -> Math.multiplyExact(x, y);
          case DIV -> {
            if (y == 0) {
              throw new ExecutionException("division by zero");
            }
            yield Math.divideExact(x, y);
          }
          case MOD -> {
            if (y == 0) {
              throw new ExecutionException("division by zero");
            }
            yield x % y;
          }
          default -> throw new IllegalStateException(op.name());
        };
      } catch (ArithmeticException e) {
        throw outOfRange(type, op, x, y);
      }
      if (r < min || r > max) {
        throw outOfRange(type, op, x, y);
      }
      out.values[i] = r;
    }
    if (a.noNulls() && b.noNulls()) {
      out.markNoNulls();
    }
    return out;
  }

  /** {@code arg op c} (or {@code c op arg}), reading {@code arg}'s Arrow buffer when it is a dense column. */
  private static Col doublesScalar(Expr.Op op, Kernel arg, Batch batch, double c, boolean constantLeft,
      Results results) {
    MemorySegment x = ColumnKernel.denseDoubles(arg, batch);
    if (x == null) {
      return doublesScalar(op, (Col.Doubles) arg.eval(batch), c, constantLeft, results);
    }
    int n = batch.count();
    Col.Doubles out = results.doubles(n);
    SimdArithmetic.scalar(op, x, c, constantLeft, out.values, n);
    out.markNoNulls();
    return out;
  }

  /** {@code x op y} for + - * over rows without NULLs, each side a buffer or an array. */
  private static Col doubles(Expr.Op op, MemorySegment x, MemorySegment y, int n, Results results) {
    Col.Doubles out = results.doubles(n);
    SimdArithmetic.binary(op, x, y, out.values, n);
    out.markNoNulls();
    return out;
  }

  /**
   * {@code a op c} (or {@code c op a} when {@code constantLeft}) for + - *, which cannot fail: one
   * branch-free loop the JIT vectorises; NULL rows keep their flags.
   */
  private static Col doublesScalar(Expr.Op op, Col.Doubles a, double c, boolean constantLeft, Results results) {
    int n = a.size;
    Col.Doubles out = results.doubles(n);
    double[] x = a.values;
    double[] r = out.values;
    switch (op) {
      case ADD -> { for (int i = 0; i < n; i++) r[i] = x[i] + c; }
      case MUL -> { for (int i = 0; i < n; i++) r[i] = x[i] * c; }
      case SUB -> {
        if (constantLeft) {
          for (int i = 0; i < n; i++) r[i] = c - x[i];
        } else {
          for (int i = 0; i < n; i++) r[i] = x[i] - c;
        }
      }
      default -> throw new IllegalStateException(op.name());
    }
    if (a.noNulls()) {
      out.markNoNulls();
    } else {
      System.arraycopy(a.nulls, 0, out.nulls, 0, n);
    }
    return out;
  }

  private static Col doubles(Expr.Op op, Col.Doubles a, Col.Doubles b, Results results) {
    int n = a.size;
    if (a.noNulls() && b.noNulls() && (op == Expr.Op.ADD || op == Expr.Op.SUB || op == Expr.Op.MUL)) {
      Col.Doubles out = results.doubles(n);
      double[] x = a.values;
      double[] y = b.values;
      double[] r = out.values;
      switch (op) {
        case ADD -> { for (int i = 0; i < n; i++) r[i] = x[i] + y[i]; }
        case SUB -> { for (int i = 0; i < n; i++) r[i] = x[i] - y[i]; }
        default -> { for (int i = 0; i < n; i++) r[i] = x[i] * y[i]; }
      }
      out.markNoNulls();
      return out;
    }
    Col.Doubles out = results.doubles(n);
    for (int i = 0; i < n; i++) {
      if (a.nulls[i] || b.nulls[i]) {
        out.nulls[i] = true;
        continue;
      }
      double x = a.values[i];
      double y = b.values[i];
      out.values[i] = switch (op) {
        case ADD -> x + y;
        case SUB -> x - y;
        case MUL -> x * y;
        case DIV -> {
          if (y == 0) {
            throw new ExecutionException("division by zero");
          }
          yield x / y;
        }
        case MOD -> {
          if (y == 0) {
            throw new ExecutionException("division by zero");
          }
          yield x % y;
        }
        default -> throw new IllegalStateException(op.name());
      };
    }
    if (a.noNulls() && b.noNulls()) {
      out.markNoNulls();
    }
    return out;
  }

  private static Col decimals(Expr.Op op, Col.Objects a, Col.Objects b, SqlType type) {
    int n = a.size;
    Col.Objects out = new Col.Objects(n);
    for (int i = 0; i < n; i++) {
      if (a.values[i] == null || b.values[i] == null) {
        continue;
      }
      BigDecimal x = (BigDecimal) a.values[i];
      BigDecimal y = (BigDecimal) b.values[i];
      BigDecimal r = switch (op) {
        case ADD -> x.add(y);
        case SUB -> x.subtract(y);
        case MUL -> x.multiply(y);
        case DIV -> {
          if (y.signum() == 0) {
            throw new ExecutionException("division by zero");
          }
          yield x.divide(y, type.scale(), RoundingMode.HALF_UP);
        }
        case MOD -> {
          if (y.signum() == 0) {
            throw new ExecutionException("division by zero");
          }
          yield x.remainder(y);
        }
        default -> throw new IllegalStateException(op.name());
      };
      r = r.setScale(type.scale(), RoundingMode.HALF_UP);
      if (r.precision() - r.scale() > type.precision() - type.scale()) {
        throw outOfRange(type, op, x.toPlainString(), y.toPlainString());
      }
      out.values[i] = r;
    }
    return out;
  }
}
