package dev.lake.exec;

import dev.lake.engine.AllValidBitmap;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Moves values between Arrow vectors and {@link Col}s with one loop per vector type, reading the
 * data buffers directly.
 */
public final class Vectors {
  private Vectors() {}

  /** Reads the live rows of {@code batch} from {@code vector} into a new column. */
  public static Col read(FieldVector vector, Batch batch) {
    if (!hasNulls(vector)) {
      Col dense = readWithoutNulls(vector, batch, null);
      return (dense != null ? dense : readAny(vector, batch)).markNoNulls();
    }
    return readAny(vector, batch);
  }

  private static Col readAny(FieldVector vector, Batch batch) {
    int n = batch.count();
    int[] sel = batch.selection();
    switch (vector) {
      case BigIntVector v -> {
        Col.Longs out = new Col.Longs(n);
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (v.isNull(r)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = data.getLong((long) r * 8);
          }
        }
        return out;
      }
      case IntVector v -> {
        Col.Longs out = new Col.Longs(n);
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (v.isNull(r)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = data.getInt((long) r * 4);
          }
        }
        return out;
      }
      case DateDayVector v -> {
        Col.Longs out = new Col.Longs(n);
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (v.isNull(r)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = data.getInt((long) r * 4);
          }
        }
        return out;
      }
      case SmallIntVector v -> {
        Col.Longs out = new Col.Longs(n);
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (v.isNull(r)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = data.getShort((long) r * 2);
          }
        }
        return out;
      }
      case TinyIntVector v -> {
        Col.Longs out = new Col.Longs(n);
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (v.isNull(r)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = data.getByte(r);
          }
        }
        return out;
      }
      case TimeStampVector v -> {
        Col.Longs out = new Col.Longs(n);
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (v.isNull(r)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = data.getLong((long) r * 8);
          }
        }
        return out;
      }
      case Float8Vector v -> {
        Col.Doubles out = new Col.Doubles(n);
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (v.isNull(r)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = data.getDouble((long) r * 8);
          }
        }
        return out;
      }
      case Float4Vector v -> {
        Col.Doubles out = new Col.Doubles(n);
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (v.isNull(r)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = data.getFloat((long) r * 4);
          }
        }
        return out;
      }
      case BitVector v -> {
        Col.Bools out = new Col.Bools(n);
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (v.isNull(r)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = v.get(r) != 0;
          }
        }
        return out;
      }
      case VarCharVector v -> {
        Col.Objects out = new Col.Objects(n);
        ArrowBuf offsets = v.getOffsetBuffer();
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (!v.isNull(r)) {
            int start = offsets.getInt((long) r * 4);
            int end = offsets.getInt((long) (r + 1) * 4);
            byte[] bytes = new byte[end - start];
            data.getBytes(start, bytes);
            out.values[i] = new String(bytes, StandardCharsets.UTF_8);
          }
        }
        return out;
      }
      case DecimalVector v -> {
        Col.Objects out = new Col.Objects(n);
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (!v.isNull(r)) {
            out.values[i] = v.getObject(r);
          }
        }
        return out;
      }
      default -> throw new ExecutionException(
          "cannot read a column of type " + vector.getField().getType());
    }
  }

  /**
   * As {@link #read} for a {@code bigint}, {@code int}, {@code date} or {@code double} column
   * without NULLs, into the arrays of {@code reuse} when it is a column of the same representation
   * with room for the batch (its contents are overwritten), else into new ones. For a consumer
   * that is done with one batch's values before it reads the next (an aggregate's arguments):
   * the arrays are not allocated per batch. Null for other columns; use {@link #read}.
   */
  public static Col readReusing(FieldVector vector, Batch batch, Col reuse) {
    if (hasNulls(vector)) {
      return null;
    }
    Col read = readWithoutNulls(vector, batch, reuse);
    return read == null ? null : read.markNoNulls();
  }

  /**
   * The common case of a fixed-width column without NULLs, read through a {@link MemorySegment}
   * view of its data buffer: one bulk copy for a dense batch, a gather for a selection, into the
   * arrays of {@code reuse} when it has the same representation and room (else new ones). Null for
   * types without a fast path.
   */
  private static Col readWithoutNulls(FieldVector vector, Batch batch, Col reuse) {
    DenseRead read = switch (vector) {
      case BigIntVector v -> DenseRead.LONGS;
      case IntVector v -> DenseRead.INTS;
      case DateDayVector v -> DenseRead.INTS;
      case Float8Vector v -> DenseRead.DOUBLES;
      default -> null;
    };
    return read == null ? null : read.read(segment(vector.getDataBuffer()), batch.selection(), batch.count(), reuse);
  }

  /**
   * The loops of {@link #readWithoutNulls}, one constant per representation, so that each is
   * compiled on its own once a process reads several: the JIT then no longer inlines them all into
   * one method at the shared call, where the loop read last got the weakest code (Q6's price
   * gather, 0.9 -> 1.4-2.6 ms per query after the other TPC-H queries had run).
   */
  private enum DenseRead {
    LONGS {
      @Override
      Col read(MemorySegment data, int[] sel, int n, Col reuse) {
        Col.Longs out = longs(reuse, n);
        if (sel == null) {
          MemorySegment.copy(data, ValueLayout.JAVA_LONG_UNALIGNED, 0, out.values, 0, n);
        } else {
          for (int i = 0; i < n; i++) {
            out.values[i] = data.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, sel[i]);
          }
        }
        return out;
      }
    },
    INTS {
      @Override
      Col read(MemorySegment data, int[] sel, int n, Col reuse) {
        return ints(data, sel, n, longs(reuse, n));
      }
    },
    DOUBLES {
      @Override
      Col read(MemorySegment data, int[] sel, int n, Col reuse) {
        Col.Doubles out = reuse instanceof Col.Doubles d && d.values.length >= n
            ? new Col.Doubles(n, d.values, d.nulls) : new Col.Doubles(n);
        if (sel == null) {
          MemorySegment.copy(data, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, out.values, 0, n);
        } else {
          for (int i = 0; i < n; i++) {
            out.values[i] = data.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, sel[i]);
          }
        }
        return out;
      }
    };

    /** Rows {@code sel[0..n)} of {@code data}, or its first {@code n} when {@code sel} is null. */
    abstract Col read(MemorySegment data, int[] sel, int n, Col reuse);
  }

  /**
   * Writes rows {@code rows[0..n)} of {@code source} into {@code target} (same type) straight
   * between the data buffers when {@code source} has no NULLs: a fixed-width value or a string's
   * bytes at a time, all validity bits set at once. False, with {@code target} untouched, when
   * the column has NULLs, the types differ or the type has no such path.
   */
  public static boolean gatherWithoutNulls(FieldVector source, int[] sel, int n, FieldVector target) {
    if (hasNulls(source)
        || !source.getField().getType().equals(target.getField().getType())) {
      return false;
    }
    if (source instanceof BaseFixedWidthVector fixed && target instanceof BaseFixedWidthVector out
        && !(source instanceof BitVector)) {
      int width = fixed.getTypeWidth();
      out.allocateNew(n);
      MemorySegment from = segment(fixed.getDataBuffer());
      MemorySegment to = segment(out.getDataBuffer());
      switch (width) {
        case 8 -> {
          for (int i = 0; i < n; i++) {
            to.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i,
                from.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, sel[i]));
          }
        }
        case 4 -> {
          for (int i = 0; i < n; i++) {
            to.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i,
                from.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, sel[i]));
          }
        }
        default -> {
          for (int i = 0; i < n; i++) {
            MemorySegment.copy(from, (long) sel[i] * width, to, (long) i * width, width);
          }
        }
      }
      setAllValid(out.getValidityBuffer(), n);
      out.setValueCount(n);
      return true;
    }
    if (source instanceof VarCharVector strings && target instanceof VarCharVector out) {
      MemorySegment offsets = segment(strings.getOffsetBuffer());
      long bytes = 0;
      for (int i = 0; i < n; i++) {
        bytes += offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, sel[i] + 1)
            - offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, sel[i]);
      }
      out.allocateNew(Math.max(1, bytes), n);
      MemorySegment data = segment(strings.getDataBuffer());
      MemorySegment outOffsets = segment(out.getOffsetBuffer());
      MemorySegment outData = segment(out.getDataBuffer());
      int at = 0;
      outOffsets.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, 0, 0);
      for (int i = 0; i < n; i++) {
        int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, sel[i]);
        int length = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, sel[i] + 1) - start;
        MemorySegment.copy(data, start, outData, at, length);
        at += length;
        outOffsets.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i + 1, at);
      }
      setAllValid(out.getValidityBuffer(), n);
      out.setLastSet(n - 1);
      out.setValueCount(n);
      return true;
    }
    return false;
  }

  private static void setAllValid(ArrowBuf validity, int n) {
    int full = n / 8;
    validity.setOne(0, full);
    if (n % 8 != 0) {
      validity.setByte(full, (1 << (n % 8)) - 1);
    }
  }

  private static final ValueLayout.OfLong VALIDITY_WORD =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

  /**
   * Whether any of the vector's rows is NULL: {@code getNullCount() != 0}, read from the validity
   * bitmap a word at a time. Arrow's count reads it a checked long at a time (about 2.4 us per
   * 64K rows), and operators ask several times per batch. A column whose reader shared the
   * {@link AllValidBitmap} is answered without a read. Vectors with no bitmap of their own
   * (nested, null-typed) ask Arrow.
   */
  public static boolean hasNulls(org.apache.arrow.vector.ValueVector vector) {
    int n = vector.getValueCount();
    if (n == 0) {
      return false;
    }
    ArrowBuf validity = vector instanceof BaseFixedWidthVector f ? f.getValidityBuffer()
        : vector instanceof org.apache.arrow.vector.BaseVariableWidthVector v ? v.getValidityBuffer() : null;
    if (validity == null || validity.capacity() < (n + 7) / 8) {
      return vector.getNullCount() != 0;
    }
    if (AllValidBitmap.covers(validity)) {
      return false;
    }
    MemorySegment bits = segment(validity);
    int whole = n >>> 6;
    long all = -1L;
    for (int w = 0; w < whole; w++) {
      all &= bits.getAtIndex(VALIDITY_WORD, w);
    }
    if (all != -1L) {
      return true;
    }
    for (int r = whole << 6; r < n; r++) {
      if ((bits.get(ValueLayout.JAVA_BYTE, r >>> 3) >> (r & 7) & 1) == 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * All of the address space as one segment: views of Arrow buffers are slices of it, which
   * avoids {@link MemorySegment#reinterpret}'s caller check on every batch.
   */
  private static final MemorySegment ADDRESS_SPACE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

  /** A bounds-checked view of {@code buffer}'s memory. */
  public static MemorySegment segment(ArrowBuf buffer) {
    return ADDRESS_SPACE.asSlice(buffer.memoryAddress(), buffer.capacity());
  }

  /** A column of {@code n} longs over the arrays of {@code reuse} if it has them and room, else new. */
  private static Col.Longs longs(Col reuse, int n) {
    return reuse instanceof Col.Longs l && l.values.length >= n ? new Col.Longs(n, l.values, l.nulls) : new Col.Longs(n);
  }

  private static Col.Longs ints(MemorySegment seg, int[] sel, int n, Col.Longs out) {
    if (sel == null) {
      for (int i = 0; i < n; i++) {
        out.values[i] = seg.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
      }
    } else {
      for (int i = 0; i < n; i++) {
        out.values[i] = seg.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, sel[i]);
      }
    }
    return out;
  }

  /**
   * Writes {@code col} into {@code vector} (rows {@code 0..col.size}), replacing its contents.
   *
   * @throws ExecutionException if a value does not fit the vector's type (decimal precision)
   */
  public static void write(Col col, FieldVector vector) {
    int n = col.size;
    vector.clear();
    vector.setInitialCapacity(n);
    vector.allocateNew();
    switch (vector) {
      case BigIntVector v -> {
        Col.Longs c = (Col.Longs) col;
        for (int i = 0; i < n; i++) {
          if (c.nulls[i]) v.setNull(i); else v.set(i, c.values[i]);
        }
      }
      case IntVector v -> {
        Col.Longs c = (Col.Longs) col;
        for (int i = 0; i < n; i++) {
          if (c.nulls[i]) v.setNull(i); else v.set(i, (int) c.values[i]);
        }
      }
      case DateDayVector v -> {
        Col.Longs c = (Col.Longs) col;
        for (int i = 0; i < n; i++) {
          if (c.nulls[i]) v.setNull(i); else v.set(i, Math.toIntExact(c.values[i]));
        }
      }
      case SmallIntVector v -> {
        Col.Longs c = (Col.Longs) col;
        for (int i = 0; i < n; i++) {
          if (c.nulls[i]) v.setNull(i); else v.set(i, (short) c.values[i]);
        }
      }
      case TinyIntVector v -> {
        Col.Longs c = (Col.Longs) col;
        for (int i = 0; i < n; i++) {
          if (c.nulls[i]) v.setNull(i); else v.set(i, (byte) c.values[i]);
        }
      }
      case TimeStampVector v -> {
        Col.Longs c = (Col.Longs) col;
        for (int i = 0; i < n; i++) {
          if (c.nulls[i]) v.setNull(i); else v.set(i, c.values[i]);
        }
      }
      case Float8Vector v -> {
        Col.Doubles c = (Col.Doubles) col;
        for (int i = 0; i < n; i++) {
          if (c.nulls[i]) v.setNull(i); else v.set(i, c.values[i]);
        }
      }
      case Float4Vector v -> {
        Col.Doubles c = (Col.Doubles) col;
        for (int i = 0; i < n; i++) {
          if (c.nulls[i]) v.setNull(i); else v.set(i, (float) c.values[i]);
        }
      }
      case BitVector v -> {
        Col.Bools c = (Col.Bools) col;
        for (int i = 0; i < n; i++) {
          if (c.nulls[i]) v.setNull(i); else v.set(i, c.values[i] ? 1 : 0);
        }
      }
      case VarCharVector v -> {
        Col.Objects c = (Col.Objects) col;
        for (int i = 0; i < n; i++) {
          if (c.values[i] == null) {
            v.setNull(i);
          } else {
            v.setSafe(i, ((String) c.values[i]).getBytes(StandardCharsets.UTF_8));
          }
        }
      }
      case DecimalVector v -> {
        Col.Objects c = (Col.Objects) col;
        int scale = v.getScale();
        int precision = v.getPrecision();
        for (int i = 0; i < n; i++) {
          if (c.values[i] == null) {
            v.setNull(i);
          } else {
            BigDecimal d = ((BigDecimal) c.values[i]).setScale(scale, RoundingMode.HALF_UP);
            if (d.precision() > precision) {
              throw new ExecutionException(
                  "decimal value " + d.toPlainString() + " does not fit DECIMAL(" + precision
                      + "," + scale + ")");
            }
            v.set(i, d);
          }
        }
      }
      case org.apache.arrow.vector.complex.ListVector v -> writeLists((Col.Objects) col, v, -1);
      case org.apache.arrow.vector.complex.FixedSizeListVector v -> writeLists((Col.Objects) col, v, v.getListSize());
      default -> throw new ExecutionException(
          "cannot write a column of type " + vector.getField().getType());
    }
    vector.setValueCount(n);
  }

  /**
   * Writes computed lists ({@link List} values) into a list vector: the elements into its element
   * vector, then each row's offsets (a fixed-size list's rows must have exactly {@code size}).
   */
  private static void writeLists(Col.Objects col, FieldVector vector, int size) {
    int n = col.size;
    List<Object> flat = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<?> l = (List<?>) col.values[i];
      if (size >= 0) {
        if (l != null && l.size() != size) {
          throw new ExecutionException("a list of " + l.size() + " elements does not fit a fixed-size list of "
              + size + " (" + vector.getField().getName() + ")");
        }
        for (int k = 0; k < size; k++) {
          flat.add(l == null ? null : l.get(k));
        }
      } else if (l != null) {
        flat.addAll(l);
      }
    }
    FieldVector data = (FieldVector) vector.getChildrenFromFields().getFirst();
    SqlType element = SqlType.fromArrow(data.getField().getType(), true).orElseThrow(() ->
        new ExecutionException("cannot write a list of " + data.getField().getType()));
    write(fromObjects(element, flat), data);
    switch (vector) {
      case org.apache.arrow.vector.complex.ListVector v -> {
        for (int i = 0; i < n; i++) {
          List<?> l = (List<?>) col.values[i];
          if (l == null) {
            v.setNull(i);
          } else {
            v.startNewValue(i);
            v.endValue(i, l.size());
          }
        }
      }
      case org.apache.arrow.vector.complex.FixedSizeListVector v -> {
        for (int i = 0; i < n; i++) {
          if (col.values[i] == null) {
            v.setNull(i);
          } else {
            v.setNotNull(i);
          }
        }
      }
      default -> throw new IllegalStateException("not a list vector: " + vector.getField());
    }
  }

  /** A column of {@code type} holding {@code values} (boxed as {@link Col#get} returns them). */
  public static Col fromObjects(SqlType type, List<Object> values) {
    int n = values.size();
    Col col = Col.allocate(type, n);
    switch (col) {
      case Col.Longs c -> {
        for (int i = 0; i < n; i++) {
          Object v = values.get(i);
          if (v == null) c.nulls[i] = true; else c.values[i] = (Long) v;
        }
      }
      case Col.Doubles c -> {
        for (int i = 0; i < n; i++) {
          Object v = values.get(i);
          if (v == null) c.nulls[i] = true; else c.values[i] = (Double) v;
        }
      }
      case Col.Bools c -> {
        for (int i = 0; i < n; i++) {
          Object v = values.get(i);
          if (v == null) c.nulls[i] = true; else c.values[i] = (Boolean) v;
        }
      }
      case Col.Objects c -> {
        for (int i = 0; i < n; i++) {
          c.values[i] = values.get(i);
        }
      }
    }
    return col;
  }
}
