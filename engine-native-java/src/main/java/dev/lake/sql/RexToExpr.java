package dev.lake.sql;

import dev.lake.exec.Batch;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.Kernel;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;

/**
 * Translates Calcite row expressions over one input into lake's {@link Expr}, inserting the casts
 * the kernels need (comparison operands of one type, float or decimal arithmetic on like
 * operands) and folding constant subtrees, so {@code DATE '1998-12-01' - INTERVAL '90' DAY}
 * becomes one date literal.
 */
final class RexToExpr {
  private static final SqlType BOOL = SqlType.of(SqlType.Kind.BOOL, true);
  private static final SqlType INT64 = SqlType.of(SqlType.Kind.INT64, true);
  private static final SqlType FLOAT64 = SqlType.of(SqlType.Kind.FLOAT64, true);
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private final RexBuilder rexBuilder;
  private final List<SqlType> types;
  private final List<String> names;
  private final List<Expr.Literal> parameters;

  RexToExpr(RexBuilder rexBuilder, List<SqlType> types, List<String> names) {
    this(rexBuilder, types, names, List.of());
  }

  /** @param parameters the value bound to each {@code ?}, by index, each a literal of its type */
  RexToExpr(RexBuilder rexBuilder, List<SqlType> types, List<String> names, List<Expr.Literal> parameters) {
    this.rexBuilder = rexBuilder;
    this.types = types;
    this.names = names;
    this.parameters = parameters;
  }

  /** The value bound to a {@code ?}. */
  static Expr.Literal parameter(List<Expr.Literal> parameters, org.apache.calcite.rex.RexDynamicParam param) {
    if (param.getIndex() >= parameters.size()) {
      throw new SqlException(SqlException.Kind.INVALID, "parameter " + (param.getIndex() + 1) + " has no value");
    }
    return parameters.get(param.getIndex());
  }

  Expr convert(RexNode rex) {
    return conv(RexUtil.expandSearch(rexBuilder, null, rex));
  }

  private Expr conv(RexNode rex) {
    return switch (rex) {
      case RexInputRef ref -> {
        SqlType t = types.get(ref.getIndex());
        if (t == null) {
          throw wholeValue("column " + names.get(ref.getIndex()), ref.getType());
        }
        yield new Expr.Column(ref.getIndex(), names.get(ref.getIndex()), t);
      }
      case RexFieldAccess access -> nested(access, Expr.Reach.VALUE);
      case RexLiteral literal -> literal(literal, RelTypes.toLake(literal.getType()));
      case org.apache.calcite.rex.RexDynamicParam param -> parameter(parameters, param);
      case RexCall call -> fold(call(call));
      default -> throw unsupported(rex.toString());
    };
  }

  // ---------------------------------------------------------------- struct and list values

  /** Whether values of {@code type} are structs or lists, which the engine only passes through. */
  static boolean isNested(RelDataType type) {
    return type.isStruct() || type.getSqlTypeName() == SqlTypeName.ARRAY;
  }

  /** Whether {@code type} is a list of scalars (what list functions take). */
  static boolean isScalarList(RelDataType type) {
    return type.getSqlTypeName() == SqlTypeName.ARRAY
        && !isNested(java.util.Objects.requireNonNull(type.getComponentType()));
  }

  /**
   * The refusal of a struct or list value (or one of a type the engine cannot compute with) where
   * a scalar is needed: comparisons, arithmetic, functions, grouping, sorting, join keys.
   */
  static SqlException wholeValue(String what, RelDataType type) {
    if (!isNested(type)) {
      return new SqlException(SqlException.Kind.UNSUPPORTED, what + " of type "
          + type.getFullTypeString() + " can only be passed through, not computed with");
    }
    return new SqlException(SqlException.Kind.INVALID, what + " is a " + (type.isStruct() ? "struct" : "list")
        + " value (" + describe(type) + "); struct and list values can only be selected"
        + " whole, counted or tested with IS [NOT] NULL: compare, compute, group or sort with a field"
        + " (video.uri), an element (embedding[1]) or cardinality(embedding) instead");
  }

  /** A type as SQL spells it, structs as {@code STRUCT<name TYPE, ...>}, lists as {@code TYPE ARRAY}. */
  static String describe(RelDataType type) {
    if (type.isStruct()) {
      return "STRUCT<" + String.join(", ", type.getFieldList().stream()
          .map(f -> f.getName() + " " + describe(f.getType())).toList()) + ">";
    }
    if (type.getSqlTypeName() == SqlTypeName.ARRAY) {
      return describe(java.util.Objects.requireNonNull(type.getComponentType())) + " ARRAY";
    }
    return type.toString();
  }

  /**
   * {@code rex}, a field or element of a struct or list column (or, for {@code IS_NULL}, such a
   * column itself), as one {@link Expr.Nested}.
   *
   * @throws SqlException INVALID when {@code rex} is not such a path, when a value is asked of a
   *     struct or list, or the cardinality of something that is not a list
   */
  private Expr nested(RexNode rex, Expr.Reach reach) {
    Expr.Nested path = path(rex);
    if (path == null) {
      throw new SqlException(SqlException.Kind.INVALID, "cannot take a field or element of " + rex
          + ": only struct fields (video.uri) and list elements (embedding[1]) of a table's"
          + " columns are supported");
    }
    RelDataType type = rex.getType();
    SqlType result = switch (reach) {
      case IS_NULL -> SqlType.of(SqlType.Kind.BOOL, false);
      case CARDINALITY -> {
        if (type.getSqlTypeName() != SqlTypeName.ARRAY) {
          throw new SqlException(SqlException.Kind.INVALID, "cardinality(" + path.describe()
              + ") needs a list, but " + path.describe() + " is " + describe(type));
        }
        yield SqlType.of(SqlType.Kind.INT32, true);
      }
      case VALUE -> {
        if (isNested(type)) {
          throw wholeValue(path.describe(), type);
        }
        yield RelTypes.toLake(type).withNullable(true);
      }
    };
    return new Expr.Nested(path.column(), path.name(), path.path(), reach, result);
  }

  /**
   * A struct or list value {@code rex} (a field or element of a column, not the column itself)
   * that a projection passes through whole.
   */
  Expr.Nested nestedPassThrough(RexNode rex) {
    Expr.Nested path = path(rex);
    if (path == null) {
      throw wholeValue(rex.toString(), rex.getType());
    }
    return path;
  }

  /**
   * The chain of struct fields and list elements from a struct or list column of the input to
   * {@code rex}, as a {@link Expr.Nested} returning the value (of no scalar type), or null when
   * {@code rex} is not such a chain.
   */
  private Expr.Nested path(RexNode rex) {
    return switch (rex) {
      case RexInputRef ref when types.get(ref.getIndex()) == null && isNested(ref.getType()) ->
          new Expr.Nested(ref.getIndex(), names.get(ref.getIndex()), List.of(), Expr.Reach.VALUE, PASS_THROUGH);
      case RexFieldAccess access -> then(path(access.getReferenceExpr()),
          new Expr.Step.Member(access.getField().getIndex(), access.getField().getName()));
      case RexCall call when call.getKind() == SqlKind.ITEM -> {
        RexNode container = call.getOperands().get(0);
        RexNode index = call.getOperands().get(1);
        Expr.Nested base = path(container);
        if (base == null) {
          yield null;
        }
        if (container.getType().getSqlTypeName() == SqlTypeName.ARRAY) {
          Expr k = conv(index);
          if (!k.type().isInteger() && k.type().kind() != SqlType.Kind.NULL) {
            throw new SqlException(SqlException.Kind.INVALID, "the index of " + base.describe()
                + "[...] must be an integer, not " + k.type());
          }
          yield then(base, new Expr.Step.Element(cast(k, INT64)));
        }
        if (container.getType().isStruct() && index instanceof RexLiteral literal) {
          var field = literal.getValue2() instanceof String name
              ? container.getType().getField(name, true, false)
              : container.getType().getFieldList().get(literal.getValueAs(Integer.class) - 1);
          yield field == null ? null : then(base, new Expr.Step.Member(field.getIndex(), field.getName()));
        }
        yield null;
      }
      default -> null;
    };
  }

  /** Whether {@code rex} is a struct or list column of the input, or a field or element inside one. */
  boolean isPath(RexNode rex) {
    return path(rex) != null;
  }

  private static Expr.Nested then(Expr.Nested base, Expr.Step step) {
    if (base == null) {
      return null;
    }
    List<Expr.Step> path = new ArrayList<>(base.path());
    path.add(step);
    return new Expr.Nested(base.column(), base.name(), path, Expr.Reach.VALUE, PASS_THROUGH);
  }

  /** The "type" of a struct or list value a projection passes through. */
  static final SqlType PASS_THROUGH = SqlType.of(SqlType.Kind.NULL, true);

  static SqlException unsupported(String what) {
    return new SqlException(SqlException.Kind.UNSUPPORTED, what + " is not supported yet");
  }

  static Expr.Literal literal(RexLiteral literal, SqlType type) {
    if (literal.isNull()) {
      return new Expr.Literal(null, type);
    }
    Object value = switch (type.kind()) {
      case NULL -> null;
      case BOOL -> literal.getValueAs(Boolean.class);
      case INT8, INT16, INT32, INT64 -> literal.getValueAs(BigDecimal.class).longValueExact();
      case FLOAT32, FLOAT64 -> literal.getValueAs(BigDecimal.class) != null
          ? literal.getValueAs(BigDecimal.class).doubleValue() : literal.getValueAs(Double.class);
      case DECIMAL -> literal.getValueAs(BigDecimal.class).setScale(type.scale(), java.math.RoundingMode.HALF_UP);
      case UTF8 -> literal.getValueAs(String.class);
      case DATE -> (long) literal.getValueAs(DateString.class).getDaysSinceEpoch();
      case TIMESTAMP -> {
        LocalDateTime t = LocalDateTime.parse(literal.getValueAs(TimestampString.class).toString().replace(' ', 'T'));
        yield t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000;
      }
      case LIST -> throw unsupported("a list literal of this form");
    };
    return new Expr.Literal(value, type);
  }

  private Expr call(RexCall call) {
    SqlKind kind = call.getKind();
    List<RexNode> ops = call.getOperands();
    return switch (kind) {
      case AND, OR -> new Expr.Call(kind == SqlKind.AND ? Expr.Op.AND : Expr.Op.OR,
          ops.stream().map(this::conv).toList(), BOOL);
      case NOT -> new Expr.Call(Expr.Op.NOT, List.of(conv(ops.get(0))), BOOL);
      case IS_NULL, IS_NOT_NULL -> {
        if (path(ops.get(0)) != null) {
          Expr isNull = nested(ops.get(0), Expr.Reach.IS_NULL);
          yield kind == SqlKind.IS_NULL ? isNull
              : new Expr.Call(Expr.Op.NOT, List.of(isNull), SqlType.of(SqlType.Kind.BOOL, false));
        }
        yield new Expr.Call(kind == SqlKind.IS_NULL ? Expr.Op.IS_NULL : Expr.Op.IS_NOT_NULL,
            List.of(conv(ops.get(0))), SqlType.of(SqlType.Kind.BOOL, false));
      }
      case ITEM -> path(ops.get(0)) == null && isScalarList(ops.get(0).getType())
          ? listCall(dev.lake.exec.fn.ListFunctions.LIST_EXTRACT, call) : nested(call, Expr.Reach.VALUE);
      case ARRAY_VALUE_CONSTRUCTOR -> listCall(dev.lake.exec.fn.ListFunctions.LIST_VALUE, call);
      case IS_TRUE -> truth(conv(ops.get(0)), true, true);
      case IS_NOT_TRUE -> truth(conv(ops.get(0)), true, false);
      case IS_FALSE -> truth(new Expr.Call(Expr.Op.NOT, List.of(conv(ops.get(0))), BOOL), true, true);
      case IS_NOT_FALSE -> truth(new Expr.Call(Expr.Op.NOT, List.of(conv(ops.get(0))), BOOL), true, false);
      case EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL ->
          compare(kind, conv(ops.get(0)), conv(ops.get(1)));
      case IS_DISTINCT_FROM, IS_NOT_DISTINCT_FROM -> {
        Expr a = conv(ops.get(0));
        Expr b = conv(ops.get(1));
        Expr eq = compare(SqlKind.EQUALS, a, b);
        Expr bothNull = new Expr.Call(Expr.Op.AND, List.of(isNull(a), isNull(b)), BOOL);
        Expr anyNull = new Expr.Call(Expr.Op.OR, List.of(isNull(a), isNull(b)), BOOL);
        Expr same = new Expr.Case(List.of(bothNull, anyNull), List.of(bool(true), bool(false)),
            truth(eq, true, true), SqlType.of(SqlType.Kind.BOOL, false));
        yield kind == SqlKind.IS_NOT_DISTINCT_FROM ? same
            : new Expr.Call(Expr.Op.NOT, List.of(same), SqlType.of(SqlType.Kind.BOOL, false));
      }
      case PLUS, MINUS, TIMES, DIVIDE, MOD -> arithmetic(call);
      case OTHER_FUNCTION, OTHER -> call.getOperator().getName().equals("DATETIME_PLUS") || call.getOperator().getName().equals("+")
          ? arithmetic(call) : function(call);
      case MINUS_PREFIX -> {
        Expr a = conv(ops.get(0));
        yield new Expr.Call(Expr.Op.NEG, List.of(a), a.type());
      }
      case PLUS_PREFIX -> conv(ops.get(0));
      case CAST -> castLiteral(conv(ops.get(0)), RelTypes.toLake(call.getType()));
      case CASE -> {
        SqlType type = RelTypes.toLake(call.getType());
        List<Expr> whens = new ArrayList<>();
        List<Expr> thens = new ArrayList<>();
        for (int i = 0; i + 1 < ops.size(); i += 2) {
          whens.add(conv(ops.get(i)));
          thens.add(cast(conv(ops.get(i + 1)), type));
        }
        yield new Expr.Case(whens, thens, cast(conv(ops.getLast()), type), type);
      }
      case COALESCE -> {
        SqlType type = RelTypes.toLake(call.getType());
        Expr result = cast(conv(ops.getLast()), type);
        for (int i = ops.size() - 2; i >= 0; i--) {
          Expr a = conv(ops.get(i));
          result = new Expr.Case(List.of(new Expr.Call(Expr.Op.IS_NOT_NULL, List.of(a), BOOL)),
              List.of(cast(a, type)), result, type);
        }
        yield result;
      }
      case LIKE -> {
        boolean constant = ops.subList(1, ops.size()).stream()
            .allMatch(o -> o instanceof RexLiteral || o instanceof org.apache.calcite.rex.RexDynamicParam);
        if (!constant) {
          throw unsupported("LIKE with a pattern that is not a constant");
        }
        String pattern = constantString(ops.get(1));
        String escapeText = ops.size() > 2 ? constantString(ops.get(2)) : null;
        if (pattern == null || ops.size() > 2 && escapeText == null) {
          yield new Expr.Literal(null, BOOL);
        }
        if (escapeText != null && escapeText.length() != 1) {
          throw new SqlException(SqlException.Kind.INVALID, "the ESCAPE of LIKE must be one character, not '"
              + (escapeText.length() > 8 ? escapeText.substring(0, 8) + "..." : escapeText) + "'");
        }
        Character escape = escapeText == null ? null : escapeText.charAt(0);
        boolean negated = call.getOperator() instanceof SqlLikeOperator like && like.isNegated();
        yield new Expr.Like(conv(ops.get(0)), pattern, escape, negated, BOOL);
      }
      case EXTRACT -> {
        TimeUnitRange unit = ((RexLiteral) ops.get(0)).getValueAs(TimeUnitRange.class);
        Expr.Op op = switch (unit) {
          case YEAR -> Expr.Op.EXTRACT_YEAR;
          case MONTH -> Expr.Op.EXTRACT_MONTH;
          case DAY -> Expr.Op.EXTRACT_DAY;
          default -> throw unsupported("EXTRACT(" + unit + ")");
        };
        yield new Expr.Call(op, List.of(conv(ops.get(1))), INT64);
      }
      default -> function(call);
    };
  }

  /** The text of a literal or bound parameter, or null for NULL. */
  private String constantString(RexNode node) {
    return node instanceof RexLiteral literal ? literal.getValueAs(String.class)
        : (String) parameter(parameters, (org.apache.calcite.rex.RexDynamicParam) node).value();
  }

  private Expr function(RexCall call) {
    String name = call.getOperator().getName().toUpperCase(java.util.Locale.ROOT);
    if (name.equals("CARDINALITY")) {
      RexNode list = call.getOperands().getFirst();
      return path(list) == null && isScalarList(list.getType())
          ? listCall(dev.lake.exec.fn.ListFunctions.CARDINALITY, call)
          : nested(list, Expr.Reach.CARDINALITY);
    }
    if (call.getOperator() instanceof FunctionOperators.Operator op) {
      return registryCall(op.function, call);
    }
    throw unsupported("function " + call.getOperator().getName());
  }

  /**
   * A call of a registry function: the arguments converted to the signature the registry matches
   * (the validator checked that one does), the result of the type the validator derived.
   */
  private Expr registryCall(dev.lake.exec.fn.ScalarFunction function, RexCall call) {
    List<Expr> args = call.getOperands().stream().map(this::operand).toList();
    dev.lake.exec.fn.FunctionRegistry.Resolution r = dev.lake.exec.fn.FunctionRegistry.resolve(function,
        dev.lake.exec.fn.Binding.of(args.stream().map(Expr::type).toList())).orElseThrow(() ->
            new SqlException(SqlException.Kind.INVALID, "function " + function.name() + " cannot take "
                + args.stream().map(a -> a.type().toString()).toList() + "; it takes "
                + dev.lake.exec.fn.FunctionRegistry.describeSignatures(function)));
    List<Expr> converted = new ArrayList<>(args.size());
    for (int i = 0; i < args.size(); i++) {
      converted.add(cast(args.get(i), r.binding().type(i)));
    }
    return new Expr.Func(function, r.binding(), converted, RelTypes.toLake(call.getType()));
  }

  /**
   * An argument of a function: a list column (or a list inside one) is read where it lies, as a
   * {@link Expr.Nested} of its list type; anything else is an ordinary expression.
   */
  private Expr operand(RexNode rex) {
    if (isScalarList(rex.getType())) {
      Expr.Nested p = path(rex);
      if (p != null) {
        return new Expr.Nested(p.column(), p.name(), p.path(), Expr.Reach.VALUE,
            RelTypes.toLake(rex.getType()).withNullable(true));
      }
    }
    return conv(rex);
  }

  /** A list-valued expression over the input, list columns read where they lie. */
  Expr listValue(RexNode rex) {
    return operand(rex);
  }

  /** A call Calcite writes as an operator ({@code ARRAY[...]}, {@code list[i]}) run by a list function. */
  private Expr listCall(dev.lake.exec.fn.ScalarFunction function, RexCall call) {
    return registryCall(function, call);
  }

  private static Expr isNull(Expr e) {
    return new Expr.Call(Expr.Op.IS_NULL, List.of(e), SqlType.of(SqlType.Kind.BOOL, false));
  }

  private static boolean textAgainstNumber(Expr text, Expr other) {
    if (text.type().kind() != SqlType.Kind.UTF8 || !other.type().isNumeric()) {
      return false;
    }
    if (text instanceof Expr.Literal l && l.value() instanceof String v) {
      try {
        new BigDecimal(v.trim());
        return false;
      } catch (NumberFormatException e) {
        return true;
      }
    }
    return true;
  }

  private static Expr.Literal bool(boolean v) {
    return new Expr.Literal(v, SqlType.of(SqlType.Kind.BOOL, false));
  }

  /** TRUE when {@code e} is TRUE (never unknown): {@code IS TRUE}, or its negation. */
  private static Expr truth(Expr e, boolean whenTrue, boolean positive) {
    return new Expr.Case(List.of(e), List.of(bool(positive == whenTrue)), bool(positive != whenTrue),
        SqlType.of(SqlType.Kind.BOOL, false));
  }

  private Expr compare(SqlKind kind, Expr a, Expr b) {
    if (textAgainstNumber(a, b) || textAgainstNumber(b, a)) {
      // PostgreSQL has no comparison of text with a number (a literal that reads as one is one).
      throw new SqlException(SqlException.Kind.INVALID, "cannot compare " + a.type() + " with "
          + b.type() + " by " + kind.sql + "; cast one side");
    }
    SqlType common = common(a.type(), b.type());
    Expr.Op op = switch (kind) {
      case EQUALS -> Expr.Op.EQ;
      case NOT_EQUALS -> Expr.Op.NE;
      case LESS_THAN -> Expr.Op.LT;
      case LESS_THAN_OR_EQUAL -> Expr.Op.LE;
      case GREATER_THAN -> Expr.Op.GT;
      default -> Expr.Op.GE;
    };
    return new Expr.Call(op, List.of(cast(a, common), cast(b, common)), BOOL);
  }

  /** The type two operands are compared (or joined) in. */
  static SqlType common(SqlType a, SqlType b) {
    if (a.kind() == b.kind() && a.kind() != SqlType.Kind.DECIMAL) {
      return a;
    }
    if (a.kind() == SqlType.Kind.NULL) {
      return b;
    }
    if (b.kind() == SqlType.Kind.NULL) {
      return a;
    }
    if (a.isInteger() && b.isInteger()) {
      return INT64;
    }
    if (a.isFloat() || b.isFloat()) {
      if (a.isNumeric() && b.isNumeric()) {
        return FLOAT64;
      }
    }
    if (a.isNumeric() && b.isNumeric()) {
      int scale = Math.max(a.scale(), b.scale());
      return SqlType.decimal(SqlType.MAX_DECIMAL_PRECISION, scale, true);
    }
    boolean aTime = a.kind() == SqlType.Kind.DATE || a.kind() == SqlType.Kind.TIMESTAMP;
    boolean bTime = b.kind() == SqlType.Kind.DATE || b.kind() == SqlType.Kind.TIMESTAMP;
    if (aTime && bTime) {
      return SqlType.of(SqlType.Kind.TIMESTAMP, true);
    }
    if (a.kind() == SqlType.Kind.UTF8) {
      return b;
    }
    if (b.kind() == SqlType.Kind.UTF8) {
      return a;
    }
    throw new SqlException(SqlException.Kind.INVALID, "cannot compare " + a + " with " + b);
  }

  static Expr cast(Expr e, SqlType to) {
    SqlType from = e.type();
    if (from.kind() == to.kind() && (to.kind() != SqlType.Kind.DECIMAL || from.scale() == to.scale())) {
      return e;
    }
    if (from.isInteger() && to.isInteger() && to.kind() == SqlType.Kind.INT64) {
      return e;
    }
    return fold(new Expr.Cast(e, to.withNullable(from.nullable() || to.nullable())));
  }

  private Expr arithmetic(RexCall call) {
    RexNode x = call.getOperands().get(0);
    RexNode y = call.getOperands().get(1);
    boolean xInterval = SqlTypeUtil.isInterval(x.getType());
    boolean yInterval = SqlTypeUtil.isInterval(y.getType());
    SqlKind kind = call.getKind();
    if (xInterval || yInterval) {
      return dateArithmetic(kind, xInterval ? y : x, xInterval ? x : y);
    }
    if (DateArithmetic.dateResult(kind, x.getType(), y.getType(), rexBuilder.getTypeFactory()) != null) {
      return daysArithmetic(kind, conv(x), conv(y), RelTypes.toLake(call.getType()));
    }
    SqlType type = RelTypes.toLake(call.getType());
    Expr a = conv(x);
    Expr b = conv(y);
    Expr.Op op = switch (kind) {
      case PLUS -> Expr.Op.ADD;
      case MINUS -> Expr.Op.SUB;
      case TIMES -> Expr.Op.MUL;
      case DIVIDE -> Expr.Op.DIV;
      default -> Expr.Op.MOD;
    };
    if (type.isFloat() || type.kind() == SqlType.Kind.DECIMAL) {
      SqlType operand = type.isFloat() ? type : SqlType.decimal(SqlType.MAX_DECIMAL_PRECISION,
          Math.max(a.type().scale(), b.type().scale()), true);
      if (type.kind() == SqlType.Kind.DECIMAL && (a.type().isFloat() || b.type().isFloat())) {
        operand = FLOAT64;
        type = FLOAT64;
      }
      a = cast(a, operand);
      b = cast(b, operand);
    } else if (!type.isInteger()) {
      throw new SqlException(SqlException.Kind.INVALID, "cannot compute " + call + " of type " + type);
    } else {
      if (op == Expr.Op.MOD && a.type().isInteger() && b.type().isInteger()) {
        // PostgreSQL: the wider operand's type (Calcite types MOD as its divisor).
        SqlType.Kind wide = a.type().kind().compareTo(b.type().kind()) >= 0 ? a.type().kind() : b.type().kind();
        type = SqlType.of(wide, type.nullable());
      }
      // An untyped NULL operand (mod(NULL, 3)) takes the result's integer type.
      a = a.type().kind() == SqlType.Kind.NULL ? cast(a, type) : a;
      b = b.type().kind() == SqlType.Kind.NULL ? cast(b, type) : b;
    }
    return new Expr.Call(op, List.of(a, b), type);
  }

  /**
   * PostgreSQL's {@code date - date} (INTEGER days) and {@code date ± integer} (DATE): a DATE is
   * its day number, so both are integer arithmetic on it.
   */
  private static Expr daysArithmetic(SqlKind kind, Expr a, Expr b, SqlType type) {
    Expr.Op op = kind == SqlKind.PLUS ? Expr.Op.ADD : Expr.Op.SUB;
    if (type.kind() == SqlType.Kind.DATE) {
      Expr date = a.type().kind() == SqlType.Kind.DATE ? a : b;
      Expr days = date == a ? b : a;
      return new Expr.Call(op, List.of(date, cast(days, SqlType.of(SqlType.Kind.INT64, days.type().nullable()))), type);
    }
    return new Expr.Call(op, List.of(a, b), type);
  }

  private Expr dateArithmetic(SqlKind kind, RexNode datetime, RexNode interval) {
    if (!(interval instanceof RexLiteral literal)) {
      throw unsupported("interval arithmetic with a non-constant interval");
    }
    boolean minus = kind == SqlKind.MINUS;
    BigDecimal amount = literal.getValueAs(BigDecimal.class);
    boolean months = interval.getType().getSqlTypeName().getFamily() == SqlTypeFamily.INTERVAL_YEAR_MONTH;
    Expr base = conv(datetime);
    long n = amount.longValueExact() * (minus ? -1 : 1);
    if (base instanceof Expr.Literal l && l.value() != null) {
      long v = (Long) l.value();
      if (base.type().kind() == SqlType.Kind.DATE) {
        LocalDate d = LocalDate.ofEpochDay(v);
        d = months ? d.plusMonths(n) : d.plusDays(Math.floorDiv(n, 86_400_000L));
        return new Expr.Literal(d.toEpochDay(), base.type());
      }
      if (base.type().kind() == SqlType.Kind.TIMESTAMP) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(v, 1_000_000L),
            (int) Math.floorMod(v, 1_000_000L) * 1000, ZoneOffset.UTC);
        t = months ? t.plusMonths(n) : t.plusNanos(n * 1_000_000L);
        return new Expr.Literal(t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000, base.type());
      }
    }
    if (base.type().kind() != SqlType.Kind.DATE && base.type().kind() != SqlType.Kind.TIMESTAMP) {
      throw new SqlException(SqlException.Kind.INVALID, "cannot add an interval to " + base.type());
    }
    if (months) {
      // PostgreSQL's end-of-month rule: Jan 31 + 1 month is the last day of February.
      return new Expr.Func(dev.lake.exec.fn.DateTimeFunctions.PLUS_MONTHS,
          dev.lake.exec.fn.Binding.of(List.of(base.type(), INT64)),
          List.of(base, new Expr.Literal(n, SqlType.of(SqlType.Kind.INT64, false))), base.type());
    }
    long delta = base.type().kind() == SqlType.Kind.DATE ? Math.floorDiv(n, 86_400_000L) : n * 1000;
    return new Expr.Call(Expr.Op.ADD, List.of(base, new Expr.Literal(delta, INT64)), base.type());
  }

  private static final Batch ONE_ROW = new Batch(new VectorSchemaRoot(List.of(), List.of(), 1), null, 1);

  /** Evaluates {@code e} now when it reads no column; errors are left for run time. */
  /**
   * {@link #cast}; a string constant that is not a value of the target type is refused while
   * planning ({@code CAST('x' AS DATE)}), as PostgreSQL types a literal when it reads the query.
   */
  private static Expr castLiteral(Expr e, SqlType to) {
    Expr cast = cast(e, to);
    if (cast != e && e instanceof Expr.Literal l && l.value() instanceof String && !(cast instanceof Expr.Literal)) {
      try {
        Kernel.compile(cast).eval(ONE_ROW);
      } catch (ExecutionException ex) {
        throw new SqlException(SqlException.Kind.INVALID, ex.getMessage(), 0, 0, ex);
      }
    }
    return cast;
  }

  static Expr fold(Expr e) {
    if (e instanceof Expr.Literal
        || e.anyMatch(x -> x instanceof Expr.Column || x instanceof Expr.Agg || x instanceof Expr.Nested)) {
      return e;
    }
    try {
      Object value = Kernel.compile(e).eval(ONE_ROW).get(0);
      return new Expr.Literal(value, e.type());
    } catch (ExecutionException | ClassCastException | ArithmeticException ex) {
      return e;
    }
  }
}
