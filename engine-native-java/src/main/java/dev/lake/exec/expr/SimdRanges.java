package dev.lake.exec.expr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link ColumnRange}'s loops over a dense column (no selection, no nulls) with the Vector API:
 * a vector of values is compared with both bounds at once and the row numbers of the lanes that
 * pass are compressed into the output. Only used where a compress is one instruction (512-bit
 * vectors, AVX-512); elsewhere the scalar loops are as fast. Loaded only when
 * {@link dev.lake.exec.Simd#ENABLED}.
 */
final class SimdRanges {
  private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_PREFERRED;
  /** Row numbers for 64-bit lanes: as many int lanes as there are long lanes. */
  private static final VectorSpecies<Integer> ROWS_OF_WIDE =
      VectorSpecies.of(int.class, VectorShape.forBitSize(LONGS.vectorBitSize() / 2));

  /** Whether this hardware compresses in one instruction. */
  static final boolean USABLE = INTS.vectorBitSize() >= 512;

  private static final IntVector IOTA = IntVector.zero(INTS).addIndex(1);
  private static final IntVector WIDE_IOTA = IntVector.zero(ROWS_OF_WIDE).addIndex(1);
  /** Sixteen row numbers: the bits of a mask word are listed a quarter at a time. */
  private static final VectorSpecies<Integer> ROWS16 = IntVector.SPECIES_512;
  private static final IntVector IOTA16 = IntVector.zero(ROWS16).addIndex(1);

  private SimdRanges() {}

  /** Rows {@code 0..n-1} of 32-bit {@code data} within {@code [lo, hi]}, written to {@code out}. */
  static int ints(MemorySegment data, int n, int lo, int hi, int[] out) {
    int lanes = INTS.length();
    int count = 0;
    int r = 0;
    for (int bound = INTS.loopBound(n); r < bound; r += lanes) {
      IntVector v = IntVector.fromMemorySegment(INTS, data, (long) r * 4, ByteOrder.LITTLE_ENDIAN);
      VectorMask<Integer> pass = v.compare(VectorOperators.GE, lo).and(v.compare(VectorOperators.LE, hi));
      IOTA.add(r).compress(pass).intoArray(out, count);
      count += pass.trueCount();
    }
    for (; r < n; r++) {
      int v = data.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
      out[count] = r;
      count += v >= lo & v <= hi ? 1 : 0;
    }
    return count;
  }

  /** Rows {@code 0..n-1} of 64-bit {@code data} within {@code [lo, hi]}, written to {@code out}. */
  static int longs(MemorySegment data, int n, long lo, long hi, int[] out) {
    int lanes = LONGS.length();
    int count = 0;
    int r = 0;
    for (int bound = LONGS.loopBound(n); r < bound; r += lanes) {
      LongVector v = LongVector.fromMemorySegment(LONGS, data, (long) r * 8, ByteOrder.LITTLE_ENDIAN);
      VectorMask<Long> pass = v.compare(VectorOperators.GE, lo).and(v.compare(VectorOperators.LE, hi));
      count = emit(pass.cast(ROWS_OF_WIDE), r, out, count);
    }
    for (; r < n; r++) {
      long v = data.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, r);
      out[count] = r;
      count += v >= lo & v <= hi ? 1 : 0;
    }
    return count;
  }

  /**
   * Rows {@code 0..n-1} of {@code double} {@code data} within {@code [lo, hi]}, written to
   * {@code out}; NaN fails both bounds, as in the scalar loop.
   */
  static int doubles(MemorySegment data, int n, double lo, double hi, int[] out) {
    int lanes = DOUBLES.length();
    int count = 0;
    int r = 0;
    for (int bound = DOUBLES.loopBound(n); r < bound; r += lanes) {
      DoubleVector v = DoubleVector.fromMemorySegment(DOUBLES, data, (long) r * 8, ByteOrder.LITTLE_ENDIAN);
      VectorMask<Double> pass = v.compare(VectorOperators.GE, lo).and(v.compare(VectorOperators.LE, hi));
      count = emit(pass.cast(ROWS_OF_WIDE), r, out, count);
    }
    for (; r < n; r++) {
      double v = data.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, r);
      out[count] = r;
      count += v >= lo & v <= hi ? 1 : 0;
    }
    return count;
  }

  /**
   * {@link #doublesMask} for {@code 0 < lo <= hi}: positive doubles order as their bits do, so
   * {@code lo <= v <= hi} is {@code bits(v) - bits(lo) <= bits(hi) - bits(lo)} unsigned. Every
   * other value fails it as it fails the comparisons: zeros, negatives and NaNs of either sign
   * lie below {@code bits(lo)} or above {@code bits(+inf)}, so they wrap past the span.
   */
  private static void positiveRangeMask(MemorySegment data, int whole, double lo, double hi, long[] words, boolean first) {
    int lanes = LONGS.length();
    long low = Double.doubleToRawLongBits(lo);
    long span = Double.doubleToRawLongBits(hi) - low;
    for (int w = 0; w < whole; w++) {
      long bits = 0;
      for (int j = 0; j < 64; j += lanes) {
        LongVector v = LongVector.fromMemorySegment(LONGS, data, ((long) (w << 6) + j) * 8, ByteOrder.LITTLE_ENDIAN);
        bits |= v.sub(low).compare(VectorOperators.ULE, span).toLong() << j;
      }
      words[w] = first ? bits : words[w] & bits;
    }
  }

  /*
   * Pair forms: two ranges on two 64-bit columns tested in one pass over both, a row's bit set
   * when it passes both. A mask loop is bound by the cache lines it has in flight, and one pass
   * over two columns issues fewer instructions per line than two passes (TPC-H Q6's discount and
   * quantity: 4.3 -> 3.9 ms with the date mask). Each side is either an unsigned range of the raw
   * 64 bits ({@code bits - low <= span}: integers, and doubles above zero, see
   * {@link #positiveRangeMask}) or a double range tested with two compares. Given {@code rows},
   * the pass is a conjunction's last: instead of storing each word it lists the word's rows there
   * and returns their count (the loop waits on memory, so listing costs next to nothing inside
   * it, against about 0.45 ms of Q6 as a pass of its own).
   */

  /** Both sides unsigned ranges of their bits. */
  static int pairMaskBits(MemorySegment a, long aLow, long aSpan, MemorySegment b, long bLow, long bSpan, int n,
      long[] words, boolean first, int[] rows) {
    int lanes = LONGS.length();
    int whole = n >>> 6;
    int count = 0;
    for (int w = 0; w < whole; w++) {
      long bits = 0;
      for (int j = 0; j < 64; j += lanes) {
        long at = ((long) (w << 6) + j) * 8;
        LongVector x = LongVector.fromMemorySegment(LONGS, a, at, ByteOrder.LITTLE_ENDIAN);
        LongVector y = LongVector.fromMemorySegment(LONGS, b, at, ByteOrder.LITTLE_ENDIAN);
        bits |= (x.sub(aLow).compare(VectorOperators.ULE, aSpan).toLong()
            & y.sub(bLow).compare(VectorOperators.ULE, bSpan).toLong()) << j;
      }
      count = finish(bits, w, words, first, rows, count);
    }
    if ((n & 63) != 0) {
      long bits = 0;
      for (int r = whole << 6; r < n; r++) {
        boolean pass = Long.compareUnsigned(a.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, r) - aLow, aSpan) <= 0
            & Long.compareUnsigned(b.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, r) - bLow, bSpan) <= 0;
        bits |= (pass ? 1L : 0L) << r;
      }
      count = finish(bits, whole, words, first, rows, count);
    }
    return count;
  }

  /** Side {@code a} an unsigned range of its bits, side {@code b} doubles in {@code [bLo, bHi]}. */
  static int pairMaskBitsDoubles(MemorySegment a, long aLow, long aSpan, MemorySegment b, double bLo, double bHi,
      int n, long[] words, boolean first, int[] rows) {
    int lanes = LONGS.length();
    int whole = n >>> 6;
    int count = 0;
    for (int w = 0; w < whole; w++) {
      long bits = 0;
      for (int j = 0; j < 64; j += lanes) {
        long at = ((long) (w << 6) + j) * 8;
        LongVector x = LongVector.fromMemorySegment(LONGS, a, at, ByteOrder.LITTLE_ENDIAN);
        DoubleVector y = DoubleVector.fromMemorySegment(DOUBLES, b, at, ByteOrder.LITTLE_ENDIAN);
        bits |= (x.sub(aLow).compare(VectorOperators.ULE, aSpan).toLong()
            & y.compare(VectorOperators.LE, bHi, y.compare(VectorOperators.GE, bLo)).toLong()) << j;
      }
      count = finish(bits, w, words, first, rows, count);
    }
    if ((n & 63) != 0) {
      long bits = 0;
      for (int r = whole << 6; r < n; r++) {
        double y = b.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, r);
        boolean pass = Long.compareUnsigned(a.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, r) - aLow, aSpan) <= 0
            & y >= bLo & y <= bHi;
        bits |= (pass ? 1L : 0L) << r;
      }
      count = finish(bits, whole, words, first, rows, count);
    }
    return count;
  }

  /** Both sides doubles in their ranges. */
  static int pairMaskDoubles(MemorySegment a, double aLo, double aHi, MemorySegment b, double bLo, double bHi, int n,
      long[] words, boolean first, int[] rows) {
    int lanes = DOUBLES.length();
    int whole = n >>> 6;
    int count = 0;
    for (int w = 0; w < whole; w++) {
      long bits = 0;
      for (int j = 0; j < 64; j += lanes) {
        long at = ((long) (w << 6) + j) * 8;
        DoubleVector x = DoubleVector.fromMemorySegment(DOUBLES, a, at, ByteOrder.LITTLE_ENDIAN);
        DoubleVector y = DoubleVector.fromMemorySegment(DOUBLES, b, at, ByteOrder.LITTLE_ENDIAN);
        bits |= (x.compare(VectorOperators.LE, aHi, x.compare(VectorOperators.GE, aLo)).toLong()
            & y.compare(VectorOperators.LE, bHi, y.compare(VectorOperators.GE, bLo)).toLong()) << j;
      }
      count = finish(bits, w, words, first, rows, count);
    }
    if ((n & 63) != 0) {
      long bits = 0;
      for (int r = whole << 6; r < n; r++) {
        double x = a.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, r);
        double y = b.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, r);
        bits |= (x >= aLo & x <= aHi & y >= bLo & y <= bHi ? 1L : 0L) << r;
      }
      count = finish(bits, whole, words, first, rows, count);
    }
    return count;
  }

  /**
   * Ends a pair pass's word {@code w}: ANDs {@code bits} into it (unless {@code first}) and stores
   * it, or, given {@code rows}, lists its rows there instead. Returns the count of rows listed.
   */
  private static int finish(long bits, int w, long[] words, boolean first, int[] rows, int count) {
    long word = first ? bits : words[w] & bits;
    if (rows == null) {
      words[w] = word;
      return count;
    }
    return list(word, w << 6, rows, count);
  }

  private static int emit(VectorMask<Integer> pass, int first, int[] out, int count) {
    WIDE_IOTA.add(first).compress(pass).intoArray(out, count);
    return count + pass.trueCount();
  }

  /**
   * Writes the rows whose bits are set in {@code words} (bit r of {@code words[r / 64]}, rows
   * {@code 0..n-1}), ascending, to {@code out}, which has room for 16 more ints than it gets:
   * sixteen bits at a time, compressed into row numbers with no branch on the bits (a loop over
   * the set bits mispredicts its exit about once a word: 6.3 against 4.6 us per 64K rows at 2%
   * of rows set, 12.6 against 4.3 at 15%).
   */
  static int rows(long[] words, int n, int[] out) {
    int count = 0;
    for (int w = 0, used = (n + 63) >>> 6; w < used; w++) {
      if (words[w] != 0) {
        count = list(words[w], w << 6, out, count);
      }
    }
    return count;
  }

  /**
   * Appends to {@code out} at {@code count} rows {@code first + i} for the set bits i of
   * {@code bits}, without a branch on them: inside a mask loop a test for an empty word
   * mispredicts about a quarter of the time at Q6's 2% (0.13 ms of Q6).
   */
  private static int list(long bits, int first, int[] out, int count) {
    for (int j = 0; j < 64; j += 16) {
      VectorMask<Integer> set = VectorMask.fromLong(ROWS16, bits >>> j);
      IOTA16.add(first + j).compress(set).intoArray(out, count);
      count += set.trueCount();
    }
    return count;
  }

  /*
   * Mask forms: bit r of words[r / 64] is set when row r passes. They AND into the words unless
   * first (then they assign), so the terms of a conjunction narrow one mask, each streaming its
   * column once. Rows past the last whole word are tested one by one.
   */

  /**
   * ANDs (or, if {@code first}, writes) whether each of rows {@code 0..n-1} of 32-bit {@code data}
   * lies in {@code [lo, hi]}; needs {@code lo <= hi}.
   */
  static void intsMask(MemorySegment data, int n, int lo, int hi, long[] words, boolean first) {
    int lanes = INTS.length();
    int whole = n >>> 6;
    // lo <= v <= hi as one unsigned compare, v - lo <= hi - lo (both wrapping), since lo <= hi.
    int span = hi - lo;
    for (int w = 0; w < whole; w++) {
      long bits = 0;
      for (int j = 0; j < 64; j += lanes) {
        IntVector v = IntVector.fromMemorySegment(INTS, data, ((long) (w << 6) + j) * 4, ByteOrder.LITTLE_ENDIAN);
        bits |= v.sub(lo).compare(VectorOperators.ULE, span).toLong() << j;
      }
      words[w] = first ? bits : words[w] & bits;
    }
    if ((n & 63) != 0) {
      long bits = 0;
      for (int r = whole << 6; r < n; r++) {
        int v = data.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
        bits |= (v >= lo & v <= hi ? 1L : 0L) << r;
      }
      words[whole] = first ? bits : words[whole] & bits;
    }
  }

  /** As {@link #intsMask} for 64-bit integers. */
  static void longsMask(MemorySegment data, int n, long lo, long hi, long[] words, boolean first) {
    int lanes = LONGS.length();
    int whole = n >>> 6;
    long span = hi - lo;
    for (int w = 0; w < whole; w++) {
      long bits = 0;
      for (int j = 0; j < 64; j += lanes) {
        LongVector v = LongVector.fromMemorySegment(LONGS, data, ((long) (w << 6) + j) * 8, ByteOrder.LITTLE_ENDIAN);
        bits |= v.sub(lo).compare(VectorOperators.ULE, span).toLong() << j;
      }
      words[w] = first ? bits : words[w] & bits;
    }
    if ((n & 63) != 0) {
      long bits = 0;
      for (int r = whole << 6; r < n; r++) {
        long v = data.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, r);
        bits |= (v >= lo & v <= hi ? 1L : 0L) << r;
      }
      words[whole] = first ? bits : words[whole] & bits;
    }
  }

  /**
   * As {@link #intsMask} for doubles; NaN passes no bound. The loop is bound by how many cache
   * lines are in flight, and so by its instructions per line: a range above zero is one unsigned
   * compare of the bits ({@link #positiveRangeMask}), a one-sided one a single compare, and only a
   * range about zero needs two.
   */
  static void doublesMask(MemorySegment data, int n, double lo, double hi, long[] words, boolean first) {
    int lanes = DOUBLES.length();
    int whole = n >>> 6;
    if (lo > 0) {
      positiveRangeMask(data, whole, lo, hi, words, first);
    } else if (lo == Double.NEGATIVE_INFINITY) {
      for (int w = 0; w < whole; w++) {
        long bits = 0;
        for (int j = 0; j < 64; j += lanes) {
          DoubleVector v = DoubleVector.fromMemorySegment(DOUBLES, data, ((long) (w << 6) + j) * 8, ByteOrder.LITTLE_ENDIAN);
          bits |= v.compare(VectorOperators.LE, hi).toLong() << j;
        }
        words[w] = first ? bits : words[w] & bits;
      }
    } else {
      for (int w = 0; w < whole; w++) {
        long bits = 0;
        for (int j = 0; j < 64; j += lanes) {
          DoubleVector v = DoubleVector.fromMemorySegment(DOUBLES, data, ((long) (w << 6) + j) * 8, ByteOrder.LITTLE_ENDIAN);
          bits |= v.compare(VectorOperators.LE, hi, v.compare(VectorOperators.GE, lo)).toLong() << j;
        }
        words[w] = first ? bits : words[w] & bits;
      }
    }
    if ((n & 63) != 0) {
      long bits = 0;
      for (int r = whole << 6; r < n; r++) {
        double v = data.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, r);
        bits |= (v >= lo & v <= hi ? 1L : 0L) << r;
      }
      words[whole] = first ? bits : words[whole] & bits;
    }
  }
}
