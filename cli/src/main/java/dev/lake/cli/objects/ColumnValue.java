package dev.lake.cli.objects;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.Locale;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** A {@code --set column=value} text converted to the Java value the SDK binds for the column's type. */
final class ColumnValue {
  private ColumnValue() {}

  /** A value that cannot be given to its column, named in the message. */
  static final class Unconvertible extends Exception {
    Unconvertible(String message) {
      super(message);
    }
  }

  // 2026-01-05T08:00:00Z, 2026-01-05 08:00:00Z, 2026-01-05T08:00:00.5+02:00
  private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
      .append(DateTimeFormatter.ISO_LOCAL_DATE)
      .optionalStart().appendLiteral('T').optionalEnd()
      .optionalStart().appendLiteral(' ').optionalEnd()
      .append(DateTimeFormatter.ISO_LOCAL_TIME)
      .appendOffsetId()
      .toFormatter(Locale.ROOT);

  /**
   * {@code text} as a value of {@code column}: BIGINT a Long, INTEGER an Integer, DOUBLE a
   * Double, VARCHAR a String, BOOLEAN a Boolean ({@code true} or {@code false}), DATE a LocalDate
   * ({@code 2026-01-05}), TIMESTAMP an Instant ({@code 2026-01-05T08:00:00Z}).
   *
   * @throws Unconvertible if the text is not a value of that type, or the type is none of these
   */
  static Object convert(Field column, String text) throws Unconvertible {
    ArrowType type = column.getType();
    try {
      return switch (type) {
        case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() == 64 -> Long.parseLong(text.strip());
        case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() == 32 -> Integer.parseInt(text.strip());
        case ArrowType.FloatingPoint f when f.getPrecision() == FloatingPointPrecision.DOUBLE ->
            Double.parseDouble(text.strip());
        case ArrowType.Utf8 u -> text;
        case ArrowType.LargeUtf8 u -> text;
        case ArrowType.Bool b -> parseBoolean(column, text);
        case ArrowType.Date d -> LocalDate.parse(text.strip());
        case ArrowType.Timestamp t -> OffsetDateTime.parse(text.strip(), TIMESTAMP).toInstant();
        default -> throw new Unconvertible("column '" + column.getName() + "' is of type " + type
            + ", which --set cannot give (BIGINT, INTEGER, DOUBLE, VARCHAR, BOOLEAN, DATE and"
            + " TIMESTAMP columns can)");
      };
    } catch (NumberFormatException | DateTimeException e) {
      throw new Unconvertible("--set " + column.getName() + "=" + text + ": '" + text
          + "' is not " + expected(type));
    }
  }

  private static Boolean parseBoolean(Field column, String text) throws Unconvertible {
    return switch (text.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> throw new Unconvertible("--set " + column.getName() + "=" + text + ": '" + text
          + "' is not a BOOLEAN (true or false)");
    };
  }

  private static String expected(ArrowType type) {
    return switch (type) {
      case ArrowType.Int i when i.getBitWidth() == 64 -> "a BIGINT (a whole number)";
      case ArrowType.Int i -> "an INTEGER (a whole number of at most 32 bits)";
      case ArrowType.FloatingPoint f -> "a DOUBLE";
      case ArrowType.Date d -> "a DATE (YYYY-MM-DD)";
      case ArrowType.Timestamp t -> "a TIMESTAMP (e.g. 2026-01-05T08:00:00Z)";
      default -> "a value of type " + type;
    };
  }
}
