package dev.lake.engine.log.segment;

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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Decides from block statistics whether any row of a block can satisfy a pushed-down filter.
 *
 * <p>Each expression is evaluated to the set of SQL truth values its rows may take (TRUE, FALSE,
 * NULL), always a superset of the real one; a block is kept iff TRUE is possible. Tracking FALSE
 * and NULL separately is what makes NOT and SQL null semantics exact: {@code NOT (x = 5)} on an
 * all-null block is NULL for every row, so the block is pruned. Any node or type pairing this
 * class does not understand yields "anything possible", so it never prunes wrongly.
 */
public final class StatsPruner {

  private static final int TRUE = 1;
  private static final int FALSE = 2;
  private static final int NULL = 4;
  private static final int ANY = TRUE | FALSE | NULL;

  private final Map<String, Integer> columns = new HashMap<>();
  private final List<Field> fields;
  private final List<ColumnKind> kinds;

  public StatsPruner(Schema schema) {
    this.fields = schema.getFields();
    this.kinds = SegmentFooter.kinds(schema);
    for (int i = 0; i < fields.size(); i++) {
      columns.putIfAbsent(fields.get(i).getName(), i);
    }
  }

  /** True unless the statistics of {@code block} prove that no row satisfies {@code filter}. */
  public boolean mayMatch(Expression filter, BlockMeta block) {
    return (eval(filter, block) & TRUE) != 0;
  }

  private int eval(Expression e, BlockMeta block) {
    return switch (e) {
      case And and -> and(and.terms(), block);
      case Or or -> or(or.terms(), block);
      case Not not -> negate(eval(not.term(), block));
      case Comparison c -> comparison(c.op(), c.left(), c.right(), block);
      case Between b -> and(List.of(
          new Comparison(Comparison.Op.GE, b.value(), b.low()),
          new Comparison(Comparison.Op.LE, b.value(), b.high())), block);
      case In in -> {
        List<Expression> terms = new ArrayList<>();
        for (Literal l : in.list()) {
          terms.add(new Comparison(Comparison.Op.EQ, in.value(), l));
        }
        yield terms.size() == 1 ? eval(terms.getFirst(), block) : or(terms, block);
      }
      case IsNull isNull -> isNull(isNull.value(), block);
      case Literal l -> l.value() == null ? NULL
          : l.value() instanceof Boolean b ? (b ? TRUE : FALSE) : ANY;
      case ColumnRef ref -> booleanColumn(ref, block);
    };
  }

  private int and(List<Expression> terms, BlockMeta block) {
    boolean allMayBeTrue = true;
    boolean anyMayBeFalse = false;
    boolean allMayBeTrueOrNull = true;
    boolean anyMayBeNull = false;
    for (Expression t : terms) {
      int r = eval(t, block);
      allMayBeTrue &= (r & TRUE) != 0;
      anyMayBeFalse |= (r & FALSE) != 0;
      allMayBeTrueOrNull &= (r & (TRUE | NULL)) != 0;
      anyMayBeNull |= (r & NULL) != 0;
    }
    return (allMayBeTrue ? TRUE : 0)
        | (anyMayBeFalse ? FALSE : 0)
        | (allMayBeTrueOrNull && anyMayBeNull ? NULL : 0);
  }

  private int or(List<Expression> terms, BlockMeta block) {
    List<Expression> negated = new ArrayList<>(terms.size());
    for (Expression t : terms) {
      negated.add(new Not(t));
    }
    return negate(and(negated, block));
  }

  private static int negate(int r) {
    return (r & NULL) | ((r & TRUE) != 0 ? FALSE : 0) | ((r & FALSE) != 0 ? TRUE : 0);
  }

  private int isNull(Expression value, BlockMeta block) {
    if (!(value instanceof ColumnRef ref) || !columns.containsKey(ref.name())) {
      return value instanceof Literal l ? (l.value() == null ? TRUE : FALSE) : TRUE | FALSE;
    }
    long nulls = block.columns().get(columns.get(ref.name())).stats().nullCount();
    return (nulls > 0 ? TRUE : 0) | (nulls < block.rows() ? FALSE : 0);
  }

  private int booleanColumn(ColumnRef ref, BlockMeta block) {
    Integer c = columns.get(ref.name());
    if (c == null || kinds.get(c) != ColumnKind.BOOL) {
      return ANY;
    }
    return comparison(Comparison.Op.EQ, ref, new Literal(ArrowType.Bool.INSTANCE, true), block);
  }

  private int comparison(Comparison.Op op, Expression left, Expression right, BlockMeta block) {
    if (left instanceof Literal && right instanceof ColumnRef) {
      return comparison(flip(op), right, left, block);
    }
    if (!(left instanceof ColumnRef ref) || !(right instanceof Literal lit)) {
      return ANY;
    }
    Integer c = columns.get(ref.name());
    if (c == null) {
      return ANY;
    }
    ColumnStats stats = block.columns().get(c).stats();
    if (lit.value() == null || stats.nullCount() == block.rows()) {
      return NULL;
    }
    int result = stats.nullCount() > 0 ? NULL : 0;
    if (!stats.hasBounds()) {
      return result | TRUE | FALSE;
    }
    Object value = comparable(kinds.get(c), fields.get(c).getType(), lit);
    if (value == null) {
      return result | TRUE | FALSE;
    }
    int vsMin = compare(stats.min(), value);
    int vsMax = compare(stats.max(), value);
    boolean single = stats.exact() && compare(stats.min(), stats.max()) == 0;
    // min and max bound the non-null values; TRUE/FALSE are possible unless they rule them out.
    boolean mayTrue;
    boolean mayFalse;
    switch (op) {
      case EQ -> {
        mayTrue = vsMin <= 0 && vsMax >= 0;
        mayFalse = !(single && vsMin == 0);
      }
      case NE -> {
        mayTrue = !(single && vsMin == 0);
        mayFalse = vsMin <= 0 && vsMax >= 0;
      }
      case LT -> {
        mayTrue = vsMin < 0;
        mayFalse = vsMax >= 0;
      }
      case LE -> {
        mayTrue = vsMin <= 0;
        mayFalse = vsMax > 0;
      }
      case GT -> {
        mayTrue = vsMax > 0;
        mayFalse = vsMin <= 0;
      }
      case GE -> {
        mayTrue = vsMax >= 0;
        mayFalse = vsMin < 0;
      }
      default -> {
        mayTrue = true;
        mayFalse = true;
      }
    }
    return result | (mayTrue ? TRUE : 0) | (mayFalse ? FALSE : 0);
  }

  private static Comparison.Op flip(Comparison.Op op) {
    return switch (op) {
      case LT -> Comparison.Op.GT;
      case LE -> Comparison.Op.GE;
      case GT -> Comparison.Op.LT;
      case GE -> Comparison.Op.LE;
      default -> op;
    };
  }

  /**
   * The literal in the representation of the column's statistics, or null when the pairing is
   * not one whose meaning is certain (for example a timestamp literal against a date column).
   */
  private static Object comparable(ColumnKind kind, ArrowType columnType, Literal lit) {
    Object v = lit.value();
    ArrowType litType = lit.type();
    return switch (kind) {
      case INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, DECIMAL128 ->
          litType instanceof ArrowType.Int
              || litType instanceof ArrowType.FloatingPoint
              || litType instanceof ArrowType.Decimal
          ? numeric(v) : null;
      case BOOL -> v instanceof Boolean ? v : null;
      case UTF8 -> v instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : null;
      case DATE_DAY -> litType instanceof ArrowType.Date d && d.getUnit() == DateUnit.DAY ? v : null;
      case DATE_MILLI -> null;
      case TIMESTAMP -> litType instanceof ArrowType.Timestamp t
              && t.getUnit() == TimeUnit.MICROSECOND
              && ((ArrowType.Timestamp) columnType).getUnit() == TimeUnit.MICROSECOND
          ? v : null;
      default -> null;
    };
  }

  private static Object numeric(Object v) {
    return switch (v) {
      case Long l -> l;
      case Double d -> d.isNaN() ? null : d;
      case BigDecimal b -> b;
      default -> null;
    };
  }

  /** Compares a statistic with a literal of a compatible representation. */
  private static int compare(Object stat, Object value) {
    if (stat instanceof byte[] a && value instanceof byte[] b) {
      return Arrays.compareUnsigned(a, b);
    }
    if (stat instanceof Boolean a && value instanceof Boolean b) {
      return Boolean.compare(a, b);
    }
    if (stat instanceof Long a && value instanceof Long b) {
      return Long.compare(a, b);
    }
    if (stat instanceof Double a && value instanceof Double b) {
      // Primitive comparison, so -0.0 and 0.0 compare equal as SQL expects.
      return a < b ? -1 : a > b ? 1 : 0;
    }
    return decimal(stat).compareTo(decimal(value));
  }

  private static BigDecimal decimal(Object v) {
    return switch (v) {
      case Long l -> BigDecimal.valueOf(l);
      case Double d -> Double.isInfinite(d)
          ? BigDecimal.valueOf(d > 0 ? Double.MAX_VALUE : -Double.MAX_VALUE).multiply(BigDecimal.TEN)
          : new BigDecimal(d);
      case BigDecimal b -> b;
      default -> throw new IllegalArgumentException("not a number: " + v);
    };
  }
}
