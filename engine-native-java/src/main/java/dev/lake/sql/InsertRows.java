package dev.lake.sql;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows of one INSERT, turned into batches of the table's exact schema and checked before
 * anything is written: each source column is moved (same Arrow layout) or converted (numbers to
 * numbers, timestamps between units) into its target column, unlisted columns are NULL, and a
 * NULL in a NOT NULL column is refused naming the column and the row. Also digests the payload
 * (SHA-256 over every buffer), which is part of the append's identity.
 *
 * <p>Owns the batches it holds until {@link #reader()} hands them over; {@link #close()} releases
 * whatever it still holds.
 */
final class InsertRows implements AutoCloseable {
  private final TableName table;
  private final Schema schema;
  /** For each table column, the source column that fills it, or -1 for NULL. */
  private final int[] sourceOf;
  private final String source;
  private final BufferAllocator allocator;
  private final List<ArrowRecordBatch> batches = new ArrayList<>();
  private final MessageDigest digest;
  private long rows;

  /**
   * @param columns the target columns the source's columns fill, in source order
   * @param source what the rows are called in errors ("values", "parameters")
   */
  InsertRows(TableName table, Schema schema, List<String> columns, String source,
      BufferAllocator allocator) {
    this.table = table;
    this.schema = schema;
    this.source = source;
    this.allocator = allocator;
    this.sourceOf = new int[schema.getFields().size()];
    for (int i = 0; i < sourceOf.length; i++) {
      sourceOf[i] = columns.indexOf(schema.getFields().get(i).getName());
    }
    try {
      this.digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  long rows() {
    return rows;
  }

  /**
   * Adds the rows of {@code batch}; its vectors are left empty (their buffers moved here or
   * copied). Nothing is kept from a batch that fails.
   *
   * @throws SqlException INVALID for a type that cannot be stored in its column or a NULL in a
   *     NOT NULL column
   */
  void add(VectorSchemaRoot batch) {
    int n = batch.getRowCount();
    if (n == 0) {
      return;
    }
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int i = 0; i < sourceOf.length; i++) {
        Field target = schema.getFields().get(i);
        FieldVector column = sourceOf[i] < 0
            ? nulls(target, n)
            : column(batch.getVector(sourceOf[i]), target, n);
        vectors.add(column);
        if (!target.isNullable() && column.getNullCount() > 0) {
          int row = 0;
          while (!column.isNull(row)) {
            row++;
          }
          throw new SqlException(SqlException.Kind.INVALID, "null value in column '"
              + target.getName() + "' of table " + SqlCatalog.LAKE + "." + table
              + " violates NOT NULL (row " + (rows + row + 1) + " of the " + source + ")");
        }
      }
      List<Field> fields = vectors.stream().map(FieldVector::getField).toList();
      VectorSchemaRoot root = new VectorSchemaRoot(fields, new ArrayList<>(vectors), n);
      ArrowRecordBatch unloaded = new VectorUnloader(root).getRecordBatch();
      batches.add(unloaded);
      for (ArrowBuf buffer : unloaded.getBuffers()) {
        digest.update(buffer.nioBuffer(0, (int) buffer.writerIndex()));
      }
      digest.update(java.nio.ByteBuffer.allocate(4).putInt(0, n));
      rows += n;
    } finally {
      // The batch holds its own references to the buffers.
      vectors.forEach(FieldVector::close);
    }
  }

  /** The SHA-256 digest of every row added. Once, after the last {@link #add}. */
  byte[] sha256() {
    return digest.digest();
  }

  /** The rows as a reader of the table's schema; transfers ownership of the batches to it. */
  dev.lake.engine.RecordBatchReader reader() {
    List<ArrowRecordBatch> handed = new ArrayList<>(batches);
    batches.clear();
    return new dev.lake.engine.RecordBatchReader(allocator, schema, handed);
  }

  @Override
  public void close() {
    batches.forEach(ArrowRecordBatch::close);
    batches.clear();
  }

  private FieldVector nulls(Field target, int n) {
    FieldVector vector = target.createVector(allocator);
    vector.allocateNew();
    vector.setValueCount(n);
    return vector;
  }

  private FieldVector column(FieldVector from, Field target, int n) {
    if (sameLayout(from.getField(), target)) {
      var transfer = from.getTransferPair(allocator);
      transfer.transfer();
      FieldVector moved = (FieldVector) transfer.getTo();
      moved.setValueCount(n);
      return moved;
    }
    FieldVector to = target.createVector(allocator);
    try {
      to.allocateNew();
      convert(from, to, target, n);
      to.setValueCount(n);
      return to;
    } catch (RuntimeException e) {
      to.close();
      throw e;
    }
  }

  private static boolean isList(ArrowType t) {
    return t instanceof ArrowType.List || t instanceof ArrowType.FixedSizeList || t instanceof ArrowType.LargeList;
  }

  /** Same buffers for the same values: names, nullability and a timestamp's zone aside. */
  static boolean sameLayout(Field a, Field b) {
    ArrowType x = a.getType();
    ArrowType y = b.getType();
    boolean same = x instanceof ArrowType.Timestamp tx && y instanceof ArrowType.Timestamp ty
        ? tx.getUnit() == ty.getUnit()
        : x.equals(y);
    if (!same || a.getChildren().size() != b.getChildren().size()) {
      return false;
    }
    for (int i = 0; i < a.getChildren().size(); i++) {
      if (!sameLayout(a.getChildren().get(i), b.getChildren().get(i))) {
        return false;
      }
    }
    return true;
  }

  private void convert(FieldVector from, FieldVector to, Field target, int n) {
    ArrowType type = target.getType();
    ArrowType fromType = from.getField().getType();
    if (isList(fromType) && isList(type)) {
      // A list's elements convert as values do: ARRAY[1.5, 2] into a REAL[2] column.
      dev.lake.exec.SqlType element = dev.lake.exec.SqlType.fromArrow(
          target.getChildren().getFirst().getType(), true).orElseThrow(() -> new SqlException(
              SqlException.Kind.UNSUPPORTED, "column '" + target.getName() + "' has lists of a type INSERT cannot write"));
      try {
        dev.lake.exec.Vectors.write(dev.lake.exec.expr.ListBatch.read(from, element), to);
      } catch (dev.lake.exec.ExecutionException e) {
        throw new SqlException(SqlException.Kind.INVALID, "column '" + target.getName() + "' of table "
            + SqlCatalog.LAKE + "." + table + ": " + e.getMessage());
      }
      return;
    }
    boolean numeric = isNumber(fromType) && isNumber(type);
    boolean timestamps = fromType instanceof ArrowType.Timestamp && type instanceof ArrowType.Timestamp;
    boolean text = fromType instanceof ArrowType.Utf8 || fromType instanceof ArrowType.LargeUtf8
        || fromType instanceof ArrowType.Utf8View;
    if (!numeric && !timestamps && !(text && type instanceof ArrowType.Utf8)) {
      throw new SqlException(SqlException.Kind.INVALID, "column '" + target.getName()
          + "' of table " + SqlCatalog.LAKE + "." + table + " has type " + describe(target)
          + " but the " + source + " give " + describe(from.getField()));
    }
    for (int i = 0; i < n; i++) {
      if (from.isNull(i)) {
        continue;
      }
      try {
        switch (to) {
          case VarCharVector v -> v.setSafe(i, new org.apache.arrow.vector.util.Text(from.getObject(i).toString()));
          case TimeStampVector v -> v.set(i, rescale(((TimeStampVector) from).get(i),
              ((ArrowType.Timestamp) fromType).getUnit(), ((ArrowType.Timestamp) type).getUnit()));
          case FloatingPointVector v -> v.setWithPossibleTruncate(i, number(from, i).doubleValue());
          case DecimalVector v -> v.set(i, decimal(number(from, i), v.getPrecision(), v.getScale()));
          case BaseIntVector v -> setInteger(to, i, integer(number(from, i), ((ArrowType.Int) type).getBitWidth()));
          default -> throw new IllegalStateException("no conversion into " + type);
        }
      } catch (ArithmeticException e) {
        throw new SqlException(SqlException.Kind.INVALID, "value " + from.getObject(i)
            + " does not fit column '" + target.getName() + "' of type " + describe(target)
            + " (row " + (rows + i + 1) + " of the " + source + ")");
      }
    }
  }

  private static boolean isNumber(ArrowType type) {
    return type instanceof ArrowType.Int || type instanceof ArrowType.FloatingPoint
        || type instanceof ArrowType.Decimal;
  }

  private static Number number(FieldVector from, int i) {
    return from instanceof BaseIntVector ints && !(from instanceof org.apache.arrow.vector.UInt8Vector)
        ? ints.getValueAsLong(i)
        : (Number) from.getObject(i);
  }

  private static long integer(Number value, int bits) {
    long v;
    if (value instanceof BigDecimal d) {
      v = d.setScale(0, RoundingMode.UNNECESSARY).longValueExact();
    } else if (value instanceof Double || value instanceof Float) {
      double d = value.doubleValue();
      if (d != Math.rint(d) || Math.abs(d) > 0x1p62) {
        throw new ArithmeticException("not an integer");
      }
      v = (long) d;
    } else {
      v = value.longValue();
    }
    long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
    if (v > max || v < -max - 1) {
      throw new ArithmeticException("out of range");
    }
    return v;
  }

  private static void setInteger(FieldVector to, int i, long v) {
    switch (to) {
      case TinyIntVector t -> t.set(i, (byte) v);
      case SmallIntVector t -> t.set(i, (short) v);
      case IntVector t -> t.set(i, (int) v);
      case BigIntVector t -> t.set(i, v);
      default -> throw new IllegalStateException("no signed integer vector: " + to.getField());
    }
  }

  private static BigDecimal decimal(Number value, int precision, int scale) {
    BigDecimal d = value instanceof BigDecimal b ? b
        : value instanceof Double || value instanceof Float ? BigDecimal.valueOf(value.doubleValue())
        : BigDecimal.valueOf(value.longValue());
    BigDecimal scaled = d.setScale(scale, RoundingMode.HALF_UP);
    if (scaled.precision() > precision) {
      throw new ArithmeticException("precision");
    }
    return scaled;
  }

  private static long rescale(long value, TimeUnit from, TimeUnit to) {
    long f = perSecond(from);
    long t = perSecond(to);
    return f == t ? value : f < t ? Math.multiplyExact(value, t / f) : Math.floorDiv(value, f / t);
  }

  private static long perSecond(TimeUnit unit) {
    return switch (unit) {
      case SECOND -> 1L;
      case MILLISECOND -> 1_000L;
      case MICROSECOND -> 1_000_000L;
      case NANOSECOND -> 1_000_000_000L;
    };
  }

  private static String describe(Field field) {
    return field.getChildren().isEmpty() ? field.getType().toString()
        : field.getType() + "<" + field.getChildren().stream().map(InsertRows::describe).toList() + ">";
  }
}
