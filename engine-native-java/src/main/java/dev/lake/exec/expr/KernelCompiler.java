package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import dev.lake.exec.fn.StringFunctions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns expression trees into kernel trees. Subexpressions that occur more than once among the
 * expressions compiled together are wrapped in a {@link Memo}, so each is evaluated once per
 * batch. Constants are never shared (kernels look for them to run scalar loops), nor are boolean
 * results (the logic kernels may reuse their input's arrays).
 */
final class KernelCompiler {
  private final Set<Expr> shared = new HashSet<>();
  private final Map<Expr, Kernel> memos = new HashMap<>();
  /** Whether arithmetic results may reuse their previous batch's arrays (see {@link Kernel#compileShared(List, boolean)}). */
  private final boolean recycle;

  KernelCompiler(List<Expr> together) {
    this(together, false);
  }

  KernelCompiler(List<Expr> together, boolean recycle) {
    this.recycle = recycle;
    Map<Expr, Integer> occurrences = new HashMap<>();
    for (Expr e : together) {
      count(e, occurrences);
    }
    occurrences.forEach((e, n) -> {
      if (n > 1) {
        shared.add(e);
      }
    });
  }

  private static void count(Expr e, Map<Expr, Integer> occurrences) {
    // Nested values are copied by the projection straight from their kernel, never shared.
    if (e instanceof Expr.Literal || e instanceof Expr.Agg || e instanceof Expr.Nested
        || e.type() == null || e.type().kind() == SqlType.Kind.BOOL) {
      return;
    }
    if (occurrences.merge(e, 1, Integer::sum) > 1) {
      return; // its subtrees were counted the first time; counting them again adds nothing new
    }
    switch (e) {
      case Expr.Call c -> c.args().forEach(a -> count(a, occurrences));
      case Expr.Func c -> c.args().forEach(a -> count(a, occurrences));
      case Expr.Cast c -> count(c.arg(), occurrences);
      default -> { }
    }
  }

  Kernel compile(Expr expr) {
    if (!shared.contains(expr)) {
      return compileNode(expr);
    }
    Kernel memo = memos.get(expr);
    if (memo == null) {
      memo = new Memo(compileNode(expr));
      memos.put(expr, memo);
    }
    return memo;
  }

  private Kernel compileNode(Expr expr) {
    return switch (expr) {
      case Expr.Column c -> new ColumnKernel(c.index());
      case Expr.Literal l -> new LogicKernels.Constant(l);
      case Expr.Call c -> switch (c.op()) {
        case ADD, SUB, MUL, DIV, MOD -> ArithmeticKernels.binary(
            c.op(), compile(c.args().get(0)), compile(c.args().get(1)), c.type(), recycle);
        case NEG -> ArithmeticKernels.negate(compile(c.args().get(0)), c.type());
        case EQ, NE -> {
          Kernel generic = ComparisonKernels.compare(
              c.op(), compile(c.args().get(0)), compile(c.args().get(1)));
          List<Expr> sides = literalLast(c);
          Expr a = sides.get(0);
          Expr b = sides.get(1);
          if (a instanceof Expr.Column col && a.type().kind() == SqlType.Kind.UTF8
              && b instanceof Expr.Literal lit && lit.value() instanceof String s) {
            yield new StringKernels.Match(col.index(), List.of(s), false, c.op() == Expr.Op.NE, false, generic);
          }
          if (b instanceof Expr.Literal lit && lit.value() instanceof String s) {
            Kernel prefix = prefixMatch(a, List.of(s), false, c.op() == Expr.Op.NE, generic);
            if (prefix != null) {
              yield prefix;
            }
          }
          yield generic;
        }
        case LT, LE, GT, GE -> ComparisonKernels.compare(
            c.op(), compile(c.args().get(0)), compile(c.args().get(1)));
        case AND, OR -> {
          Expr.InList in = c.op() == Expr.Op.OR ? equalitiesAsInList(c) : null;
          yield in != null ? compileNode(in) : new LogicKernels.AndOr(
              c.op() == Expr.Op.AND, c.args().stream().map(this::compile).toList());
        }
        case NOT -> new LogicKernels.Not(compile(c.args().get(0)));
        case IS_NULL, IS_NOT_NULL ->
            new LogicKernels.IsNull(compile(c.args().get(0)), c.op() == Expr.Op.IS_NOT_NULL);
        case EXTRACT_YEAR, EXTRACT_MONTH, EXTRACT_DAY ->
            FunctionKernels.of(c, c.args().stream().map(this::compile).toList());
      };
      case Expr.Func f -> f.function().kernel(f.args().stream().map(this::compile).toList(), f.binding(), f.type());
      case Expr.Cast c -> new CastKernel(compile(c.arg()), c.arg().type(), c.type());
      case Expr.Case c -> new LogicKernels.CaseWhen(
          c.whens().stream().map(this::compile).toList(),
          c.thens().stream().map(this::compile).toList(),
          compile(c.otherwise()), c.type());
      case Expr.InList in -> {
        Kernel generic = new LogicKernels.In(compile(in.arg()), in.values(), in.negated());
        if (in.arg().type().isLongBacked() && in.values().stream().allMatch(l -> l.value() instanceof Long)) {
          yield new LogicKernels.LongIn(compile(in.arg()),
              in.values().stream().mapToLong(l -> (Long) l.value()).toArray(), in.negated());
        }
        List<String> strings = new ArrayList<>();
        boolean hasNull = false;
        for (Expr.Literal l : in.values()) {
          if (l.value() instanceof String s) {
            strings.add(s);
          } else if (l.value() == null) {
            hasNull = true;
          } else {
            strings = null;
            break;
          }
        }
        if (strings != null && in.arg() instanceof Expr.Column col
            && col.type().kind() == SqlType.Kind.UTF8) {
          yield new StringKernels.Match(col.index(), strings, hasNull, in.negated(), false, generic);
        }
        Kernel prefix = strings == null ? null : prefixMatch(in.arg(), strings, hasNull, in.negated(), generic);
        yield prefix != null ? prefix : generic;
      }
      case Expr.Like l -> {
        Kernel generic = new LogicKernels.Like(compile(l.arg()), l.pattern(), l.escape(), l.negated());
        String prefix = l.pattern().substring(0, Math.max(0, l.pattern().length() - 1));
        if (l.arg() instanceof Expr.Column col && col.type().kind() == SqlType.Kind.UTF8
            && l.pattern().endsWith("%") && prefix.chars().noneMatch(ch -> ch == '%' || ch == '_'
                || l.escape() != null && ch == l.escape())) {
          // 'text%': the row's leading bytes, compared a word at a time.
          yield new StringKernels.Match(col.index(), List.of(prefix), false, l.negated(), true, generic);
        }
        StringKernels.Like bytes = l.arg() instanceof Expr.Column col && col.type().kind() == SqlType.Kind.UTF8
            ? StringKernels.Like.of(col.index(), l.pattern(), l.escape(), l.negated(), generic) : null;
        yield bytes != null ? bytes : generic;
      }
      case Expr.Agg a -> throw new IllegalStateException("aggregate outside an aggregation: " + a);
      case Expr.Nested n -> new NestedKernel(n);
    };
  }

  /** The two operands of a symmetric comparison, a constant one second. */
  private static List<Expr> literalLast(Expr.Call c) {
    Expr a = c.args().get(0);
    Expr b = c.args().get(1);
    return a instanceof Expr.Literal && !(b instanceof Expr.Literal) ? List.of(b, a) : List.of(a, b);
  }

  /**
   * {@code SUBSTRING(column FROM 1 FOR k) [NOT] IN (constants)} (or {@code =}, {@code <>}) where
   * every constant has exactly {@code k} characters, as a test of the column's leading bytes: the
   * first {@code k} characters of a string equal such a constant exactly when its UTF-8 bytes
   * start with the constant's (UTF-8 is self-synchronising), and a string of fewer characters
   * equals none of them. Null for any other shape.
   */
  private static Kernel prefixMatch(Expr arg, List<String> constants, boolean listHasNull, boolean negated,
      Kernel fallback) {
    if (!(arg instanceof Expr.Func call) || call.function() != StringFunctions.SUBSTRING || call.args().size() != 3
        || !(call.args().get(0) instanceof Expr.Column col) || col.type().kind() != SqlType.Kind.UTF8
        || !(call.args().get(1) instanceof Expr.Literal from) || !Long.valueOf(1).equals(from.value())
        || !(call.args().get(2) instanceof Expr.Literal length) || !(length.value() instanceof Long k)) {
      return null;
    }
    for (String constant : constants) {
      if (constant.codePointCount(0, constant.length()) != k) {
        return null;
      }
    }
    return new StringKernels.Match(col.index(), constants, listHasNull, negated, true, fallback);
  }

  /**
   * {@code x = a OR x = b OR ...} over one expression with non-null constants (what the planner
   * makes of {@code x IN (a, b, ...)}) as the IN list it means, so {@code x} is evaluated and
   * tested once per row; null for any other OR. Both answer NULL for a NULL {@code x} and FALSE
   * for any other value not listed (expressions have no side effects).
   */
  private static Expr.InList equalitiesAsInList(Expr.Call or) {
    Expr column = null;
    List<Expr.Literal> values = new ArrayList<>();
    for (Expr arg : or.args()) {
      if (!(arg instanceof Expr.Call eq) || eq.op() != Expr.Op.EQ) {
        return null;
      }
      List<Expr> sides = literalLast(eq);
      Expr a = sides.get(0);
      Expr b = sides.get(1);
      if (a instanceof Expr.Literal || !(b instanceof Expr.Literal lit) || lit.value() == null
          || column != null && !column.equals(a)) {
        return null;
      }
      column = a;
      values.add(lit);
    }
    return values.size() < 2 ? null : new Expr.InList(column, values, false, or.type());
  }

  /** The last batch's result of a shared subexpression; batches are told apart by identity. */
  static final class Memo implements Kernel {
    private final Kernel kernel;
    private Batch last;
    private Col value;

    Memo(Kernel kernel) {
      this.kernel = kernel;
    }

    Kernel inner() {
      return kernel;
    }

    @Override
    public Col eval(Batch batch) {
      if (batch != last) {
        value = kernel.eval(batch);
        last = batch;
      }
      return value;
    }
  }
}
