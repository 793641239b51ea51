package dev.lake.iceberg;

import dev.lake.engine.expr.And;
import dev.lake.engine.expr.Between;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Comparison;
import dev.lake.engine.expr.Expression;
import dev.lake.engine.expr.In;
import dev.lake.engine.expr.IsNull;
import dev.lake.engine.expr.Literal;
import dev.lake.engine.expr.Not;
import dev.lake.engine.expr.Or;
import java.math.BigDecimal;
import java.util.Optional;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The engine's pushed-down predicate as an Iceberg expression, for manifest, partition and
 * row-group pruning. Only what converts exactly is pushed: an unconvertible conjunct is dropped
 * (the executor re-applies the whole predicate), an unconvertible disjunct or negation drops the
 * whole OR or NOT.
 */
final class Pushdown {
  private Pushdown() {}

  static org.apache.iceberg.expressions.Expression of(Optional<Expression> filter, org.apache.iceberg.Schema schema) {
    return filter.flatMap(f -> convert(f, schema)).orElse(Expressions.alwaysTrue());
  }

  private static Optional<org.apache.iceberg.expressions.Expression> convert(Expression e, org.apache.iceberg.Schema schema) {
    return switch (e) {
      case And a -> {
        org.apache.iceberg.expressions.Expression all = null;
        for (Expression term : a.terms()) {
          Optional<org.apache.iceberg.expressions.Expression> c = convert(term, schema);
          if (c.isPresent()) {
            all = all == null ? c.get() : Expressions.and(all, c.get());
          }
        }
        yield Optional.ofNullable(all);
      }
      case Or o -> {
        org.apache.iceberg.expressions.Expression any = null;
        for (Expression term : o.terms()) {
          Optional<org.apache.iceberg.expressions.Expression> c = convert(term, schema);
          if (c.isEmpty()) {
            yield Optional.empty();
          }
          any = any == null ? c.get() : Expressions.or(any, c.get());
        }
        yield Optional.ofNullable(any);
      }
      case Not n -> convert(n.term(), schema).map(Expressions::not);
      case IsNull n when n.value() instanceof ColumnRef c && column(c, schema) != null ->
          Optional.of(Expressions.isNull(c.name()));
      case Comparison c -> comparison(c.op(), c.left(), c.right(), schema);
      case Between b -> comparison(Comparison.Op.GE, b.value(), b.low(), schema)
          .flatMap(low -> comparison(Comparison.Op.LE, b.value(), b.high(), schema).map(high -> Expressions.and(low, high)));
      case In in when in.value() instanceof ColumnRef c && column(c, schema) != null -> {
        Type type = column(c, schema);
        java.util.List<Object> values = new java.util.ArrayList<>();
        for (Literal l : in.list()) {
          Object v = value(l, type);
          if (v == null) {
            yield Optional.empty();
          }
          values.add(v);
        }
        yield Optional.of(Expressions.in(c.name(), values.toArray()));
      }
      default -> Optional.empty();
    };
  }

  private static Optional<org.apache.iceberg.expressions.Expression> comparison(Comparison.Op op, Expression left,
      Expression right, org.apache.iceberg.Schema schema) {
    if (left instanceof Literal && right instanceof ColumnRef) {
      return comparison(flip(op), right, left, schema);
    }
    if (!(left instanceof ColumnRef c) || !(right instanceof Literal l)) {
      return Optional.empty();
    }
    Type type = column(c, schema);
    Object v = type == null ? null : value(l, type);
    if (v == null) {
      return Optional.empty();
    }
    String n = c.name();
    return Optional.of(switch (op) {
      case EQ -> Expressions.equal(n, v);
      case NE -> Expressions.notEqual(n, v);
      case LT -> Expressions.lessThan(n, v);
      case LE -> Expressions.lessThanOrEqual(n, v);
      case GT -> Expressions.greaterThan(n, v);
      case GE -> Expressions.greaterThanOrEqual(n, v);
    });
  }

  private static Comparison.Op flip(Comparison.Op op) {
    return switch (op) {
      case EQ, NE -> op;
      case LT -> Comparison.Op.GT;
      case LE -> Comparison.Op.GE;
      case GT -> Comparison.Op.LT;
      case GE -> Comparison.Op.LE;
    };
  }

  private static Type column(ColumnRef c, org.apache.iceberg.Schema schema) {
    Types.NestedField f = schema.findField(c.name());
    return f == null || !f.type().isPrimitiveType() || schema.columns().stream().noneMatch(t -> t.fieldId() == f.fieldId())
        ? null : f.type();
  }

  /** The literal as the Java value Iceberg expects for {@code type}, or null if it does not convert exactly. */
  private static Object value(Literal l, Type type) {
    Object v = l.value();
    if (v == null) {
      return null;
    }
    return switch (type.typeId()) {
      case INTEGER -> v instanceof Long n && n == n.intValue() ? (Object) n.intValue() : null;
      case LONG -> v instanceof Long n ? n : null;
      case DATE -> v instanceof Long n && l.type().getTypeID() == org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID.Date
          && n == n.intValue() ? (Object) n.intValue() : null;
      case TIMESTAMP -> v instanceof Long n && l.type() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Timestamp t
          && ((t.getTimezone() != null) == ((Types.TimestampType) type).shouldAdjustToUTC()) ? n : null;
      case DOUBLE -> v instanceof Double d ? d : null;
      case STRING -> v instanceof String s ? s : null;
      case BOOLEAN -> v instanceof Boolean b ? b : null;
      case DECIMAL -> v instanceof BigDecimal d && d.scale() <= ((Types.DecimalType) type).scale()
          ? d.setScale(((Types.DecimalType) type).scale()) : null;
      default -> null;
    };
  }
}
