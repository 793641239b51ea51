package dev.lake.engine.log.segment;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * A block assembled from pieces of several batches, for the rows that do not fill a whole block
 * within one batch. Pieces are appended with bulk copies: values with one memory copy, bitmaps
 * shifted a byte at a time, offsets re-based in one pass.
 */
final class StagedBlock implements AutoCloseable {

  private final List<ColumnKind> kinds;
  private final BufferAllocator allocator;
  private final ArrowBuf[] validity;
  private final ArrowBuf[] offsets;
  private final ArrowBuf[] values;
  private final long[] valueBytes;
  private int rows;

  StagedBlock(List<ColumnKind> kinds, int blockRows, BufferAllocator allocator) {
    this.kinds = List.copyOf(kinds);
    this.allocator = allocator;
    int n = kinds.size();
    validity = new ArrowBuf[n];
    offsets = new ArrowBuf[n];
    values = new ArrowBuf[n];
    valueBytes = new long[n];
    for (int c = 0; c < n; c++) {
      ColumnKind kind = kinds.get(c);
      validity[c] = zeroed(kind.bufferLength(0, blockRows));
      if (kind.variableWidth()) {
        offsets[c] = zeroed(kind.bufferLength(1, blockRows));
        values[c] = zeroed(blockRows * 16L);
      } else {
        values[c] = zeroed(kind.bufferLength(1, blockRows));
      }
    }
  }

  int rows() {
    return rows;
  }

  /**
   * Copies rows {@code [from, from + n)} of {@code vectors} (one per column, in schema order)
   * after the staged rows; the caller keeps the total within the block size.
   */
  void append(List<FieldVector> vectors, int from, int n) {
    for (int c = 0; c < kinds.size(); c++) {
      ColumnKind kind = kinds.get(c);
      FieldVector v = vectors.get(c);
      Bits.copy(v.getValidityBuffer(), from, validity[c], rows, n);
      ArrowBuf data = v.getDataBuffer();
      if (kind == ColumnKind.BOOL) {
        Bits.copy(data, from, values[c], rows, n);
      } else if (kind.variableWidth()) {
        ArrowBuf src = v.getOffsetBuffer();
        int start = src.getInt((long) from * 4);
        int end = src.getInt((long) (from + n) * 4);
        long base = valueBytes[c];
        long delta = base - start;
        if (base + (end - start) > Integer.MAX_VALUE) {
          throw new IllegalArgumentException("a block's " + kind + " values exceed 2 GiB");
        }
        ColumnSlicer.rebase(ColumnSlicer.view(src, (long) from * 4, (n + 1L) * 4),
            ColumnSlicer.view(offsets[c], (long) rows * 4, (n + 1L) * 4), n + 1, (int) -delta);
        copyValues(c, data, start, end - start, base);
      } else {
        long width = kind.bufferLength(1, 1);
        copyValues(c, data, from * width, n * width, rows * width);
      }
    }
    rows += n;
  }

  /** The staged rows as slices, valid until {@link #clear()}. */
  List<ColumnSlice> slices() {
    List<ColumnSlice> out = new ArrayList<>(kinds.size());
    for (int c = 0; c < kinds.size(); c++) {
      ColumnKind kind = kinds.get(c);
      long bitmapBytes = kind.bufferLength(0, rows);
      out.add(new ColumnSlice(rows,
          ColumnSlicer.view(validity[c], 0, bitmapBytes),
          kind.variableWidth() ? ColumnSlicer.view(offsets[c], 0, (rows + 1L) * 4) : null,
          ColumnSlicer.view(values[c], 0, kind.variableWidth() ? valueBytes[c] : kind.bufferLength(1, rows))));
    }
    return out;
  }

  /** Empties the block; bitmaps are zeroed so bits past the last row stay zero. */
  void clear() {
    for (int c = 0; c < kinds.size(); c++) {
      long bitmapBytes = kinds.get(c).bufferLength(0, rows);
      validity[c].setZero(0, bitmapBytes);
      if (kinds.get(c) == ColumnKind.BOOL) {
        values[c].setZero(0, bitmapBytes);
      }
      valueBytes[c] = 0;
    }
    rows = 0;
  }

  private void copyValues(int c, ArrowBuf src, long srcIndex, long length, long at) {
    if (at + length > values[c].capacity()) {
      ArrowBuf bigger = allocator.buffer(Math.max(values[c].capacity() * 2, at + length));
      bigger.setBytes(0, values[c], 0, at);
      values[c].close();
      values[c] = bigger;
    }
    values[c].setBytes(at, src, srcIndex, length);
    valueBytes[c] = at + length;
  }

  private ArrowBuf zeroed(long bytes) {
    ArrowBuf buf = allocator.buffer(Math.max(bytes, 8));
    buf.setZero(0, buf.capacity());
    return buf;
  }

  @Override
  public void close() {
    for (ArrowBuf[] group : List.of(validity, offsets, values)) {
      for (ArrowBuf b : group) {
        if (b != null) {
          b.close();
        }
      }
    }
  }
}
