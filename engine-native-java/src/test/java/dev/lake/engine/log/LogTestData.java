package dev.lake.engine.log;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;

/** Deterministic test tables: every column's value is a function of the row id. */
final class LogTestData {

  static final Schema ALL_TYPES = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      nullable("i8", new ArrowType.Int(8, true)),
      nullable("i16", new ArrowType.Int(16, true)),
      nullable("i32", new ArrowType.Int(32, true)),
      nullable("i64", new ArrowType.Int(64, true)),
      nullable("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
      nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      nullable("flag", ArrowType.Bool.INSTANCE),
      nullable("name", ArrowType.Utf8.INSTANCE),
      nullable("day", new ArrowType.Date(DateUnit.DAY)),
      nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
      nullable("amount", new ArrowType.Decimal(20, 4, 128))));

  /** The schema of batch-tracking tests: every row carries the id of the append it came in. */
  static final Schema BATCHES = new Schema(List.of(
      new Field("batch", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("seq", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      nullable("payload", ArrowType.Utf8.INSTANCE)));

  private LogTestData() {}

  /** One batch of {@link #BATCHES} rows, all with {@code batchId}, as an IPC stream reader. */
  static ArrowReader batchReader(BufferAllocator allocator, long batchId, int rows, int payloadBytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] payload = "x".repeat(payloadBytes).getBytes(StandardCharsets.UTF_8);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(BATCHES, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      root.allocateNew();
      BigIntVector batch = (BigIntVector) root.getVector(0);
      BigIntVector seq = (BigIntVector) root.getVector(1);
      VarCharVector text = (VarCharVector) root.getVector(2);
      for (int i = 0; i < rows; i++) {
        batch.setSafe(i, batchId);
        seq.setSafe(i, i);
        if (i % 10 == 0) {
          text.setNull(i);
        } else {
          text.setSafe(i, payload);
        }
      }
      root.setRowCount(rows);
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator);
  }

  /** The operation id of a tracked batch, so versions() can be checked against batch ids. */
  static AppendOperation batchOp(long batchId) {
    return op(new UUID(0xBA7C4L, batchId), "batch-" + batchId);
  }

  static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  static TableEngine engine(int blockRows, long segmentBytes) {
    TableEngineFactory f = new LogEngineFactory();
    return f.create(Map.of("log.block.rows", Integer.toString(blockRows),
        "log.segment.bytes", Long.toString(segmentBytes)));
  }

  static AppendOperation op(long n) {
    return op(new UUID(0x1234L, n), "payload-" + n);
  }

  static AppendOperation op(UUID id, String payload) {
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(payload.getBytes(StandardCharsets.UTF_8));
      return new AppendOperation("tenant", "t", id, HexFormat.of().formatHex(digest));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The value of {@code column} in row {@code id}, as Arrow's {@code getObject} returns it. */
  static Object value(String column, long id) {
    int salt = column.hashCode() & 0x7;
    if (!column.equals("id") && (id + salt) % 5 == 0) {
      return null;
    }
    return switch (column) {
      case "id" -> id;
      case "i8" -> (byte) id;
      case "i16" -> (short) (id * 3);
      case "i32" -> (int) (id * 7 - 1000);
      case "i64" -> id * 1_000_003L - 5_000_000_000L;
      case "f32" -> id * 0.5f - 3;
      case "f64" -> id * -1.25;
      case "flag" -> id % 3 == 0;
      case "name" -> id % 11 == 0 ? "ü".repeat(40) + id : "name-" + id;
      case "day" -> (int) (id % 20_000);
      case "ts" -> 1_700_000_000_000_000L + id * 1_000_000L;
      case "amount" -> BigDecimal.valueOf(id * 12_345 - 99_999, 4);
      default -> throw new IllegalArgumentException(column);
    };
  }

  /** A batch of rows {@code first .. first+rows-1} of {@code schema}. Caller closes it. */
  static VectorSchemaRoot batch(Schema schema, BufferAllocator allocator, long first, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    for (FieldVector v : root.getFieldVectors()) {
      // A renamed column ("i16x") takes the values of the column it was derived from.
      String col = v.getName().replaceAll("x$", "");
      for (int i = 0; i < rows; i++) {
        set(v, i, value(col, first + i));
      }
    }
    root.setRowCount(rows);
    return root;
  }

  static void set(FieldVector v, int i, Object value) {
    if (value == null) {
      v.setNull(i);
      return;
    }
    switch (v) {
      case BigIntVector x -> x.setSafe(i, ((Number) value).longValue());
      case TinyIntVector x -> x.setSafe(i, ((Number) value).byteValue());
      case SmallIntVector x -> x.setSafe(i, ((Number) value).shortValue());
      case IntVector x -> x.setSafe(i, ((Number) value).intValue());
      case Float4Vector x -> x.setSafe(i, (Float) value);
      case Float8Vector x -> x.setSafe(i, (Double) value);
      case BitVector x -> x.setSafe(i, (Boolean) value ? 1 : 0);
      case VarCharVector x -> x.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
      case DateDayVector x -> x.setSafe(i, (Integer) value);
      case TimeStampMicroTZVector x -> x.setSafe(i, (Long) value);
      case DecimalVector x -> x.setSafe(i, (BigDecimal) value);
      default -> throw new IllegalArgumentException(v.getClass().getName());
    }
  }

  /** An Arrow IPC stream reader over batches of the given sizes, rows numbered from {@code first}. */
  static ArrowReader reader(Schema schema, BufferAllocator allocator, long first, int... sizes) {
    return reader(schema, allocator, LogTestData::batch, first, sizes);
  }

  /** Makes rows {@code first .. first + rows - 1} of a test table. */
  interface Rows {
    VectorSchemaRoot batch(Schema schema, BufferAllocator allocator, long first, int rows);
  }

  /** Like {@link #reader(Schema, BufferAllocator, long, int...)} with rows made by {@code rows}. */
  static ArrowReader reader(Schema schema, BufferAllocator allocator, Rows rows, long first, int... sizes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      writer.start();
      long id = first;
      for (int size : sizes) {
        try (VectorSchemaRoot b = rows.batch(schema, allocator, id, size)) {
          root.clear();
          for (int c = 0; c < schema.getFields().size(); c++) {
            b.getVector(c).makeTransferPair(root.getVector(c)).transfer();
          }
          root.setRowCount(size);
          writer.writeBatch();
        }
        id += size;
      }
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator);
  }

  /** Every row of a scan, cells as {@code getObject} returns them with Text turned into String. */
  static List<List<Object>> readAll(Snapshot snapshot, ScanRequest request, BufferAllocator allocator) {
    List<List<Object>> rows = new ArrayList<>();
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          for (int r = 0; r < root.getRowCount(); r++) {
            List<Object> row = new ArrayList<>();
            for (FieldVector v : root.getFieldVectors()) {
              Object o = v.getObject(r);
              row.add(o instanceof Text t ? t.toString() : o);
            }
            rows.add(row);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return rows;
  }

  static List<Object> expectedRow(List<String> columns, long id) {
    List<Object> row = new ArrayList<>();
    for (String c : columns) {
      row.add(value(c, id));
    }
    return row;
  }

  static List<String> columnNames(Schema schema) {
    return schema.getFields().stream().map(Field::getName).toList();
  }

  /** Rows per value of a long column over the whole snapshot (run-length counted). */
  static Map<Long, Long> countByValue(Snapshot snapshot, String column, BufferAllocator allocator) {
    Map<Long, Long> counts = new HashMap<>();
    ScanRequest request = ScanRequest.of(List.of(column));
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          BigIntVector v = (BigIntVector) reader.getVectorSchemaRoot().getVector(0);
          int n = v.getValueCount();
          int i = 0;
          while (i < n) {
            long value = v.get(i);
            int j = i + 1;
            while (j < n && v.get(j) == value) {
              j++;
            }
            counts.merge(value, (long) (j - i), Long::sum);
            i = j;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return counts;
  }
}
