package dev.lake.sql;

import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSnapshot;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.validate.SqlValidator;

/**
 * The dynamic parameters ({@code ?}) of a statement: finding them in the parse tree, their types
 * after validation, and the values bound to them, converted to those types.
 *
 * <p>Parameters are numbered 1, 2, ... in the order their {@code ?} appear in the text (Calcite
 * numbers them from 0; messages use the 1-based position). A value converts to its parameter's
 * type only when nothing is lost: integers of any width to an integer type that holds the value,
 * and to decimal and floating-point types; decimals to a decimal type when they fit its precision
 * and scale exactly (no rounding), to integer types when they are whole, and to floating-point
 * types; floating-point values to floating-point and (when exact at its scale) decimal types;
 * dates to DATE and TIMESTAMP (midnight UTC); timestamps to TIMESTAMP, and to DATE when they are
 * exactly midnight; strings only to VARCHAR; booleans only to BOOLEAN; NULL to every type. A
 * string is never parsed as a number or date: bind the typed value.
 */
final class Parameters {
  private Parameters() {}

  /** The longest excerpt of a value quoted in a message. */
  static final int EXCERPT = 64;

  /** Whether the statement has a {@code ?} anywhere. */
  static boolean present(SqlNode statement) {
    boolean[] found = {false};
    statement.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlDynamicParam param) {
        found[0] = true;
        return null;
      }
    });
    return found[0];
  }

  /** The validated type of each {@code ?} in {@code validated}, by Calcite's 0-based index. */
  static Map<Integer, RelDataType> types(SqlValidator validator, SqlNode validated) {
    Map<Integer, RelDataType> types = new TreeMap<>();
    validated.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlDynamicParam param) {
        RelDataType type = validator.getValidatedNodeTypeIfKnown(param);
        if (type != null) {
          types.put(param.getIndex(), type);
        }
        return null;
      }
    });
    return types;
  }

  /**
   * Rewrites each {@code t FOR VERSION AS OF ?} in {@code tree} (in place): with {@code values}
   * null to plain {@code t} (planned at its pinned or current version, which is enough to type the
   * statement), else to {@code t FOR VERSION AS OF <the bound version>}.
   *
   * @return the 0-based indices of the parameters that were versions
   * @throws SqlException INVALID if a bound version is NULL, negative or not an integer
   */
  static Set<Integer> bindVersions(SqlNode tree, List<?> values) {
    Set<Integer> indices = new TreeSet<>();
    rewrite(tree, values, indices);
    return indices;
  }

  private static void rewrite(SqlNode node, List<?> values, Set<Integer> indices) {
    if (node instanceof SqlNodeList list) {
      for (int i = 0; i < list.size(); i++) {
        SqlNode child = list.get(i);
        SqlNode replaced = versioned(child, values, indices);
        if (replaced != child) {
          list.set(i, replaced);
        } else if (child != null) {
          rewrite(child, values, indices);
        }
      }
    } else if (node instanceof SqlCall call) {
      List<SqlNode> operands = call.getOperandList();
      for (int i = 0; i < operands.size(); i++) {
        SqlNode child = operands.get(i);
        SqlNode replaced = versioned(child, values, indices);
        if (replaced != child) {
          call.setOperand(i, replaced);
        } else if (child != null) {
          rewrite(child, values, indices);
        }
      }
    }
  }

  private static SqlNode versioned(SqlNode node, List<?> values, Set<Integer> indices) {
    if (!(node instanceof SqlSnapshot snapshot) || !(snapshot.getPeriod() instanceof SqlDynamicParam param)) {
      return node;
    }
    int index = param.getIndex();
    indices.add(index);
    if (values == null) {
      return snapshot.getTableRef();
    }
    if (index >= values.size()) {
      throw count(index + 1, values.size());
    }
    long version = version(index, values.get(index));
    return new SqlSnapshot(snapshot.getParserPosition(), snapshot.getTableRef(),
        SqlLiteral.createExactNumeric(Long.toString(version), param.getParserPosition()));
  }

  /** The version bound to the parameter at 0-based {@code index} of a {@code FOR VERSION AS OF ?}. */
  static long version(int index, Object value) {
    SqlType bigint = SqlType.of(SqlType.Kind.INT64, true);
    if (value == null) {
      throw new SqlException(SqlException.Kind.INVALID, "parameter " + (index + 1)
          + " (FOR VERSION AS OF) must be a version number, not NULL");
    }
    long version = (Long) convert(index, bigint, value).value();
    if (version < 0) {
      throw new SqlException(SqlException.Kind.INVALID, "parameter " + (index + 1)
          + " (FOR VERSION AS OF) must be a version number >= 0, not " + version);
    }
    return version;
  }

  /** The Arrow schema of parameters of these types: one nullable field {@code parameter_i} each. */
  static Schema schema(List<SqlType> types) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      fields.add(new Field("parameter_" + (i + 1), FieldType.nullable(types.get(i).arrowType()), null));
    }
    return new Schema(fields);
  }

  /**
   * {@code values} as literals of {@code types}, in order.
   *
   * @throws SqlException INVALID when there are more or fewer values than parameters, or a value
   *     does not convert to its parameter's type (naming its position and the type)
   */
  static List<Expr.Literal> convert(List<SqlType> types, List<?> values) {
    if (values.size() != types.size()) {
      throw count(types.size(), values.size());
    }
    List<Expr.Literal> literals = new ArrayList<>(types.size());
    for (int i = 0; i < types.size(); i++) {
      literals.add(convert(i, types.get(i), values.get(i)));
    }
    return literals;
  }

  private static SqlException count(int expected, int given) {
    return new SqlException(SqlException.Kind.INVALID, "the statement has " + expected
        + (expected == 1 ? " parameter" : " parameters") + ", but " + given
        + (given == 1 ? " value was" : " values were") + " bound");
  }

  /** One value as a literal of the type of the parameter at 0-based {@code index}. */
  static Expr.Literal convert(int index, SqlType type, Object value) {
    SqlType nullable = type.withNullable(true);
    if (value == null) {
      return new Expr.Literal(null, nullable);
    }
    Object converted = switch (type.kind()) {
      case NULL -> null;
      case BOOL -> value instanceof Boolean b ? b : null;
      case INT8, INT16, INT32, INT64 -> integer(index, type, value);
      case FLOAT32, FLOAT64 -> switch (value) {
        case Float f -> (double) f;
        case Double d -> d;
        case Byte b -> (double) b;
        case Short s -> (double) s;
        case Integer i -> (double) i;
        case Long l -> (double) l;
        case BigInteger b -> b.doubleValue();
        case BigDecimal d -> d.doubleValue();
        default -> null;
      };
      case DECIMAL -> decimal(index, type, value);
      case UTF8 -> value instanceof String s ? s : null;
      case DATE -> date(value);
      case TIMESTAMP -> timestamp(value);
      case LIST -> list(index, type.element(), value);
    };
    if (converted == null) {
      throw mismatch(index, type, value);
    }
    return new Expr.Literal(converted, nullable);
  }

  /** A list (a {@link java.util.List}, or a Java array of numbers) with each element converted as a value. */
  private static java.util.List<Object> list(int index, SqlType element, Object value) {
    java.util.List<?> items = switch (value) {
      case java.util.List<?> l -> l;
      case float[] a -> {
        java.util.List<Object> l = new java.util.ArrayList<>(a.length);
        for (float x : a) {
          l.add(x);
        }
        yield l;
      }
      case double[] a -> java.util.Arrays.stream(a).boxed().toList();
      case int[] a -> java.util.Arrays.stream(a).boxed().toList();
      case long[] a -> java.util.Arrays.stream(a).boxed().toList();
      case Object[] a -> java.util.Arrays.asList(a);
      default -> null;
    };
    if (items == null) {
      return null;
    }
    java.util.List<Object> out = new java.util.ArrayList<>(items.size());
    for (Object item : items) {
      out.add(convert(index, element, item).value());
    }
    return out;
  }

  private static Long integer(int index, SqlType type, Object value) {
    BigInteger n = switch (value) {
      case Byte b -> BigInteger.valueOf(b);
      case Short s -> BigInteger.valueOf(s);
      case Integer i -> BigInteger.valueOf(i);
      case Long l -> BigInteger.valueOf(l);
      case BigInteger b -> b;
      case BigDecimal d -> whole(d);
      default -> null;
    };
    if (n == null) {
      return null;
    }
    if (n.compareTo(BigInteger.valueOf(type.minValue())) < 0
        || n.compareTo(BigInteger.valueOf(type.maxValue())) > 0) {
      throw new SqlException(SqlException.Kind.INVALID, "parameter " + (index + 1) + " expects "
          + type + ", but " + excerpt(n.toString()) + " is out of its range");
    }
    return n.longValue();
  }

  private static BigInteger whole(BigDecimal d) {
    try {
      return d.toBigIntegerExact();
    } catch (ArithmeticException e) {
      return null;
    }
  }

  private static BigDecimal decimal(int index, SqlType type, Object value) {
    BigDecimal d = switch (value) {
      case Byte b -> BigDecimal.valueOf(b);
      case Short s -> BigDecimal.valueOf(s);
      case Integer i -> BigDecimal.valueOf(i);
      case Long l -> BigDecimal.valueOf(l);
      case BigInteger b -> new BigDecimal(b);
      case BigDecimal b -> b;
      case Float f when Float.isFinite(f) -> new BigDecimal(Float.toString(f));
      case Double x when Double.isFinite(x) -> BigDecimal.valueOf(x);
      default -> null;
    };
    if (d == null) {
      return null;
    }
    BigDecimal scaled;
    try {
      scaled = d.setScale(type.scale(), RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new SqlException(SqlException.Kind.INVALID, "parameter " + (index + 1) + " expects "
          + type + ", but " + excerpt(d.toPlainString()) + " has more than " + type.scale()
          + " digits after the point");
    }
    if (scaled.precision() > type.precision() && scaled.signum() != 0) {
      throw new SqlException(SqlException.Kind.INVALID, "parameter " + (index + 1) + " expects "
          + type + ", but " + excerpt(d.toPlainString()) + " is out of its range");
    }
    return scaled;
  }

  private static Long date(Object value) {
    return switch (value) {
      case LocalDate d -> d.toEpochDay();
      case LocalDateTime t when t.toLocalTime().equals(LocalTime.MIDNIGHT) -> t.toLocalDate().toEpochDay();
      case Instant i when Math.floorMod(i.getEpochSecond(), 86_400L) == 0 && i.getNano() == 0 ->
          Math.floorDiv(i.getEpochSecond(), 86_400L);
      default -> null;
    };
  }

  private static Long timestamp(Object value) {
    Instant instant = switch (value) {
      case Instant i -> i;
      case LocalDateTime t -> t.toInstant(ZoneOffset.UTC);
      case OffsetDateTime t -> t.toInstant();
      case LocalDate d -> d.atStartOfDay(ZoneOffset.UTC).toInstant();
      default -> null;
    };
    if (instant == null) {
      return null;
    }
    try {
      return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
    } catch (ArithmeticException e) {
      return null;
    }
  }

  private static SqlException mismatch(int index, SqlType type, Object value) {
    return new SqlException(SqlException.Kind.INVALID, "parameter " + (index + 1) + " expects "
        + type + ", but was given " + describe(value));
  }

  /** A value as a message shows it: its SQL type and a bounded excerpt. */
  static String describe(Object value) {
    return switch (value) {
      case String s -> "the VARCHAR value '" + excerpt(s) + "'";
      case byte[] b -> "a VARBINARY value of " + b.length + " bytes";
      case Boolean b -> "the BOOLEAN value " + b;
      case Byte b -> "the TINYINT value " + b;
      case Short s -> "the SMALLINT value " + s;
      case Integer i -> "the INTEGER value " + i;
      case Long l -> "the BIGINT value " + l;
      case Float f -> "the REAL value " + f;
      case Double d -> "the DOUBLE value " + d;
      case BigInteger b -> "the integer " + excerpt(b.toString());
      case BigDecimal d -> "the DECIMAL value " + excerpt(d.toPlainString());
      case LocalDate d -> "the DATE value " + d;
      case Instant i -> "the TIMESTAMP value " + i;
      case LocalDateTime t -> "the TIMESTAMP value " + t;
      case OffsetDateTime t -> "the TIMESTAMP value " + t;
      default -> "a value of class " + value.getClass().getSimpleName();
    };
  }

  private static String excerpt(String s) {
    return s.length() <= EXCERPT ? s : s.substring(0, EXCERPT) + "... (" + s.length() + " characters)";
  }
}
