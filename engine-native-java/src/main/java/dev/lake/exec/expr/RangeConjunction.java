package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * Column ranges of one conjunction over several columns, tested on a dense batch as one bit
 * mask: each range streams its column once with vector compares and ANDs its bits in (two
 * consecutive ranges on 64-bit columns in one pass over both), and the passing rows are listed
 * once at the end. Testing a range over the survivors of another instead
 * reads its column at scattered rows, one at a time, while touching nearly every cache line of it
 * anyway unless the survivors are few; so once they are (below one row in {@value #SPARSE}), the
 * remaining ranges go over the selection. Batches that already carry a selection are narrowed
 * range by range. Needs {@link dev.lake.exec.Simd#ENABLED}.
 */
final class RangeConjunction implements SelectionFilter {
  /** Survivor density below which the remaining ranges read only the surviving rows. */
  static final int SPARSE = 32;

  private final List<ColumnRange> ranges;
  private long[] words = new long[0];

  RangeConjunction(List<ColumnRange> ranges) {
    this.ranges = List.copyOf(ranges);
  }

  @Override
  public int select(Batch batch, int[] out) {
    int n = batch.count();
    int next = 0;
    int count = n;
    if (batch.selection() == null) {
      if (words.length < (n + 63) >>> 6) {
        words = new long[(n + 63) >>> 6];
      }
      long live = n;
      int listed = ColumnRange.MASKED;
      while (next < ranges.size() && live * SPARSE >= n) {
        ColumnRange range = ranges.get(next);
        FieldVector vector = batch.root().getVector(range.column());
        int paired = next + 1 < ranges.size() ? range.maskWith(ranges.get(next + 1), vector,
            batch.root().getVector(ranges.get(next + 1).column()), n, words, next == 0,
            next + 2 == ranges.size() && SimdRanges.USABLE ? out : null) : ColumnRange.UNPAIRED;
        if (paired != ColumnRange.UNPAIRED) {
          next += 2;
          listed = paired;
        } else if (range.mask(vector, n, words, next == 0)) {
          next++;
        } else {
          break;
        }
        // Counted only to choose how the next range reads its column.
        live = next < ranges.size() ? liveRows(words, n) : 0;
      }
      if (listed >= 0) {
        count = listed;
        batch = new Batch(batch.root(), out, count);
      } else if (next > 0) {
        count = SimdRanges.USABLE ? SimdRanges.rows(words, n, out) : rows(words, n, out);
        batch = new Batch(batch.root(), out, count);
      }
    }
    for (; next < ranges.size() && count > 0; next++) {
      // Once written, out is the batch's selection, narrowed in place (see SelectionFilter#select).
      count = ranges.get(next).select(batch, out);
      batch = new Batch(batch.root(), out, count);
    }
    return count;
  }

  private static long liveRows(long[] words, int n) {
    long live = 0;
    for (int w = 0, used = (n + 63) >>> 6; w < used; w++) {
      live += Long.bitCount(words[w]);
    }
    return live;
  }

  /** Writes the rows whose bits are set, ascending; whole words of passing rows in one run. */
  private static int rows(long[] words, int n, int[] out) {
    int count = 0;
    for (int w = 0, used = (n + 63) >>> 6; w < used; w++) {
      long bits = words[w];
      int base = w << 6;
      if (bits == -1L) {
        for (int j = 0; j < 64; j++) {
          out[count + j] = base + j;
        }
        count += 64;
        continue;
      }
      while (bits != 0) {
        out[count++] = base + Long.numberOfTrailingZeros(bits);
        bits &= bits - 1;
      }
    }
    return count;
  }
}
