package dev.lake.exec;

import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The SQL type of a value the engine computes, with its Arrow mapping. Integers, dates (days) and
 * timestamps (microseconds, UTC) are all computed as {@code long}; floats as {@code double};
 * decimals as {@link java.math.BigDecimal}; strings as {@link String}.
 */
public record SqlType(Kind kind, int precision, int scale, boolean nullable, SqlType element) {

  /**
   * {@code LIST}: a list (SQL ARRAY) of {@link #element()} values, computed as a {@link
   * java.util.List} of the element's values (any list kind of Arrow: variable or fixed size).
   */
  public enum Kind { NULL, BOOL, INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, DECIMAL, UTF8, DATE, TIMESTAMP, LIST }

  public SqlType {
    if ((kind == Kind.LIST) != (element != null)) {
      throw new IllegalArgumentException("a list, and only a list, has an element type");
    }
  }

  public SqlType(Kind kind, int precision, int scale, boolean nullable) {
    this(kind, precision, scale, nullable, null);
  }

  public static final int MAX_DECIMAL_PRECISION = 38;

  public static SqlType of(Kind kind, boolean nullable) {
    if (kind == Kind.DECIMAL) {
      throw new IllegalArgumentException("decimal needs precision and scale");
    }
    if (kind == Kind.LIST) {
      throw new IllegalArgumentException("a list needs an element type");
    }
    return new SqlType(kind, 0, 0, nullable);
  }

  /** A list of {@code element} values (whose elements may be NULL when {@code element} is nullable). */
  public static SqlType list(SqlType element, boolean nullable) {
    return new SqlType(Kind.LIST, 0, 0, nullable, element);
  }

  public static SqlType decimal(int precision, int scale, boolean nullable) {
    if (precision < 1 || precision > MAX_DECIMAL_PRECISION || scale < 0 || scale > precision) {
      throw new IllegalArgumentException("invalid DECIMAL(" + precision + "," + scale + ")");
    }
    return new SqlType(Kind.DECIMAL, precision, scale, nullable);
  }

  public SqlType withNullable(boolean value) {
    return new SqlType(kind, precision, scale, value, element);
  }

  public boolean isInteger() {
    return switch (kind) {
      case INT8, INT16, INT32, INT64 -> true;
      default -> false;
    };
  }

  public boolean isFloat() {
    return kind == Kind.FLOAT32 || kind == Kind.FLOAT64;
  }

  public boolean isNumeric() {
    return isInteger() || isFloat() || kind == Kind.DECIMAL;
  }

  /** Whether values of this type are held as {@code long} while computing. */
  public boolean isLongBacked() {
    return isInteger() || kind == Kind.DATE || kind == Kind.TIMESTAMP;
  }

  /** Smallest and largest value of an integer type. */
  public long minValue() {
    return switch (kind) {
      case INT8 -> Byte.MIN_VALUE;
      case INT16 -> Short.MIN_VALUE;
      case INT32 -> Integer.MIN_VALUE;
      default -> Long.MIN_VALUE;
    };
  }

  public long maxValue() {
    return switch (kind) {
      case INT8 -> Byte.MAX_VALUE;
      case INT16 -> Short.MAX_VALUE;
      case INT32 -> Integer.MAX_VALUE;
      default -> Long.MAX_VALUE;
    };
  }

  public ArrowType arrowType() {
    return switch (kind) {
      case NULL, UTF8 -> ArrowType.Utf8.INSTANCE;
      case BOOL -> ArrowType.Bool.INSTANCE;
      case INT8 -> new ArrowType.Int(8, true);
      case INT16 -> new ArrowType.Int(16, true);
      case INT32 -> new ArrowType.Int(32, true);
      case INT64 -> new ArrowType.Int(64, true);
      case FLOAT32 -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case FLOAT64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL -> new ArrowType.Decimal(precision, scale, 128);
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
      case LIST -> ArrowType.List.INSTANCE;
    };
  }

  public Field field(String name) {
    return new Field(name, new FieldType(nullable, arrowType(), null),
        kind == Kind.LIST ? java.util.List.of(element.field("item")) : null);
  }

  /** The SQL type of an Arrow column, or empty if the engine cannot compute with it. */
  public static Optional<SqlType> fromArrow(ArrowType type, boolean nullable) {
    SqlType result = switch (type) {
      case ArrowType.Bool b -> of(Kind.BOOL, nullable);
      case ArrowType.Int i when i.getIsSigned() -> switch (i.getBitWidth()) {
        case 8 -> of(Kind.INT8, nullable);
        case 16 -> of(Kind.INT16, nullable);
        case 32 -> of(Kind.INT32, nullable);
        case 64 -> of(Kind.INT64, nullable);
        default -> null;
      };
      case ArrowType.FloatingPoint f -> switch (f.getPrecision()) {
        case SINGLE -> of(Kind.FLOAT32, nullable);
        case DOUBLE -> of(Kind.FLOAT64, nullable);
        default -> null;
      };
      case ArrowType.Decimal d when d.getBitWidth() == 128 ->
          decimal(d.getPrecision(), d.getScale(), nullable);
      case ArrowType.Utf8 u -> of(Kind.UTF8, nullable);
      case ArrowType.Date d when d.getUnit() == DateUnit.DAY -> of(Kind.DATE, nullable);
      case ArrowType.Timestamp t
          when t.getUnit() == TimeUnit.MICROSECOND && "UTC".equals(t.getTimezone()) ->
          of(Kind.TIMESTAMP, nullable);
      default -> null;
    };
    return Optional.ofNullable(result);
  }

  /** The SQL spelling, for messages. */
  @Override
  public String toString() {
    return switch (kind) {
      case NULL -> "NULL";
      case BOOL -> "BOOLEAN";
      case INT8 -> "TINYINT";
      case INT16 -> "SMALLINT";
      case INT32 -> "INTEGER";
      case INT64 -> "BIGINT";
      case FLOAT32 -> "REAL";
      case FLOAT64 -> "DOUBLE";
      case DECIMAL -> "DECIMAL(" + precision + "," + scale + ")";
      case UTF8 -> "VARCHAR";
      case DATE -> "DATE";
      case TIMESTAMP -> "TIMESTAMP";
      case LIST -> element + "[]";
    };
  }
}
