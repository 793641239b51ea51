package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import dev.lake.exec.Vectors;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.VarCharVector;

/**
 * A string column of a join's build side kept as UTF-8 bytes (one array of data, one of
 * offsets): a probe that outputs it copies bytes, where a column of {@code String}s would be
 * decoded when built and encoded again for every output row.
 */
final class Utf8Column {
  final byte[] data;
  final int[] offsets;
  final boolean[] nulls;

  private Utf8Column(byte[] data, int[] offsets, boolean[] nulls) {
    this.data = data;
    this.offsets = offsets;
    this.nulls = nulls;
  }

  int size() {
    return nulls.length;
  }

  /** About the heap bytes this column holds. */
  long heapBytes() {
    return 48 + data.length + 5L * nulls.length;
  }

  /** The live rows of {@code batch} from {@code vector}. */
  static Utf8Column read(VarCharVector vector, Batch batch) {
    int n = batch.count();
    int[] offsets = new int[n + 1];
    boolean[] nulls = new boolean[n];
    long total = 0;
    for (int i = 0; i < n; i++) {
      int r = batch.row(i);
      if (vector.isNull(r)) {
        nulls[i] = true;
      } else {
        total += vector.getEndOffset(r) - vector.getStartOffset(r);
      }
    }
    byte[] data = new byte[checkedSize(total)];
    ArrowBuf source = vector.getDataBuffer();
    if (batch.selection() == null && n > 0
        && vector.getEndOffset(n - 1) - vector.getStartOffset(0) == total) {
      // All rows, in order, and NULLs hold no bytes: the values are one range of the vector.
      int base = vector.getStartOffset(0);
      source.getBytes(base, data, 0, data.length);
      for (int i = 0; i <= n; i++) {
        offsets[i] = (i < n ? vector.getStartOffset(i) : vector.getEndOffset(n - 1)) - base;
      }
      return new Utf8Column(data, offsets, nulls);
    }
    int at = 0;
    for (int i = 0; i < n; i++) {
      offsets[i] = at;
      if (!nulls[i]) {
        int r = batch.row(i);
        int start = vector.getStartOffset(r);
        int length = vector.getEndOffset(r) - start;
        source.getBytes(start, data, at, length);
        at += length;
      }
    }
    offsets[n] = at;
    return new Utf8Column(data, offsets, nulls);
  }

  /** One column with the rows of {@code parts} in order. */
  static Utf8Column concat(List<Utf8Column> parts) {
    int n = 0;
    long total = 0;
    for (Utf8Column p : parts) {
      n += p.size();
      total += p.data.length;
    }
    byte[] data = new byte[checkedSize(total)];
    int[] offsets = new int[n + 1];
    boolean[] nulls = new boolean[n];
    int row = 0;
    int at = 0;
    for (Utf8Column p : parts) {
      System.arraycopy(p.data, 0, data, at, p.data.length);
      System.arraycopy(p.nulls, 0, nulls, row, p.size());
      for (int i = 0; i < p.size(); i++) {
        offsets[row + i] = at + p.offsets[i];
      }
      row += p.size();
      at += p.data.length;
    }
    offsets[n] = at;
    return new Utf8Column(data, offsets, nulls);
  }

  /** Writes rows {@code rows[0..n)} into {@code target}; a negative row is NULL (outer joins). */
  void gather(int[] rows, int n, VarCharVector target) {
    long total = 0;
    for (int i = 0; i < n; i++) {
      int r = rows[i];
      if (r >= 0 && !nulls[r]) {
        total += offsets[r + 1] - offsets[r];
      }
    }
    target.clear();
    target.allocateNew(Math.max(1, total), n);
    // The values go into one array, then into the vector in one copy: a copy per value into the
    // vector's memory costs several times more for short strings. VarCharVector.set would also
    // check capacity and validity per row.
    byte[] bytes = new byte[(int) total];
    MemorySegment outOffsets = Vectors.segment(target.getOffsetBuffer());
    ArrowBuf validity = target.getValidityBuffer();
    int at = 0;
    outOffsets.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, 0, 0);
    for (int i = 0; i < n; i++) {
      int r = rows[i];
      if (r >= 0 && !nulls[r]) {
        int length = offsets[r + 1] - offsets[r];
        System.arraycopy(data, offsets[r], bytes, at, length);
        at += length;
        BitVectorHelper.setBit(validity, i);
      }
      outOffsets.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i + 1, at);
    }
    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, Vectors.segment(target.getDataBuffer()), 0, at);
    target.setLastSet(n - 1);
    target.setValueCount(n);
  }

  /** The values as strings (for a target vector other than VarChar). */
  Col toCol() {
    Col.Objects out = new Col.Objects(size());
    for (int i = 0; i < size(); i++) {
      if (!nulls[i]) {
        out.values[i] = new String(data, offsets[i], offsets[i + 1] - offsets[i], StandardCharsets.UTF_8);
      }
    }
    return out;
  }

  private static int checkedSize(long bytes) {
    if (bytes > Integer.MAX_VALUE - 16) {
      throw new ExecutionException(ExecutionException.Kind.LIMIT,
          "a string column of a hash join's build side exceeds 2 GiB", null);
    }
    return (int) bytes;
  }
}
