package dev.lake.sql;

import dev.lake.exec.SqlType;
import dev.lake.exec.op.SortOperator;
import dev.lake.exec.op.WindowFrame;
import dev.lake.exec.op.WindowFunction;
import dev.lake.exec.op.WindowOperator;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexWindowBound;
import org.apache.calcite.rex.RexWindowExclusion;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Turns a logical {@link Window} (the input's columns, then one per windowed function of each of
 * its groups) into a {@link WindowOperator} over the translated input, checking each frame the
 * way PostgreSQL does: a refused frame is named in the message.
 */
final class WindowTranslation {
  private static final long MICROS_PER_MILLI = 1000;
  private static final long MILLIS_PER_DAY = 86_400_000L;

  private final Window window;
  private final RelTranslator.Node in;
  private final int inputCount;

  private WindowTranslation(Window window, RelTranslator.Node in) {
    this.window = window;
    this.in = in;
    this.inputCount = window.getInput().getRowType().getFieldCount();
  }

  /**
   * @param in the translated input, on one thread (the operator needs every row)
   * @throws SqlException UNSUPPORTED for what the operator does not compute (EXCLUDE, IGNORE
   *     NULLS, DISTINCT, a nested-type key or argument); INVALID for a frame that makes no sense
   */
  static RelTranslator.Node translate(Window window, RelTranslator.Node in, int threads) {
    return new WindowTranslation(window, in).node(threads);
  }

  private RelTranslator.Node node(int threads) {
    List<WindowOperator.Group> groups = new ArrayList<>();
    List<Field> fields = new ArrayList<>(in.fields());
    List<SqlType> types = new ArrayList<>(in.types());
    List<String> names = window.getRowType().getFieldNames();
    List<String> labels = new ArrayList<>();
    int out = inputCount;
    for (Window.Group g : window.groups) {
      List<SortOperator.Key> order = order(g);
      WindowFrame frame = frame(g, order);
      List<WindowFunction> functions = new ArrayList<>();
      for (Window.RexWinAggCall call : g.aggCalls) {
        WindowFunction f = function(call);
        functions.add(f);
        fields.add(f.type().field(names.get(out)));
        types.add(f.type());
        out++;
      }
      int[] partition = g.keys.toArray();
      for (int c : partition) {
        keyType(c, "PARTITION BY");
      }
      groups.add(new WindowOperator.Group(partition, order, frame, functions));
      labels.add("partition " + g.keys + " order " + g.orderKeys + " " + frame + " " + g.aggCalls);
    }
    Schema schema = new Schema(fields);
    List<SqlType> inputTypes = in.types();
    return new RelTranslator.Node(fields, types,
        a -> new WindowOperator(in.open().apply(a), inputTypes, groups, schema, threads, a),
        () -> "Window " + String.join("; ", labels) + (threads > 1 ? " threads=" + threads : ""), List.of(in), null);
  }

  private SqlType keyType(int column, String clause) {
    SqlType t = in.types().get(column);
    if (t == null) {
      throw RexToExpr.wholeValue("window " + clause + " " + in.names().get(column),
          window.getInput().getRowType().getFieldList().get(column).getType());
    }
    return t;
  }

  private List<SortOperator.Key> order(Window.Group g) {
    List<SortOperator.Key> keys = new ArrayList<>();
    for (RelFieldCollation c : g.orderKeys.getFieldCollations()) {
      keyType(c.getFieldIndex(), "ORDER BY");
      boolean descending = c.getDirection().isDescending();
      boolean nullsFirst = switch (c.nullDirection) {
        case FIRST -> true;
        case LAST -> false;
        default -> descending;
      };
      keys.add(new SortOperator.Key(c.getFieldIndex(), descending, nullsFirst));
    }
    return keys;
  }

  // ---------------------------------------------------------------- frames

  private WindowFrame frame(Window.Group g, List<SortOperator.Key> order) {
    String text = (g.isRows ? "ROWS" : "RANGE") + " BETWEEN " + text(g.lowerBound) + " AND " + text(g.upperBound);
    if (g.exclude != RexWindowExclusion.EXCLUDE_NO_OTHER) {
      throw RexToExpr.unsupported("window frame " + text + " " + g.exclude);
    }
    WindowFrame.Type lowerType = type(g.lowerBound);
    WindowFrame.Type upperType = type(g.upperBound);
    String problem = null;
    if (lowerType == WindowFrame.Type.UNBOUNDED_FOLLOWING) {
      problem = "frame start cannot be UNBOUNDED FOLLOWING";
    } else if (upperType == WindowFrame.Type.UNBOUNDED_PRECEDING) {
      problem = "frame end cannot be UNBOUNDED PRECEDING";
    } else if (lowerType == WindowFrame.Type.CURRENT_ROW && upperType == WindowFrame.Type.PRECEDING) {
      problem = "frame starting from current row cannot have preceding rows";
    } else if (lowerType == WindowFrame.Type.FOLLOWING
        && (upperType == WindowFrame.Type.PRECEDING || upperType == WindowFrame.Type.CURRENT_ROW)) {
      problem = "frame starting from following row cannot have preceding rows";
    }
    if (problem != null) {
      throw invalid(text, problem);
    }
    boolean offsets = g.lowerBound.getOffset() != null || g.upperBound.getOffset() != null;
    if (!g.isRows && offsets && order.size() != 1) {
      throw invalid(text, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column, not "
          + order.size());
    }
    SqlType key = !g.isRows && offsets ? in.types().get(order.getFirst().column()) : null;
    return new WindowFrame(g.isRows, bound(g.lowerBound, lowerType, g.isRows, key, text, "starting"),
        bound(g.upperBound, upperType, g.isRows, key, text, "ending"));
  }

  /** A bound as written, its offset shown as the constant it is. */
  private String text(RexWindowBound b) {
    if (b.getOffset() == null) {
      return b.toString();
    }
    RexLiteral literal = constant(b.getOffset());
    return (literal == null ? b.getOffset().toString() : literal.toString())
        + (b.isPreceding() ? " PRECEDING" : " FOLLOWING");
  }

  private static SqlException invalid(String frame, String problem) {
    return new SqlException(SqlException.Kind.INVALID, "window frame " + frame + ": " + problem);
  }

  private static WindowFrame.Type type(RexWindowBound b) {
    if (b.isUnboundedPreceding()) {
      return WindowFrame.Type.UNBOUNDED_PRECEDING;
    }
    if (b.isUnboundedFollowing()) {
      return WindowFrame.Type.UNBOUNDED_FOLLOWING;
    }
    if (b.isCurrentRow()) {
      return WindowFrame.Type.CURRENT_ROW;
    }
    return b.isPreceding() ? WindowFrame.Type.PRECEDING : WindowFrame.Type.FOLLOWING;
  }

  private WindowFrame.Bound bound(RexWindowBound b, WindowFrame.Type type, boolean rows, SqlType key,
      String frame, String which) {
    if (b.getOffset() == null) {
      return WindowFrame.Bound.of(type);
    }
    RexLiteral literal = constant(b.getOffset());
    if (literal == null) {
      throw RexToExpr.unsupported("window frame " + frame + " with an offset that is not a constant");
    }
    if (literal.isNull()) {
      throw invalid(frame, "frame " + which + " offset must not be null");
    }
    SqlTypeName offsetType = literal.getType().getSqlTypeName();
    BigDecimal value = literal.getValueAs(BigDecimal.class);
    if (value != null && value.signum() < 0) {
      throw invalid(frame, "frame " + which + " offset must not be negative");
    }
    if (rows) {
      if (!SqlTypeFamily.EXACT_NUMERIC.getTypeNames().contains(offsetType) || value.stripTrailingZeros().scale() > 0) {
        throw invalid(frame, "ROWS offset must be a non-negative integer, not " + literal);
      }
      return new WindowFrame.Bound(type, value.longValueExact());
    }
    Object offset = switch (key.kind()) {
      case INT8, INT16, INT32, INT64 -> {
        if (!SqlTypeFamily.EXACT_NUMERIC.getTypeNames().contains(offsetType) || value.stripTrailingZeros().scale() > 0) {
          throw invalid(frame, "RANGE offset " + literal + " does not fit the ORDER BY column of type " + key);
        }
        yield value.longValueExact();
      }
      case FLOAT32, FLOAT64 -> {
        if (!SqlTypeFamily.NUMERIC.getTypeNames().contains(offsetType)) {
          throw invalid(frame, "RANGE offset " + literal + " does not fit the ORDER BY column of type " + key);
        }
        yield value.doubleValue();
      }
      case DECIMAL -> {
        if (!SqlTypeFamily.NUMERIC.getTypeNames().contains(offsetType)) {
          throw invalid(frame, "RANGE offset " + literal + " does not fit the ORDER BY column of type " + key);
        }
        yield value;
      }
      case DATE, TIMESTAMP -> interval(literal, key, frame);
      default -> throw invalid(frame, "RANGE with offset needs a numeric, DATE or TIMESTAMP ORDER BY column, not "
          + key);
    };
    return new WindowFrame.Bound(type, offset);
  }

  /** An interval offset on a DATE (days, or microseconds when not whole days) or TIMESTAMP (microseconds) key; months as calendar months. */
  private static Object interval(RexLiteral literal, SqlType key, String frame) {
    SqlTypeName t = literal.getType().getSqlTypeName();
    boolean date = key.kind() == SqlType.Kind.DATE;
    if (SqlTypeName.YEAR_INTERVAL_TYPES.contains(t)) {
      return new WindowFrame.Months(literal.getValueAs(BigDecimal.class).longValueExact(), date);
    }
    if (!SqlTypeName.DAY_INTERVAL_TYPES.contains(t)) {
      throw invalid(frame, "RANGE offset " + literal + " over a " + key + " ORDER BY column must be an interval");
    }
    long millis = literal.getValueAs(BigDecimal.class).longValueExact();
    if (!date) {
      return Math.multiplyExact(millis, MICROS_PER_MILLI);
    }
    if (millis % MILLIS_PER_DAY != 0) {
      return new WindowFrame.DateMicros(Math.multiplyExact(millis, MICROS_PER_MILLI));
    }
    return millis / MILLIS_PER_DAY;
  }

  /** The literal an operand or bound offset names: itself, or the window's constant it refers to. */
  private RexLiteral constant(RexNode node) {
    if (node instanceof RexLiteral literal) {
      return literal;
    }
    if (node instanceof RexInputRef ref && ref.getIndex() >= inputCount) {
      return window.constants.get(ref.getIndex() - inputCount);
    }
    return null;
  }

  // ---------------------------------------------------------------- functions

  /** Whether argument {@code i} of {@code kind} is a value the result is copied from (not a count). */
  private static boolean carriesValue(WindowFunction.Kind kind, int i) {
    return switch (kind) {
      case LAG, LEAD -> i == 0 || i == 2;
      case FIRST_VALUE, LAST_VALUE, NTH_VALUE, MIN, MAX -> i == 0;
      default -> false;
    };
  }

  /** Whether values of {@code a} are held as values of {@code b} are (the operator copies them unconverted). */
  private static boolean sameRepresentation(SqlType a, SqlType b) {
    if (a.isLongBacked() || b.isLongBacked()) {
      return a.isLongBacked() && b.isLongBacked();
    }
    if (a.isFloat() || b.isFloat()) {
      return a.isFloat() && b.isFloat();
    }
    if (a.kind() == SqlType.Kind.DECIMAL || b.kind() == SqlType.Kind.DECIMAL) {
      return a.kind() == b.kind() && a.scale() == b.scale();
    }
    return a.kind() == b.kind();
  }

  private WindowFunction function(Window.RexWinAggCall call) {
    String name = call.getOperator().getName().toLowerCase(java.util.Locale.ROOT);
    if (call.distinct) {
      throw RexToExpr.unsupported(name + "(DISTINCT ...) OVER a window");
    }
    WindowFunction.Kind kind = switch (call.getKind()) {
      case ROW_NUMBER -> WindowFunction.Kind.ROW_NUMBER;
      case RANK -> WindowFunction.Kind.RANK;
      case DENSE_RANK -> WindowFunction.Kind.DENSE_RANK;
      case PERCENT_RANK -> WindowFunction.Kind.PERCENT_RANK;
      case CUME_DIST -> WindowFunction.Kind.CUME_DIST;
      case NTILE -> WindowFunction.Kind.NTILE;
      case LAG -> WindowFunction.Kind.LAG;
      case LEAD -> WindowFunction.Kind.LEAD;
      case FIRST_VALUE -> WindowFunction.Kind.FIRST_VALUE;
      case LAST_VALUE -> WindowFunction.Kind.LAST_VALUE;
      case NTH_VALUE -> WindowFunction.Kind.NTH_VALUE;
      case SUM0 -> WindowFunction.Kind.SUM0;
      // An aggregate over a window: the registry's function, run on the typed kernel it names.
      default -> FunctionOperators.registry().lookupAggregate(name)
          .flatMap(dev.lake.exec.fn.AggregateFunction::kernel)
          .map(k -> switch (k) {
            case COUNT -> WindowFunction.Kind.COUNT;
            case SUM -> WindowFunction.Kind.SUM;
            case AVG -> WindowFunction.Kind.AVG;
            case MIN -> WindowFunction.Kind.MIN;
            case MAX -> WindowFunction.Kind.MAX;
          })
          .orElseThrow(() -> RexToExpr.unsupported("window function " + name));
    };
    SqlType type = RelTypes.toLake(call.getType());
    List<RexNode> operands = call.getOperands();
    if (kind == WindowFunction.Kind.COUNT && operands.size() > 1) {
      throw RexToExpr.unsupported("count of several values OVER a window");
    }
    int[] args = new int[operands.size()];
    List<Object> constants = new ArrayList<>();
    for (int i = 0; i < operands.size(); i++) {
      RexNode operand = operands.get(i);
      if (operand instanceof RexInputRef ref && ref.getIndex() < inputCount) {
        SqlType t = in.types().get(ref.getIndex());
        if (t == null) {
          throw RexToExpr.wholeValue(name + "(" + in.names().get(ref.getIndex()) + ") OVER a window",
              operand.getType());
        }
        if (carriesValue(kind, i) && !sameRepresentation(t, type)) {
          throw new SqlException(SqlException.Kind.INVALID, name + ": argument " + (i + 1) + " ("
              + in.names().get(ref.getIndex()) + ", " + t + ") does not have the result's type " + type);
        }
        args[i] = ref.getIndex();
        constants.add(null);
        continue;
      }
      RexLiteral literal = constant(operand);
      if (literal == null) {
        throw RexToExpr.unsupported(name + " with argument " + operand);
      }
      if (carriesValue(kind, i) && !literal.isNull()
          && SqlTypeUtil.isCharacter(literal.getType()) != (type.kind() == SqlType.Kind.UTF8)) {
        throw new SqlException(SqlException.Kind.INVALID, name + ": argument " + (i + 1) + " ("
            + literal + ") does not have the result's type " + type);
      }
      args[i] = -1;
      boolean count = i == 1 && (kind == WindowFunction.Kind.LAG || kind == WindowFunction.Kind.LEAD
          || kind == WindowFunction.Kind.NTH_VALUE) || kind == WindowFunction.Kind.NTILE;
      SqlType target = count ? SqlType.of(SqlType.Kind.INT64, true)
          : kind.usesFrame() && kind != WindowFunction.Kind.FIRST_VALUE && kind != WindowFunction.Kind.LAST_VALUE
              && kind != WindowFunction.Kind.NTH_VALUE ? RelTypes.toLake(literal.getType()) : type;
      constants.add(RexToExpr.literal(literal, target).value());
    }
    if (call.ignoreNulls && !kind.skipsNulls()) {
      throw new SqlException(SqlException.Kind.INVALID, name + "(...) IGNORE NULLS: only lag, lead,"
          + " first_value, last_value and nth_value take IGNORE NULLS");
    }
    return new WindowFunction(kind, args, constants, type, call.ignoreNulls);
  }
}
