package dev.lake.sql;

import dev.lake.engine.expr.And;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Comparison;
import dev.lake.engine.expr.Expression;
import dev.lake.engine.expr.In;
import dev.lake.engine.expr.IsNull;
import dev.lake.engine.expr.Literal;
import dev.lake.engine.expr.Not;
import dev.lake.engine.expr.Or;
import dev.lake.exec.expr.Expr;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Translates the WHERE predicate into the engine-neutral pushdown IR so engines can prune by
 * statistics. Only a weaker-or-equal predicate may be pushed: conjuncts that do not translate
 * are dropped at AND positions that are not under NOT, and an OR or NOT is pushed only whole.
 * The executor always re-applies the full predicate.
 */
final class Pushdown {
  private Pushdown() {}

  /**
   * @param columns the scanned column names, which the predicate's column indices refer to
   */
  static Optional<Expression> translate(Expr predicate, List<String> columns) {
    return Optional.ofNullable(translate(predicate, columns, true));
  }

  /** @param partial whether dropping untranslatable AND terms keeps the result weaker */
  private static Expression translate(Expr e, List<String> columns, boolean partial) {
    return switch (e) {
      case Expr.Column c -> new ColumnRef(columns.get(c.index()));
      case Expr.Literal l -> l.type().kind() == dev.lake.exec.SqlType.Kind.NULL ? null
          : new Literal(l.type().arrowType(), l.value());
      case Expr.Call c -> switch (c.op()) {
        case EQ, NE, LT, LE, GT, GE -> {
          Expression left = operand(c.args().get(0), c.args().get(1), columns);
          Expression right = operand(c.args().get(1), c.args().get(0), columns);
          yield left == null || right == null ? null
              : new Comparison(Comparison.Op.valueOf(c.op().name()), left, right);
        }
        case AND -> {
          List<Expression> terms = new ArrayList<>();
          for (Expr arg : c.args()) {
            Expression t = translate(arg, columns, partial);
            if (t == null && !partial) {
              yield null;
            }
            if (t != null) {
              terms.add(t);
            }
          }
          yield terms.isEmpty() ? null : terms.size() == 1 ? terms.get(0) : new And(terms);
        }
        case OR -> {
          List<Expression> terms = new ArrayList<>();
          for (Expr arg : c.args()) {
            Expression t = translate(arg, columns, false);
            if (t == null) {
              yield null;
            }
            terms.add(t);
          }
          yield inList(terms);
        }
        case NOT -> {
          Expression t = translate(c.args().get(0), columns, false);
          yield t == null ? null : new Not(t);
        }
        case IS_NULL, IS_NOT_NULL -> {
          Expression t = translate(c.args().get(0), columns, false);
          yield t == null ? null : c.op() == Expr.Op.IS_NULL ? new IsNull(t) : new Not(new IsNull(t));
        }
        default -> null;
      };
      case Expr.InList in -> {
        Expression value = translate(in.arg(), columns, false);
        List<Literal> values = new ArrayList<>();
        for (Expr.Literal l : in.values()) {
          if (l.value() == null) {
            yield null;
          }
          values.add(new Literal(l.type().arrowType(), l.value()));
        }
        if (value == null) {
          yield null;
        }
        In positive = new In(value, values);
        yield in.negated() ? new Not(positive) : positive;
      }
      default -> null;
    };
  }

  /**
   * One side of a comparison; a decimal literal compared with a decimal column is given the
   * column's type when it holds the value exactly (the validator widens both sides to a common
   * type, the engine prunes by the column's own).
   */
  private static Expression operand(Expr side, Expr other, List<String> columns) {
    if (side instanceof Expr.Literal l && other instanceof Expr.Column c && l.value() instanceof java.math.BigDecimal v
        && l.type().kind() == dev.lake.exec.SqlType.Kind.DECIMAL && c.type() != null
        && c.type().kind() == dev.lake.exec.SqlType.Kind.DECIMAL && v.scale() <= c.type().scale()) {
      java.math.BigDecimal scaled = v.setScale(c.type().scale());
      if (scaled.precision() <= c.type().precision()) {
        return new Literal(c.type().arrowType(), scaled);
      }
    }
    return translate(side, columns, false);
  }

  /** An OR of equalities between one column and literals is that column's IN list. */
  private static Expression inList(List<Expression> terms) {
    List<Literal> values = new ArrayList<>();
    Expression column = null;
    for (Expression t : terms) {
      if (!(t instanceof Comparison cmp) || cmp.op() != Comparison.Op.EQ
          || !(cmp.left() instanceof ColumnRef ref) || !(cmp.right() instanceof Literal value)
          || (column != null && !column.equals(ref))) {
        return new Or(terms);
      }
      column = ref;
      values.add(value);
    }
    return terms.size() < 2 ? new Or(terms) : new In(column, values);
  }
}
