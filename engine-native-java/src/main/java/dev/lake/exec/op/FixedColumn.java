package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.Vectors;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A fixed-width column of a join's build side (integers, dates, decimals, floats) kept as the
 * Arrow vector's bytes: building it is a memory copy, and a probe that outputs it copies each
 * value's bytes into the output vector. Reading it into a {@link Col} instead would box every
 * decimal when built and convert it back for every output row.
 */
final class FixedColumn {
  final int width;
  final byte[] data;
  /** Null flags per row, or null when no row is NULL. */
  final boolean[] nulls;
  final int size;

  private FixedColumn(int width, byte[] data, boolean[] nulls, int size) {
    this.width = width;
    this.data = data;
    this.nulls = nulls;
    this.size = size;
  }

  /** Whether {@code vector}'s values can be kept as bytes: fixed width, not bit-packed. */
  static boolean fits(FieldVector vector) {
    return vector instanceof BaseFixedWidthVector && !(vector instanceof BitVector);
  }

  /** About the heap bytes this column holds. */
  long heapBytes() {
    return 48 + data.length + (nulls == null ? 0 : nulls.length);
  }

  /** The live rows of {@code batch} from {@code vector} (one that {@link #fits}). */
  static FixedColumn read(FieldVector vector, Batch batch) {
    BaseFixedWidthVector fixed = (BaseFixedWidthVector) vector;
    int width = fixed.getTypeWidth();
    int n = batch.count();
    byte[] data = new byte[checkedSize((long) n * width)];
    MemorySegment to = MemorySegment.ofArray(data);
    MemorySegment from = Vectors.segment(fixed.getDataBuffer());
    if (batch.selection() == null) {
      MemorySegment.copy(from, 0, to, 0, (long) n * width);
    } else {
      for (int i = 0; i < n; i++) {
        MemorySegment.copy(from, (long) batch.row(i) * width, to, (long) i * width, width);
      }
    }
    boolean[] nulls = null;
    if (Vectors.hasNulls(vector)) {
      nulls = new boolean[n];
      for (int i = 0; i < n; i++) {
        nulls[i] = vector.isNull(batch.row(i));
      }
    }
    return new FixedColumn(width, data, nulls, n);
  }

  /** One column with the rows of {@code parts} in order. */
  static FixedColumn concat(List<FixedColumn> parts, int width) {
    int n = 0;
    boolean anyNull = false;
    for (FixedColumn p : parts) {
      n += p.size;
      anyNull |= p.nulls != null;
    }
    byte[] data = new byte[checkedSize((long) n * width)];
    boolean[] nulls = anyNull ? new boolean[n] : null;
    int row = 0;
    for (FixedColumn p : parts) {
      System.arraycopy(p.data, 0, data, row * width, p.size * width);
      if (p.nulls != null) {
        System.arraycopy(p.nulls, 0, nulls, row, p.size);
      }
      row += p.size;
    }
    return new FixedColumn(width, data, nulls, n);
  }

  /**
   * Writes rows {@code rows[0..n)} into {@code target}, a vector of the type the bytes came from;
   * a negative row is NULL (outer joins).
   */
  void gather(int[] rows, int n, BaseFixedWidthVector target) {
    target.allocateNew(n);
    // With no build rows every row is NULL and there are no bytes to copy.
    if (size > 0) {
      copyRows(MemorySegment.ofArray(data), width, rows, n, Vectors.segment(target.getDataBuffer()));
    }
    setAllValid(target.getValidityBuffer(), n);
    for (int i = 0; i < n; i++) {
      int r = rows[i];
      if (r < 0 || (nulls != null && nulls[r])) {
        target.setNull(i);
      }
    }
    target.setValueCount(n);
  }

  /**
   * Writes rows {@code rows[0..n)} of {@code source} into {@code target}, a vector of the same
   * type (a probe column of a join's output); false, writing nothing, when the vector's values
   * are not kept as plain fixed-width bytes.
   */
  static boolean gather(FieldVector source, int[] rows, int n, FieldVector target) {
    if (!fits(source) || !source.getField().getType().equals(target.getField().getType())) {
      return false;
    }
    BaseFixedWidthVector out = (BaseFixedWidthVector) target;
    out.allocateNew(n);
    copyRows(Vectors.segment(source.getDataBuffer()), ((BaseFixedWidthVector) source).getTypeWidth(), rows, n,
        Vectors.segment(out.getDataBuffer()));
    setAllValid(out.getValidityBuffer(), n);
    boolean nulls = Vectors.hasNulls(source);
    for (int i = 0; nulls && i < n; i++) {
      if (source.isNull(rows[i])) {
        out.setNull(i);
      }
    }
    out.setValueCount(n);
    return true;
  }

  /**
   * Copies the {@code width}-byte values at {@code rows[0..n)} of {@code from} to positions
   * {@code 0..n-1} of {@code to}; a negative row copies row 0 (its validity bit is cleared
   * after). Common widths move as whole words: a bulk copy per value costs several times more.
   */
  private static void copyRows(MemorySegment from, int width, int[] rows, int n, MemorySegment to) {
    switch (width) {
      case 16 -> {
        for (int i = 0; i < n; i++) {
          long at = 2L * Math.max(rows[i], 0);
          to.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 2L * i, from.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, at));
          to.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 2L * i + 1,
              from.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, at + 1));
        }
      }
      case 8 -> {
        for (int i = 0; i < n; i++) {
          int r = Math.max(rows[i], 0);
          to.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, from.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, r));
        }
      }
      case 4 -> {
        for (int i = 0; i < n; i++) {
          int r = Math.max(rows[i], 0);
          to.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, from.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r));
        }
      }
      default -> {
        for (int i = 0; i < n; i++) {
          MemorySegment.copy(from, (long) Math.max(rows[i], 0) * width, to, (long) i * width, width);
        }
      }
    }
  }

  private static void setAllValid(ArrowBuf validity, int n) {
    int full = n / 8;
    validity.setOne(0, full);
    if (n % 8 != 0) {
      validity.setByte(full, (1 << (n % 8)) - 1);
    }
  }

  /**
   * The values as a column of {@code field}'s type, for a build column whose parts did not all
   * keep bytes; the conversion goes through a temporary vector of {@code allocator}.
   */
  Col toCol(Field field, BufferAllocator allocator) {
    int[] all = new int[size];
    for (int i = 0; i < size; i++) {
      all[i] = i;
    }
    try (VectorSchemaRoot root = VectorSchemaRoot.of(field.createVector(allocator))) {
      gather(all, size, (BaseFixedWidthVector) root.getVector(0));
      root.setRowCount(size);
      return Vectors.read(root.getVector(0), Batch.dense(root));
    }
  }

  private static int checkedSize(long bytes) {
    if (bytes > Integer.MAX_VALUE - 16) {
      throw new ExecutionException(ExecutionException.Kind.LIMIT,
          "a column of a hash join's build side exceeds 2 GiB", null);
    }
    return (int) bytes;
  }
}
