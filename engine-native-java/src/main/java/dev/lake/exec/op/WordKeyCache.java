package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Vectors;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * A direct-mapped memo from a row's whole GROUP BY key tuple to its group id, for keys that are
 * all input columns whose values fit a word each: strings of up to {@value #SHORT_MAX} UTF-8 bytes
 * (bytes and length packed) and 32-bit integers or dates. A row whose tuple the memo holds gets its
 * group with one probe, instead of one dictionary lookup per key plus the pairwise combination;
 * any other row (a NULL, a longer string, a tuple not cached) asks the caller's exact path and
 * caches the answer when its tuple fits. The memo only repeats answers the exact path gave, so
 * group ids and first-seen order are the same with or without it.
 *
 * <p>Rows are turned into words a chunk at a time, one key column at a time, into reused arrays
 * that stay in the first-level cache. With many distinct tuples the memo would mostly miss and only
 * add work, so a batch where misses are frequent switches it off for the rest of the aggregation.
 */
final class WordKeyCache {
  /** Marks a row the memo cannot key (NULL, long string): no cached tuple holds it. */
  private static final long NO_WORD = -1L;
  private static final int SHORT_MAX = 7;
  private static final int CHUNK = 1024;
  private static final int LINE_BITS = 10;
  private static final ValueLayout.OfLong LITTLE_ENDIAN_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** The exact path: the group of the {@code i}-th live row of the batch being assigned. */
  interface Exact {
    int group(Batch batch, int i);
  }

  private final int[] columns;
  private final int width;
  private final long[][] words;
  private final int[] missRows = new int[CHUNK];
  /** Line {@code l} holds the tuple {@code lineKeys[l * width ..]} and its group, -1 when empty. */
  private final long[] lineKeys;
  private final int[] lineGroups;
  private boolean enabled = true;

  /** @param columns the input column of each key, in key order (at least two keys) */
  WordKeyCache(int[] columns) {
    this.columns = columns.clone();
    this.width = columns.length;
    this.words = new long[width][CHUNK];
    this.lineKeys = new long[width << LINE_BITS];
    this.lineGroups = new int[1 << LINE_BITS];
    Arrays.fill(lineKeys, NO_WORD);
    Arrays.fill(lineGroups, -1);
  }

  /** Whether every key column of {@code batch} has a layout the memo reads. */
  boolean accepts(Batch batch) {
    if (!enabled) {
      return false;
    }
    for (int column : columns) {
      FieldVector v = batch.root().getVector(column);
      if (!(v instanceof VarCharVector || v instanceof IntVector || v instanceof DateDayVector)) {
        return false;
      }
    }
    return true;
  }

  /** Fills {@code groups[0..batch.count())}; call only when {@link #accepts} said yes. */
  void assign(Batch batch, int[] groups, Exact exact) {
    int n = batch.count();
    int[] sel = batch.selection();
    FieldVector[] vectors = new FieldVector[width];
    boolean[] noNulls = new boolean[width];
    for (int k = 0; k < width; k++) {
      vectors[k] = batch.root().getVector(columns[k]);
      // Counting NULLs scans the validity bitmap: once a batch, not once a chunk.
      noNulls[k] = !Vectors.hasNulls(vectors[k]);
    }
    int misses = 0;
    for (int from = 0; from < n; from += CHUNK) {
      int m = Math.min(CHUNK, n - from);
      for (int k = 0; k < width; k++) {
        if (vectors[k] instanceof VarCharVector v) {
          stringWords(v, noNulls[k], sel, from, m, words[k]);
        } else {
          intWords(vectors[k], noNulls[k], sel, from, m, words[k]);
        }
      }
      // Probe without calling out, so the loop keeps its state in registers; the misses are
      // resolved after it, in row order, so new groups are numbered as the exact path would.
      int missed = 0;
      for (int i = 0; i < m; i++) {
        int line = line(i);
        int g = lineGroups[line];
        if (g < 0 || !holds(line, i)) {
          missRows[missed++] = i;
        }
        groups[from + i] = g;
      }
      for (int j = 0; j < missed; j++) {
        int i = missRows[j];
        int g = exact.group(batch, from + i);
        store(line(i), i, g);
        groups[from + i] = g;
      }
      misses += missed;
    }
    if (misses > n / 8 + 64) {
      enabled = false;
    }
  }

  private int line(int i) {
    long h = 0;
    for (int k = 0; k < width; k++) {
      h = (h ^ words[k][i]) * 0x9E3779B97F4A7C15L;
    }
    return (int) (h >>> (64 - LINE_BITS));
  }

  private boolean holds(int line, int i) {
    int at = line * width;
    for (int k = 0; k < width; k++) {
      if (lineKeys[at + k] != words[k][i]) {
        return false;
      }
    }
    return true;
  }

  /** Caches row {@code i}'s tuple unless one of its keys has no word. */
  private void store(int line, int i, int group) {
    for (int k = 0; k < width; k++) {
      if (words[k][i] == NO_WORD) {
        return;
      }
    }
    int at = line * width;
    for (int k = 0; k < width; k++) {
      lineKeys[at + k] = words[k][i];
    }
    lineGroups[line] = group;
  }

  /** A short string's bytes little-endian with its length in the top byte, which is never 0xFF. */
  private static void stringWords(VarCharVector v, boolean noNulls, int[] sel, int from, int m, long[] out) {
    MemorySegment offsets = Vectors.segment(v.getOffsetBuffer());
    MemorySegment data = Vectors.segment(v.getDataBuffer());
    long wordEnd = data.byteSize() - Long.BYTES;
    for (int i = 0; i < m; i++) {
      int r = sel == null ? from + i : sel[from + i];
      int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
      int length = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r + 1) - start;
      if (length <= SHORT_MAX && start <= wordEnd && (noNulls || !v.isNull(r))) {
        long mask = (1L << (length << 3)) - 1;
        out[i] = (data.get(LITTLE_ENDIAN_LONG, start) & mask) | ((long) length << 56);
      } else {
        out[i] = NO_WORD;
      }
    }
  }

  /** A 32-bit value zero-extended, so no value is {@link #NO_WORD}. */
  private static void intWords(FieldVector v, boolean noNulls, int[] sel, int from, int m, long[] out) {
    MemorySegment data = Vectors.segment(v.getDataBuffer());
    for (int i = 0; i < m; i++) {
      int r = sel == null ? from + i : sel[from + i];
      long word = data.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r) & 0xFFFFFFFFL;
      out[i] = noNulls || !v.isNull(r) ? word : NO_WORD;
    }
  }
}
