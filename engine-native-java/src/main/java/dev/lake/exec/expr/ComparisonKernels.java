package dev.lake.exec.expr;

import dev.lake.exec.Col;

/** {@code = <> < <= > >=} over two operands of one representation; NULL in, unknown out. */
final class ComparisonKernels {
  private ComparisonKernels() {}

  static Kernel compare(Expr.Op op, Kernel left, Kernel right) {
    if (right instanceof LogicKernels.Constant c && c.value() instanceof Long v) {
      return batch -> longScalar(op, (Col.Longs) left.eval(batch), v);
    }
    if (right instanceof LogicKernels.Constant c && c.value() instanceof Double v) {
      return batch -> doubleScalar(op, (Col.Doubles) left.eval(batch), v);
    }
    return batch -> {
      Col a = left.eval(batch);
      Col b = right.eval(batch);
      return switch (a) {
        case Col.Longs x -> longs(op, x, (Col.Longs) b);
        case Col.Doubles x -> doubles(op, x, (Col.Doubles) b);
        case Col.Bools x -> bools(op, x, (Col.Bools) b);
        case Col.Objects x -> objects(op, x, (Col.Objects) b);
      };
    };
  }

  private static boolean test(Expr.Op op, int c) {
    return switch (op) {
      case EQ -> c == 0;
      case NE -> c != 0;
      case LT -> c < 0;
      case LE -> c <= 0;
      case GT -> c > 0;
      case GE -> c >= 0;
      default -> throw new IllegalStateException(op.name());
    };
  }

  private static Col.Bools longs(Expr.Op op, Col.Longs a, Col.Longs b) {
    int n = a.size;
    Col.Bools out = new Col.Bools(n);
    long[] x = a.values;
    long[] y = b.values;
    // One loop per operator so the JIT sees a branch-free body it can vectorise.
    switch (op) {
      case EQ -> { for (int i = 0; i < n; i++) out.values[i] = x[i] == y[i]; }
      case NE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] != y[i]; }
      case LT -> { for (int i = 0; i < n; i++) out.values[i] = x[i] < y[i]; }
      case LE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] <= y[i]; }
      case GT -> { for (int i = 0; i < n; i++) out.values[i] = x[i] > y[i]; }
      case GE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] >= y[i]; }
      default -> throw new IllegalStateException(op.name());
    }
    orNulls(a, b, out);
    return out;
  }

  private static Col.Bools doubles(Expr.Op op, Col.Doubles a, Col.Doubles b) {
    int n = a.size;
    Col.Bools out = new Col.Bools(n);
    double[] x = a.values;
    double[] y = b.values;
    // Primitive comparisons: -0.0 equals 0.0 (as in grouping), NaN compares false.
    switch (op) {
      case EQ -> { for (int i = 0; i < n; i++) out.values[i] = x[i] == y[i]; }
      case NE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] != y[i]; }
      case LT -> { for (int i = 0; i < n; i++) out.values[i] = x[i] < y[i]; }
      case LE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] <= y[i]; }
      case GT -> { for (int i = 0; i < n; i++) out.values[i] = x[i] > y[i]; }
      case GE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] >= y[i]; }
      default -> throw new IllegalStateException(op.name());
    }
    orNulls(a, b, out);
    return out;
  }

  /** Column against a non-null constant: no constant column is built. */
  private static Col.Bools longScalar(Expr.Op op, Col.Longs a, long y) {
    int n = a.size;
    Col.Bools out = new Col.Bools(n);
    long[] x = a.values;
    switch (op) {
      case EQ -> { for (int i = 0; i < n; i++) out.values[i] = x[i] == y; }
      case NE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] != y; }
      case LT -> { for (int i = 0; i < n; i++) out.values[i] = x[i] < y; }
      case LE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] <= y; }
      case GT -> { for (int i = 0; i < n; i++) out.values[i] = x[i] > y; }
      case GE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] >= y; }
      default -> throw new IllegalStateException(op.name());
    }
    copyNulls(a, out);
    return out;
  }

  private static Col.Bools doubleScalar(Expr.Op op, Col.Doubles a, double y) {
    int n = a.size;
    Col.Bools out = new Col.Bools(n);
    double[] x = a.values;
    switch (op) {
      case EQ -> { for (int i = 0; i < n; i++) out.values[i] = x[i] == y; }
      case NE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] != y; }
      case LT -> { for (int i = 0; i < n; i++) out.values[i] = x[i] < y; }
      case LE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] <= y; }
      case GT -> { for (int i = 0; i < n; i++) out.values[i] = x[i] > y; }
      case GE -> { for (int i = 0; i < n; i++) out.values[i] = x[i] >= y; }
      default -> throw new IllegalStateException(op.name());
    }
    copyNulls(a, out);
    return out;
  }

  private static Col.Bools bools(Expr.Op op, Col.Bools a, Col.Bools b) {
    int n = a.size;
    Col.Bools out = new Col.Bools(n);
    for (int i = 0; i < n; i++) {
      out.nulls[i] = a.nulls[i] | b.nulls[i];
      out.values[i] = test(op, Boolean.compare(a.values[i], b.values[i]));
    }
    return out;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Col.Bools objects(Expr.Op op, Col.Objects a, Col.Objects b) {
    int n = a.size;
    Col.Bools out = new Col.Bools(n);
    for (int i = 0; i < n; i++) {
      Object x = a.values[i];
      Object y = b.values[i];
      if (x == null || y == null) {
        out.nulls[i] = true;
      } else {
        out.values[i] = test(op, ((Comparable) x).compareTo(y));
      }
    }
    return out;
  }

  private static void copyNulls(Col a, Col.Bools out) {
    if (a.noNulls()) {
      out.markNoNulls();
      return;
    }
    boolean[] from = a instanceof Col.Longs l ? l.nulls : ((Col.Doubles) a).nulls;
    System.arraycopy(from, 0, out.nulls, 0, out.size);
  }

  private static void orNulls(Col a, Col b, Col.Bools out) {
    if (a.noNulls() && b.noNulls()) {
      out.markNoNulls();
      return;
    }
    boolean[] x = a instanceof Col.Longs l ? l.nulls : ((Col.Doubles) a).nulls;
    boolean[] y = b instanceof Col.Longs l ? l.nulls : ((Col.Doubles) b).nulls;
    for (int i = 0; i < out.size; i++) {
      out.nulls[i] = x[i] | y[i];
    }
  }
}
