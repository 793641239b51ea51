package dev.lake.cli.sql;

import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * One cell of an Arrow vector as a plain Java value that the printers render: {@code null},
 * {@link Boolean}, a {@link Number} ({@link Long}, {@link BigInteger} for unsigned 64-bit,
 * {@link Float}, {@link Double}, {@link java.math.BigDecimal}), {@link String} (text, and dates,
 * times and timestamps in ISO form), {@code byte[]}, a {@link List} for list columns and an
 * insertion-ordered {@link Map} for struct and map columns. Types without a rendering of their
 * own (intervals, unions, extension types) become their Arrow object's text.
 */
final class Values {

  private static final DateTimeFormatter LOCAL_TIMESTAMP = DateTimeFormatter.ofPattern(
      "uuuu-MM-dd HH:mm:ss[.SSSSSSSSS]");

  private Values() {}

  static Object of(ValueVector vector, int row) {
    if (vector.isNull(row)) {
      return null;
    }
    ArrowType type = vector.getField().getType();
    return switch (type) {
      case ArrowType.Null n -> null;
      case ArrowType.Bool b -> ((BitVector) vector).get(row) == 1;
      case ArrowType.Int i -> integer((BaseIntVector) vector, i, row);
      case ArrowType.FloatingPoint f -> f.getPrecision() == FloatingPointPrecision.SINGLE
          ? (Object) (float) ((FloatingPointVector) vector).getValueAsDouble(row)
          : (Object) ((FloatingPointVector) vector).getValueAsDouble(row);
      case ArrowType.Decimal d -> vector.getObject(row);
      case ArrowType.Utf8 u -> vector.getObject(row).toString();
      case ArrowType.LargeUtf8 u -> vector.getObject(row).toString();
      case ArrowType.Utf8View u -> vector.getObject(row).toString();
      case ArrowType.Binary b -> vector.getObject(row);
      case ArrowType.LargeBinary b -> vector.getObject(row);
      case ArrowType.FixedSizeBinary b -> vector.getObject(row);
      case ArrowType.BinaryView b -> vector.getObject(row);
      case ArrowType.Date d -> date(vector, row).toString();
      case ArrowType.Time t -> time(vector, row).toString();
      case ArrowType.Timestamp t -> timestamp((TimeStampVector) vector, t, row);
      case ArrowType.Struct s -> struct((StructVector) vector, row);
      case ArrowType.Map m -> map((MapVector) vector, row);
      case ArrowType.List l -> list((ListVector) vector, row);
      case ArrowType.LargeList l -> list((LargeListVector) vector, row);
      case ArrowType.FixedSizeList l -> list((FixedSizeListVector) vector, row);
      default -> String.valueOf(vector.getObject(row));
    };
  }

  private static Object integer(BaseIntVector vector, ArrowType.Int type, int row) {
    long value = vector.getValueAsLong(row);
    if (type.getIsSigned()) {
      return value;
    }
    return switch (type.getBitWidth()) {
      case 8 -> value & 0xFFL;
      case 16 -> value & 0xFFFFL;
      case 32 -> value & 0xFFFF_FFFFL;
      default -> value >= 0 ? (Object) value : new BigInteger(Long.toUnsignedString(value));
    };
  }

  private static LocalDate date(ValueVector vector, int row) {
    return switch (vector) {
      case DateDayVector days -> LocalDate.ofEpochDay(days.get(row));
      case DateMilliVector millis -> LocalDate.ofEpochDay(Math.floorDiv(millis.get(row), 86_400_000L));
      default -> throw new IllegalArgumentException("unknown date vector " + vector.getClass());
    };
  }

  private static LocalTime time(ValueVector vector, int row) {
    long nanos = switch (vector) {
      case TimeSecVector s -> s.get(row) * 1_000_000_000L;
      case TimeMilliVector m -> m.get(row) * 1_000_000L;
      case TimeMicroVector u -> u.get(row) * 1_000L;
      case TimeNanoVector n -> n.get(row);
      default -> throw new IllegalArgumentException("unknown time vector " + vector.getClass());
    };
    return LocalTime.ofNanoOfDay(Math.floorMod(nanos, 86_400_000_000_000L));
  }

  /** {@code 2026-01-05 08:00:00.25} without a zone; with one, its offset follows ({@code Z}). */
  private static String timestamp(TimeStampVector vector, ArrowType.Timestamp type, int row) {
    long value = vector.get(row);
    Instant instant = switch (type.getUnit()) {
      case SECOND -> Instant.ofEpochSecond(value);
      case MILLISECOND -> Instant.ofEpochMilli(value);
      case MICROSECOND -> Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L),
          Math.floorMod(value, 1_000_000L) * 1_000L);
      case NANOSECOND -> Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000_000L),
          Math.floorMod(value, 1_000_000_000L));
    };
    String zone = type.getTimezone();
    if (zone == null || zone.isEmpty()) {
      return trimFraction(LOCAL_TIMESTAMP.format(LocalDateTime.ofInstant(instant, ZoneOffset.UTC)),
          type.getUnit());
    }
    var zoned = instant.atZone(ZoneId.of(zone));
    String local = trimFraction(LOCAL_TIMESTAMP.format(zoned.toLocalDateTime()), type.getUnit());
    return local + zoned.getOffset().getId();
  }

  /** Cuts the fraction to the column's unit, without trailing zeros (as psql shows it). */
  private static String trimFraction(String text, TimeUnit unit) {
    int dot = text.indexOf('.');
    if (dot < 0) {
      return text;
    }
    String fraction = text.substring(dot + 1);
    int digits = switch (unit) {
      case SECOND -> 0;
      case MILLISECOND -> 3;
      case MICROSECOND -> 6;
      case NANOSECOND -> 9;
    };
    fraction = fraction.substring(0, Math.min(digits, fraction.length())).replaceAll("0+$", "");
    return fraction.isEmpty() ? text.substring(0, dot) : text.substring(0, dot + 1) + fraction;
  }

  private static Map<String, Object> struct(StructVector vector, int row) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (FieldVector child : vector.getChildrenFromFields()) {
      fields.put(child.getName(), of(child, row));
    }
    return fields;
  }

  private static Map<String, Object> map(MapVector vector, int row) {
    StructVector entries = (StructVector) vector.getDataVector();
    FieldVector keys = entries.getChildrenFromFields().get(0);
    FieldVector values = entries.getChildrenFromFields().get(1);
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = vector.getElementStartIndex(row); i < vector.getElementEndIndex(row); i++) {
      map.put(CellText.plain(of(keys, i)), of(values, i));
    }
    return map;
  }

  private static List<Object> list(ListVector vector, int row) {
    return elements(vector.getDataVector(), vector.getElementStartIndex(row),
        vector.getElementEndIndex(row));
  }

  private static List<Object> list(LargeListVector vector, int row) {
    return elements(vector.getDataVector(), Math.toIntExact(vector.getElementStartIndex(row)),
        Math.toIntExact(vector.getElementEndIndex(row)));
  }

  private static List<Object> list(FixedSizeListVector vector, int row) {
    int size = vector.getListSize();
    return elements(vector.getDataVector(), row * size, row * size + size);
  }

  private static List<Object> elements(ValueVector data, int from, int to) {
    List<Object> elements = new ArrayList<>(to - from);
    for (int i = from; i < to; i++) {
      elements.add(of(data, i));
    }
    return elements;
  }
}
