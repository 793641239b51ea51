package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Simd;
import dev.lake.exec.Vectors;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Group ids looked up directly by the key bytes, for batches whose keys are all string columns
 * without NULLs in which every value has the same length of at most {@value #MAX_LENGTH} bytes
 * (flags, status and country codes), together at most {@value #MAX_BITS} bits: the bytes of a row's
 * keys, side by side, index a table of group ids. A row costs a byte load per key and one table
 * read, where hashing strings costs several loads and compares per key. A code the table does not
 * know yet asks the caller's exact path, so group ids and their order are the exact path's.
 *
 * <p>The table serves the lengths of the first batch it accepted; a batch of other lengths, with
 * NULLs or with a longer value is left to the caller's other paths.
 */
final class NarrowKeyTable {
  private static final int MAX_LENGTH = 2;
  private static final int MAX_BITS = 16;
  private static final int CHUNK = 1024;
  private static final ValueLayout.OfShort LITTLE_ENDIAN_SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final int[] columns;
  /** Each key's value length in bytes, fixed by the first batch accepted; null before it. */
  private int[] lengths;
  /** Group id + 1 by key code; 0 for a code not seen yet. */
  private int[] table;
  private final int[] codes = new int[CHUNK];
  private final int[] missRows = new int[CHUNK];

  /** @param columns the input column of each key, in key order; every key is a string */
  NarrowKeyTable(int[] columns) {
    this.columns = columns.clone();
  }

  /**
   * Fills {@code groups[0..batch.count())} and returns true when the batch's keys fit the table;
   * else returns false and leaves {@code groups} alone.
   */
  boolean assign(Batch batch, int[] groups, WordKeyCache.Exact exact) {
    VarCharVector[] vectors = fitting(batch);
    if (vectors == null) {
      return false;
    }
    int n = batch.count();
    int[] sel = batch.selection();
    for (int from = 0; from < n; from += CHUNK) {
      int m = Math.min(CHUNK, n - from);
      int shift = 0;
      for (int k = 0; k < vectors.length; k++) {
        addCodes(vectors[k], lengths[k], shift, k == 0, sel, from, m);
        shift += lengths[k] * Byte.SIZE;
      }
      // The misses are resolved after the probe loop, in row order, so new groups are numbered
      // as the exact path numbers them and the loop itself never calls out.
      int missed = 0;
      for (int i = 0; i < m; i++) {
        int g = table[codes[i]] - 1;
        if (g < 0) {
          missRows[missed++] = i;
        }
        groups[from + i] = g;
      }
      for (int j = 0; j < missed; j++) {
        int i = missRows[j];
        int code = codes[i];
        if (table[code] == 0) {
          table[code] = exact.group(batch, from + i) + 1;
        }
        groups[from + i] = table[code] - 1;
      }
    }
    return true;
  }

  /** The key vectors when the batch fits the table's lengths (fixing them on the first batch), else null. */
  private VarCharVector[] fitting(Batch batch) {
    VarCharVector[] vectors = new VarCharVector[columns.length];
    int[] found = new int[columns.length];
    int bits = 0;
    for (int k = 0; k < columns.length; k++) {
      FieldVector v = batch.root().getVector(columns[k]);
      if (!(v instanceof VarCharVector s) || Vectors.hasNulls(s)) {
        return null;
      }
      found[k] = fixedLength(s);
      if (found[k] < 0 || (lengths != null && found[k] != lengths[k])) {
        return null;
      }
      vectors[k] = s;
      bits += found[k] * Byte.SIZE;
    }
    if (bits > MAX_BITS) {
      return null;
    }
    if (lengths == null) {
      lengths = found;
      table = new int[1 << bits];
    }
    return vectors;
  }

  /** The length every value of {@code v} has, if it is at most {@value #MAX_LENGTH}; else -1. */
  private static int fixedLength(VarCharVector v) {
    int rows = v.getValueCount();
    if (rows == 0) {
      return -1;
    }
    MemorySegment offsets = Vectors.segment(v.getOffsetBuffer());
    int first = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, 0);
    int length = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, 1) - first;
    if (length > MAX_LENGTH) {
      return -1;
    }
    if (Simd.ENABLED) {
      return EvenOffsets.onLine(offsets, rows + 1, first, length) ? length : -1;
    }
    // Equal lengths put every offset on one line: no per-row subtraction, no early exit.
    int off = 0;
    for (int r = 0; r <= rows; r++) {
      off |= offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r) ^ (first + r * length);
    }
    return off == 0 ? length : -1;
  }

  /** Puts key bytes of rows {@code from..from+m} at bit {@code shift} of {@link #codes}. */
  private void addCodes(VarCharVector v, int length, int shift, boolean first, int[] sel, int from, int m) {
    int[] out = codes;
    if (first) {
      java.util.Arrays.fill(out, 0, m, 0);
    }
    if (length == 0) {
      return;
    }
    MemorySegment data = Vectors.segment(v.getDataBuffer());
    long base = Vectors.segment(v.getOffsetBuffer()).getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, 0);
    if (length == 1) {
      for (int i = 0; i < m; i++) {
        int r = sel == null ? from + i : sel[from + i];
        out[i] |= (data.get(ValueLayout.JAVA_BYTE, base + r) & 0xFF) << shift;
      }
    } else {
      for (int i = 0; i < m; i++) {
        int r = sel == null ? from + i : sel[from + i];
        out[i] |= (data.get(LITTLE_ENDIAN_SHORT, base + 2L * r) & 0xFFFF) << shift;
      }
    }
  }
}
