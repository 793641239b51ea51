package dev.lake.exec.op;

import dev.lake.exec.Col;
import dev.lake.exec.HeapBudget;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;

/**
 * A window's sort: a stable sort of some input rows by their partition and order keys on
 * normalized keys. Each key becomes an unsigned integer per row that orders as the key does
 * (its value less the smallest one, reversed when descending, NULLs below or above every value;
 * doubles by their bits made to order as {@link Double#compare}, strings and decimals by their
 * rank among the rows' values), adjacent keys are packed into one {@code long} while their
 * ranges fit, and a least-significant-digit radix sort on bytes (skipping bytes all rows share)
 * orders the rows by the packed keys, least significant first. Every pass is stable, so ties
 * keep their input order, as a stable comparison sort would.
 */
final class WindowSort {
  private static final int RADIX_BITS = 8;
  private static final int RADIX = 1 << RADIX_BITS;

  /** One sort key: a column of all input rows, its direction and where its NULLs go. */
  record Key(Col col, boolean descending, boolean nullsFirst) {}

  /** One key as an unsigned integer of {@code bits} bits per position. */
  private record Normalized(IntToLongFunction at, int bits) {}

  private WindowSort() {}

  /**
   * The rows in the keys' order and, when every key's normalized bits fit one {@code long}, the
   * packed key of each sorted position: two positions hold equal packed keys exactly when their
   * rows agree on every key ({@code NULL}s equal, doubles by {@link Double#compare}), and equal
   * bits above the lowest {@code trailingBits} exactly when they agree on the leading keys.
   *
   * @param packed null when the keys took more than one {@code long}, or when fewer than two rows
   *     or no key tells the rows apart
   */
  record Sorted(int[] ord, long[] packed, int trailingBits) {}

  /**
   * @param rows input rows in ascending order
   * @param keys most significant first
   * @return {@code rows} in the keys' order, equal keys in input order
   */
  static int[] sort(int[] rows, List<Key> keys, HeapBudget budget) {
    return sort(rows, keys, keys.size(), budget).ord();
  }

  /**
   * As {@link #sort(int[], List, HeapBudget)}, keeping the packed keys when they fit one
   * {@code long}, with {@link Sorted#trailingBits} the bits of the keys after the first
   * {@code leading} (a window's partition keys).
   */
  static Sorted sort(int[] rows, List<Key> keys, int leading, HeapBudget budget) {
    int m = rows.length;
    List<Normalized> normalized = new ArrayList<>();
    int trailingBits = 0;
    for (int k = 0; k < keys.size(); k++) {
      int before = normalized.size();
      normalize(keys.get(k), rows, normalized, budget);
      if (k >= leading) {
        for (Normalized added : normalized.subList(before, normalized.size())) {
          trailingBits += added.bits();
        }
      }
    }
    if (normalized.isEmpty() || m < 2) {
      return new Sorted(rows.clone(), null, 0);
    }
    budget.charge(24L * m);
    int[] perm = new int[m];
    for (int i = 0; i < m; i++) {
      perm[i] = i;
    }
    int[] permTmp = new int[m];
    long[] packed = new long[m];
    long[] packedTmp = new long[m];
    int[] counts = new int[RADIX];
    boolean oneSegment = true;
    // Segments of adjacent keys whose bits fit one long, least significant first.
    int last = normalized.size();
    while (last > 0) {
      int first = last - 1;
      int bits = normalized.get(first).bits();
      while (first > 0 && bits + normalized.get(first - 1).bits() <= 64) {
        first--;
        bits += normalized.get(first).bits();
      }
      oneSegment &= first == 0 && last == normalized.size();
      List<Normalized> segment = normalized.subList(first, last);
      gather(segment, perm, packed);
      for (int shift = 0; shift < bits; shift += RADIX_BITS) {
        if (pass(shift, perm, packed, permTmp, packedTmp, counts)) {
          int[] p = perm;
          perm = permTmp;
          permTmp = p;
          long[] k = packed;
          packed = packedTmp;
          packedTmp = k;
        }
      }
      last = first;
    }
    int[] ord = new int[m];
    for (int i = 0; i < m; i++) {
      ord[i] = rows[perm[i]];
    }
    // packed[i] is the key of perm[i] after every pass, so of ord[i].
    return new Sorted(ord, oneSegment ? packed : null, trailingBits);
  }

  /** The packed keys of {@code segment} (most significant first) at each position of {@code perm}. */
  private static void gather(List<Normalized> segment, int[] perm, long[] packed) {
    int m = perm.length;
    if (segment.size() == 1) {
      IntToLongFunction at = segment.getFirst().at();
      for (int i = 0; i < m; i++) {
        packed[i] = at.applyAsLong(perm[i]);
      }
      return;
    }
    java.util.Arrays.fill(packed, 0L);
    for (Normalized n : segment) {
      IntToLongFunction at = n.at();
      int bits = n.bits();
      for (int i = 0; i < m; i++) {
        packed[i] = (packed[i] << bits) | at.applyAsLong(perm[i]);
      }
    }
  }

  /** One stable counting pass on the byte at {@code shift}; false (nothing moved) when every key shares it. */
  private static boolean pass(int shift, int[] perm, long[] packed, int[] permOut, long[] packedOut, int[] counts) {
    int m = perm.length;
    java.util.Arrays.fill(counts, 0);
    for (int i = 0; i < m; i++) {
      counts[(int) (packed[i] >>> shift) & (RADIX - 1)]++;
    }
    int sum = 0;
    for (int d = 0; d < RADIX; d++) {
      int c = counts[d];
      if (c == m) {
        return false;
      }
      counts[d] = sum;
      sum += c;
    }
    for (int i = 0; i < m; i++) {
      long k = packed[i];
      int at = counts[(int) (k >>> shift) & (RADIX - 1)]++;
      permOut[at] = perm[i];
      packedOut[at] = k;
    }
    return true;
  }

  /** Adds {@code key} at positions of {@code rows} as normalized keys (none when every row agrees). */
  private static void normalize(Key key, int[] rows, List<Normalized> out, HeapBudget budget) {
    Col col = key.col();
    IntToLongFunction raw = switch (col) {
      case Col.Longs c -> p -> c.values[rows[p]];
      case Col.Doubles c -> p -> sortable(c.values[rows[p]]);
      case Col.Bools c -> p -> c.values[rows[p]] ? 1 : 0;
      case Col.Objects c -> ranks(c, rows, budget);
    };
    int m = rows.length;
    boolean anyNull = false;
    boolean anyValue = false;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    boolean noNulls = col.noNulls();
    for (int p = 0; p < m; p++) {
      if (!noNulls && col.isNull(rows[p])) {
        anyNull = true;
        continue;
      }
      anyValue = true;
      long v = raw.applyAsLong(p);
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    if (!anyValue) {
      return;
    }
    long range = max - min;
    long low = min;
    boolean descending = key.descending();
    IntToLongFunction value = descending ? p -> range - (raw.applyAsLong(p) - low) : p -> raw.applyAsLong(p) - low;
    if (!anyNull) {
      add(out, value, range);
      return;
    }
    IntToLongFunction isNull = p -> col.isNull(rows[p]) ? 1 : 0;
    boolean nullsFirst = key.nullsFirst();
    if (range != -1L) {
      add(out, nullsFirst
          ? p -> col.isNull(rows[p]) ? 0 : value.applyAsLong(p) + 1
          : p -> col.isNull(rows[p]) ? range + 1 : value.applyAsLong(p), range + 1);
      return;
    }
    // Every 64-bit value is taken: NULLs get a key of their own, more significant.
    add(out, nullsFirst ? p -> 1 - isNull.applyAsLong(p) : isNull, 1);
    add(out, p -> col.isNull(rows[p]) ? 0 : value.applyAsLong(p), range);
  }

  private static void add(List<Normalized> out, IntToLongFunction at, long range) {
    int bits = 64 - Long.numberOfLeadingZeros(range);
    if (bits > 0) {
      out.add(new Normalized(at, bits));
    }
  }

  /** A double's bits as a long that orders as {@link Double#compare} (NaN last, -0.0 before 0.0). */
  static long sortable(double d) {
    long bits = Double.doubleToLongBits(d);
    return bits ^ ((bits >> 63) & Long.MAX_VALUE);
  }

  /** Each position's rank among the non-NULL values at {@code rows} (equal values, equal rank). */
  private static IntToLongFunction ranks(Col.Objects c, int[] rows, HeapBudget budget) {
    int m = rows.length;
    budget.charge(12L * m);
    int[] order = new int[m];
    int count = 0;
    for (int p = 0; p < m; p++) {
      if (c.values[rows[p]] != null) {
        order[count++] = p;
      }
    }
    SortOperator.RowComparator cmp = (a, b) -> compare(c.values[rows[a]], c.values[rows[b]]);
    SortOperator.mergeSort(order, new int[m], 0, count, cmp);
    int[] rank = new int[m];
    int r = 0;
    for (int i = 0; i < count; i++) {
      if (i > 0 && cmp.compare(order[i - 1], order[i]) != 0) {
        r++;
      }
      rank[order[i]] = r;
    }
    return p -> rank[p];
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compare(Object a, Object b) {
    return ((Comparable) a).compareTo(b);
  }

  /**
   * A hash of input row {@code row}'s values in {@code cols}, equal for rows the window puts in
   * one partition (NULLs alike, 0.0 and -0.0 alike, decimals equal in value alike).
   */
  static long hash(Col[] cols, int row) {
    long h = 0;
    for (Col col : cols) {
      long v;
      if (col.isNull(row)) {
        v = 0x5bd1e995L;
      } else {
        v = switch (col) {
          case Col.Longs c -> c.values[row];
          case Col.Doubles c -> c.values[row] == 0 ? 0 : Double.doubleToLongBits(c.values[row]);
          case Col.Bools c -> c.values[row] ? 1 : 2;
          case Col.Objects c -> c.values[row] instanceof BigDecimal d
              ? d.stripTrailingZeros().hashCode() : c.values[row].hashCode();
        };
      }
      h = (h + v) * 0x9E3779B97F4A7C15L;
      h ^= h >>> 29;
    }
    return h * 0xBF58476D1CE4E5B9L ^ (h >>> 31);
  }
}
