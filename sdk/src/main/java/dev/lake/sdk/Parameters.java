package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import dev.lake.engine.DataLocationCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Binds Java values to one row of a prepared statement's parameter schema. */
final class Parameters {
  private Parameters() {}

  /**
   * One row holding {@code values} in vectors of {@code schema}; the caller closes it.
   *
   * @throws LakeException.InvalidArgument naming the position if the count or a type mismatches
   */
  static VectorSchemaRoot bind(BufferAllocator allocator, Schema schema, Object[] values) {
    checkCount(schema, values);
    VectorSchemaRoot root = VectorSchemaRoot.create(microsecondTimestamps(schema), allocator);
    try {
      root.allocateNew();
      for (int i = 0; i < values.length; i++) {
        set(root.getVector(i), i + 1, values[i]);
      }
      root.setRowCount(1);
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  /**
   * Refuses a parameter count other than the schema's.
   *
   * @throws LakeException.InvalidArgument giving both counts
   */
  static void checkCount(Schema schema, Object[] values) {
    List<Field> fields = schema.getFields();
    if (fields.size() != values.length) {
      throw new LakeException.InvalidArgument("the statement has " + fields.size()
          + (fields.size() == 1 ? " parameter" : " parameters") + " and " + values.length
          + (values.length == 1 ? " value was" : " values were") + " given", null);
    }
  }

  /** How a parameter names itself in errors: its position and the column it goes to. */
  static String describe(Field field, int position) {
    return "parameter " + position + " (" + (field.getName().isEmpty() ? ""
        : "column " + field.getName() + ", ") + (DataLocationCodec.isFile(field) ? "FILE"
        : field.getType().toString()) + ")";
  }

  /**
   * Lake declares TIMESTAMP parameters in milliseconds (for the JDBC driver) but accepts any unit:
   * bind microseconds, the precision of a lake TIMESTAMP column, so an Instant keeps it.
   */
  private static Schema microsecondTimestamps(Schema schema) {
    return new Schema(schema.getFields().stream().map(f -> f.getType() instanceof ArrowType.Timestamp t
        ? new Field(f.getName(), new FieldType(true, new ArrowType.Timestamp(
            org.apache.arrow.vector.types.TimeUnit.MICROSECOND, t.getTimezone()), null), null)
        : f).toList());
  }

  private static void set(FieldVector vector, int position, Object value) {
    if (value == null) {
      vector.setNull(0);
      return;
    }
    switch (vector) {
      case BigIntVector v when value instanceof Long || value instanceof Integer ->
          v.setSafe(0, ((Number) value).longValue());
      case IntVector v when value instanceof Integer i -> v.setSafe(0, i);
      case IntVector v when value instanceof Long l && l == l.intValue() -> v.setSafe(0, l.intValue());
      case SmallIntVector v when isIntegral(value) && fits(value, Short.MIN_VALUE, Short.MAX_VALUE) ->
          v.setSafe(0, ((Number) value).shortValue());
      case TinyIntVector v when isIntegral(value) && fits(value, Byte.MIN_VALUE, Byte.MAX_VALUE) ->
          v.setSafe(0, ((Number) value).byteValue());
      case Float8Vector v when value instanceof Number n && !(value instanceof Boolean) ->
          v.setSafe(0, n.doubleValue());
      case Float4Vector v when value instanceof Number n -> v.setSafe(0, n.floatValue());
      case VarCharVector v when value instanceof String s ->
          v.setSafe(0, s.getBytes(StandardCharsets.UTF_8));
      case BitVector v when value instanceof Boolean b -> v.setSafe(0, b ? 1 : 0);
      case DateDayVector v when value instanceof LocalDate d ->
          v.setSafe(0, Math.toIntExact(d.toEpochDay()));
      case TimeStampVector v when value instanceof Instant t ->
          v.setSafe(0, since(t, ((ArrowType.Timestamp) v.getField().getType()).getUnit()));
      case StructVector v when value instanceof DataLocation d
          && DataLocationCodec.isFile(v.getField()) -> DataLocationCodec.write(v, 0, d);
      default -> throw new LakeException.InvalidArgument(describe(vector.getField(), position)
          + " cannot take a " + value.getClass().getSimpleName() + " value"
          + (DataLocationCodec.isFile(vector.getField())
              ? ": a FILE column takes a FileUpload or a DataLocation" : ""), null);
    }
  }

  private static boolean isIntegral(Object value) {
    return value instanceof Long || value instanceof Integer || value instanceof Short
        || value instanceof Byte;
  }

  private static boolean fits(Object value, long min, long max) {
    long l = ((Number) value).longValue();
    return l >= min && l <= max;
  }

  private static long since(Instant t, org.apache.arrow.vector.types.TimeUnit unit) {
    long seconds = t.getEpochSecond();
    long nanos = t.getNano();
    return switch (unit) {
      case SECOND -> seconds;
      case MILLISECOND -> Math.addExact(Math.multiplyExact(seconds, 1_000L),
          TimeUnit.NANOSECONDS.toMillis(nanos));
      case MICROSECOND -> Math.addExact(Math.multiplyExact(seconds, 1_000_000L),
          TimeUnit.NANOSECONDS.toMicros(nanos));
      case NANOSECOND -> Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), nanos);
    };
  }
}
