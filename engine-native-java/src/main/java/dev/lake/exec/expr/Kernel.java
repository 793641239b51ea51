package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.util.ArrayList;
import java.util.List;

/**
 * A compiled expression: computes its value for every live row of a batch in one typed loop per
 * operator. Kernels of one query run on one thread at a time.
 */
public interface Kernel {

  /**
   * Evaluates over the live rows of {@code batch}; element {@code i} of the result belongs to
   * the {@code i}-th live row.
   *
   * @throws dev.lake.exec.ExecutionException on a data error (division by zero, overflow, bad cast)
   */
  Col eval(Batch batch);

  /** Compiles a bound expression tree (without aggregate calls) into a kernel tree. */
  static Kernel compile(Expr expr) {
    return switch (expr) {
      case Expr.Column c -> batch -> Vectors.read(batch.root().getVector(c.index()), batch);
      case Expr.Literal l -> new LogicKernels.Constant(l);
      case Expr.Call c -> switch (c.op()) {
        case ADD, SUB, MUL, DIV, MOD -> ArithmeticKernels.binary(
            c.op(), compile(c.args().get(0)), compile(c.args().get(1)), c.type());
        case NEG -> ArithmeticKernels.negate(compile(c.args().get(0)), c.type());
        case EQ, NE -> {
          Kernel generic = ComparisonKernels.compare(
              c.op(), compile(c.args().get(0)), compile(c.args().get(1)));
          Expr a = c.args().get(0);
          Expr b = c.args().get(1);
          if (b instanceof Expr.Column && a instanceof Expr.Literal) {
            Expr t = a;
            a = b;
            b = t;
          }
          if (a instanceof Expr.Column col && a.type().kind() == SqlType.Kind.UTF8
              && b instanceof Expr.Literal lit && lit.value() instanceof String s) {
            yield new StringKernels.Match(col.index(), List.of(s), false, c.op() == Expr.Op.NE, generic);
          }
          yield generic;
        }
        case LT, LE, GT, GE -> ComparisonKernels.compare(
            c.op(), compile(c.args().get(0)), compile(c.args().get(1)));
        case AND, OR -> new LogicKernels.AndOr(
            c.op() == Expr.Op.AND, c.args().stream().map(Kernel::compile).toList());
        case NOT -> new LogicKernels.Not(compile(c.args().get(0)));
        case IS_NULL, IS_NOT_NULL ->
            new LogicKernels.IsNull(compile(c.args().get(0)), c.op() == Expr.Op.IS_NOT_NULL);
        case EXTRACT_YEAR, EXTRACT_MONTH, EXTRACT_DAY, SUBSTRING, UPPER, LOWER, CHAR_LENGTH ->
            FunctionKernels.of(c, c.args().stream().map(Kernel::compile).toList());
      };
      case Expr.Cast c -> new CastKernel(compile(c.arg()), c.arg().type(), c.type());
      case Expr.Case c -> new LogicKernels.CaseWhen(
          c.whens().stream().map(Kernel::compile).toList(),
          c.thens().stream().map(Kernel::compile).toList(),
          compile(c.otherwise()), c.type());
      case Expr.InList in -> {
        Kernel generic = new LogicKernels.In(compile(in.arg()), in.values(), in.negated());
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
          yield new StringKernels.Match(col.index(), strings, hasNull, in.negated(), generic);
        }
        yield generic;
      }
      case Expr.Like l -> new LogicKernels.Like(compile(l.arg()), l.pattern(), l.escape(), l.negated());
      case Expr.Agg a -> throw new IllegalStateException("aggregate outside an aggregation: " + a);
      case Expr.Nested n -> new NestedKernel(n);
    };
  }
}
