package dev.lake.iceberg;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Writes Iceberg generic records into the vectors of a root shaped by {@link ArrowSchemas}. */
final class ArrowWriter {
  private static final LocalDateTime EPOCH = LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC);

  private final VectorSchemaRoot root;
  private final List<Types.NestedField> columns;

  ArrowWriter(VectorSchemaRoot root, org.apache.iceberg.Schema schema) {
    this.root = root;
    this.columns = schema.columns();
    root.allocateNew();
  }

  /** Row {@code index} from {@code record}, whose fields are read by name (the projection's). */
  void write(int index, Record record) {
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField field = columns.get(i);
      set(root.getVector(i), index, field.type(), record.getField(field.name()));
    }
  }

  void finish(int rows) {
    for (FieldVector v : root.getFieldVectors()) {
      v.setValueCount(rows);
    }
    root.setRowCount(rows);
  }

  private static void set(FieldVector vector, int i, Type type, Object value) {
    if (value == null) {
      if (vector instanceof StructVector s) {
        s.setNull(i);
      } else if (vector instanceof ListVector l) {
        l.setNull(i);
      } else {
        nullAt(vector, i);
      }
      return;
    }
    switch (vector) {
      case BitVector v -> v.setSafe(i, (Boolean) value ? 1 : 0);
      case IntVector v -> v.setSafe(i, (Integer) value);
      case BigIntVector v -> v.setSafe(i, (Long) value);
      case Float4Vector v -> v.setSafe(i, (Float) value);
      case Float8Vector v -> v.setSafe(i, (Double) value);
      case DecimalVector v -> v.setSafe(i, (BigDecimal) value);
      case DateDayVector v -> v.setSafe(i, Math.toIntExact(((LocalDate) value).toEpochDay()));
      case TimeMicroVector v -> v.setSafe(i, ((LocalTime) value).toNanoOfDay() / 1000);
      case TimeStampMicroTZVector v -> v.setSafe(i, ChronoUnit.MICROS.between(EPOCH,
          ((OffsetDateTime) value).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime()));
      case TimeStampMicroVector v -> v.setSafe(i, ChronoUnit.MICROS.between(EPOCH, (LocalDateTime) value));
      case VarCharVector v -> v.setSafe(i, value.toString().getBytes(StandardCharsets.UTF_8));
      case FixedSizeBinaryVector v -> v.setSafe(i, value instanceof UUID u ? uuid(u) : bytes(value));
      case VarBinaryVector v -> v.setSafe(i, bytes(value));
      case StructVector v -> {
        v.setIndexDefined(i);
        StructLike struct = (StructLike) value;
        List<Types.NestedField> fields = type.asStructType().fields();
        for (int f = 0; f < fields.size(); f++) {
          set((FieldVector) v.getChildByOrdinal(f), i, fields.get(f).type(),
              struct instanceof Record r ? r.getField(fields.get(f).name()) : struct.get(f, Object.class));
        }
      }
      case MapVector v -> {
        Types.MapType map = type.asMapType();
        StructVector entries = (StructVector) v.getDataVector();
        int offset = v.startNewValue(i);
        int n = 0;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
          entries.setIndexDefined(offset + n);
          set((FieldVector) entries.getChildByOrdinal(0), offset + n, map.keyType(), e.getKey());
          set((FieldVector) entries.getChildByOrdinal(1), offset + n, map.valueType(), e.getValue());
          n++;
        }
        v.endValue(i, n);
      }
      case ListVector v -> {
        Type element = type.asListType().elementType();
        FieldVector data = v.getDataVector();
        int offset = v.startNewValue(i);
        int n = 0;
        for (Object item : (List<?>) value) {
          set(data, offset + n++, element, item);
        }
        v.endValue(i, n);
      }
      default -> throw new IllegalStateException("no writer for " + vector.getField());
    }
  }

  private static void nullAt(FieldVector vector, int i) {
    switch (vector) {
      case org.apache.arrow.vector.BaseFixedWidthVector v -> v.setNull(i);
      case org.apache.arrow.vector.BaseVariableWidthVector v -> v.setNull(i);
      default -> throw new IllegalStateException("no null writer for " + vector.getField());
    }
  }

  private static byte[] uuid(UUID u) {
    return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
  }

  private static byte[] bytes(Object value) {
    if (value instanceof byte[] b) {
      return b;
    }
    ByteBuffer buffer = ((ByteBuffer) value).duplicate();
    byte[] b = new byte[buffer.remaining()];
    buffer.get(b);
    return b;
  }
}
