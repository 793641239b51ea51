package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Simd;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;

/**
 * The comparisons {@code = < <= > >=} of one fixed-width column with non-null constants, merged
 * into one closed range and tested on the column's data buffer. A NULL row never passes (the
 * comparison is unknown). Strict bounds become closed ones: {@code x < c} is {@code x <= c - 1}
 * for integers and {@code x <= nextDown(c)} for floats, which is exact for every non-NaN value;
 * NaN fails every bound, as it fails every comparison. Column types with no buffer loop here
 * fall back to evaluating the terms.
 */
final class ColumnRange implements SelectionFilter {
  enum Kind { LONG, DOUBLE }

  /** Dense columns are tested a vector at a time where that pays ({@link SimdRanges}). */
  private static final boolean SIMD = Simd.ENABLED && SimdRanges.USABLE;

  /** One comparison {@code column op value}, already flipped so the column is on the left. */
  record Bound(int column, Kind kind, Expr.Op op, Object value) {}

  private final int column;
  private final Kind kind;
  private final List<Kernel> terms = new ArrayList<>();
  private long longLo = Long.MIN_VALUE;
  private long longHi = Long.MAX_VALUE;
  private double doubleLo = Double.NEGATIVE_INFINITY;
  private double doubleHi = Double.POSITIVE_INFINITY;
  private boolean empty;
  private SelectionFilter fallback;

  ColumnRange(int column, Kind kind) {
    this.column = column;
    this.kind = kind;
  }

  int column() {
    return column;
  }

  /** The bound {@code term} states, or null when it is not a column-constant comparison. */
  static Bound bound(Expr term) {
    if (!(term instanceof Expr.Call call) || call.args().size() != 2) {
      return null;
    }
    Expr.Op op = call.op();
    Expr a = call.args().get(0);
    Expr b = call.args().get(1);
    if (a instanceof Expr.Literal && b instanceof Expr.Column) {
      Expr t = a;
      a = b;
      b = t;
      op = switch (op) {
        case LT -> Expr.Op.GT;
        case LE -> Expr.Op.GE;
        case GT -> Expr.Op.LT;
        case GE -> Expr.Op.LE;
        default -> op;
      };
    }
    if (!(a instanceof Expr.Column col) || !(b instanceof Expr.Literal lit)) {
      return null;
    }
    if (op != Expr.Op.EQ && op != Expr.Op.LT && op != Expr.Op.LE && op != Expr.Op.GT && op != Expr.Op.GE) {
      return null;
    }
    SqlType type = col.type();
    if (type.isLongBacked() && lit.type().isLongBacked() && lit.value() instanceof Long) {
      return new Bound(col.index(), Kind.LONG, op, lit.value());
    }
    if (type.isFloat() && lit.type().isFloat() && lit.value() instanceof Double d && !Double.isNaN(d)
        && !(Double.isInfinite(d) && (op == Expr.Op.LT || op == Expr.Op.GT))) {
      return new Bound(col.index(), Kind.DOUBLE, op, d);
    }
    return null;
  }

  void add(Bound bound, Kernel term) {
    if (bound.kind() != kind) {
      throw new IllegalStateException("one column, two representations: " + bound);
    }
    terms.add(term);
    fallback = null;
    if (kind == Kind.LONG) {
      long v = (Long) bound.value();
      switch (bound.op()) {
        case EQ -> { longLo = Math.max(longLo, v); longHi = Math.min(longHi, v); }
        case LE -> longHi = Math.min(longHi, v);
        case GE -> longLo = Math.max(longLo, v);
        case LT -> {
          if (v == Long.MIN_VALUE) empty = true; else longHi = Math.min(longHi, v - 1);
        }
        case GT -> {
          if (v == Long.MAX_VALUE) empty = true; else longLo = Math.max(longLo, v + 1);
        }
        default -> throw new IllegalStateException(bound.op().name());
      }
      empty |= longLo > longHi;
    } else {
      double v = (Double) bound.value();
      switch (bound.op()) {
        case EQ -> { doubleLo = Math.max(doubleLo, v); doubleHi = Math.min(doubleHi, v); }
        case LE -> doubleHi = Math.min(doubleHi, v);
        case GE -> doubleLo = Math.max(doubleLo, v);
        case LT -> doubleHi = Math.min(doubleHi, Math.nextDown(v));
        case GT -> doubleLo = Math.max(doubleLo, Math.nextUp(v));
        default -> throw new IllegalStateException(bound.op().name());
      }
      // -0.0 and 0.0 are equal bounds; Math.max/min order them, the comparisons do not.
      empty |= doubleLo > doubleHi;
    }
  }

  @Override
  public int select(Batch batch, int[] out) {
    if (empty) {
      return 0;
    }
    FieldVector vector = batch.root().getVector(column);
    MemorySegment valid = Vectors.hasNulls(vector) ? Vectors.segment(vector.getValidityBuffer()) : null;
    int[] sel = batch.selection();
    int n = batch.count();
    return switch (vector) {
      case BigIntVector v -> longs(Vectors.segment(v.getDataBuffer()), 8, valid, sel, n, out);
      case TimeStampVector v -> longs(Vectors.segment(v.getDataBuffer()), 8, valid, sel, n, out);
      case IntVector v -> longs(Vectors.segment(v.getDataBuffer()), 4, valid, sel, n, out);
      case DateDayVector v -> longs(Vectors.segment(v.getDataBuffer()), 4, valid, sel, n, out);
      case SmallIntVector v -> longs(Vectors.segment(v.getDataBuffer()), 2, valid, sel, n, out);
      case TinyIntVector v -> longs(Vectors.segment(v.getDataBuffer()), 1, valid, sel, n, out);
      case Float8Vector v -> doubles(Vectors.segment(v.getDataBuffer()), 8, valid, sel, n, out);
      case Float4Vector v -> doubles(Vectors.segment(v.getDataBuffer()), 4, valid, sel, n, out);
      default -> fallback().select(batch, out);
    };
  }

  /**
   * ANDs into {@code words} (or, if {@code first}, writes) a bit per row of a dense batch of
   * {@code n} rows: set when the row passes. Returns false, touching nothing, for a column type
   * with no vector loop; callers then use {@link #select}. Needs {@link Simd#ENABLED}.
   */
  boolean mask(FieldVector vector, int n, long[] words, boolean first) {
    boolean floating = kind == Kind.DOUBLE;
    int width = switch (vector) {
      case BigIntVector v -> floating ? 0 : 8;
      case TimeStampVector v -> floating ? 0 : 8;
      case IntVector v -> floating ? 0 : 4;
      case DateDayVector v -> floating ? 0 : 4;
      case Float8Vector v -> floating ? 8 : 0;
      default -> 0;
    };
    if (width == 0) {
      return false;
    }
    int used = (n + 63) >>> 6;
    MemorySegment data = Vectors.segment(vector.getDataBuffer());
    if (empty || width == 4 && (longLo > Integer.MAX_VALUE || longHi < Integer.MIN_VALUE)) {
      Arrays.fill(words, 0, used, 0L);
      return true;
    }
    if (floating) {
      SimdRanges.doublesMask(data, n, doubleLo, doubleHi, words, first);
    } else if (width == 8) {
      SimdRanges.longsMask(data, n, longLo, longHi, words, first);
    } else {
      SimdRanges.intsMask(data, n, (int) Math.max(longLo, Integer.MIN_VALUE),
          (int) Math.min(longHi, Integer.MAX_VALUE), words, first);
    }
    andValidity(vector, n, words);
    return true;
  }

  /** {@link #maskWith}: the columns do not fit a pair pass; nothing was touched. */
  static final int UNPAIRED = -2;
  /** {@link #maskWith}: the pair's bits were ANDed into the words; no rows were listed. */
  static final int MASKED = -1;

  /**
   * As {@link #mask} for this range and {@code other} together, on two 64-bit columns in one pass
   * (see {@link SimdRanges}'s pair forms). Given {@code rows} (the pass is the conjunction's last)
   * and two NULL-free columns, lists the passing rows there instead and returns their count.
   * Returns {@link #UNPAIRED}, touching nothing, unless both columns are 64-bit, fit their
   * ranges' kinds and neither range is empty (callers then mask them one at a time), else
   * {@link #MASKED} or the count.
   */
  int maskWith(ColumnRange other, FieldVector vector, FieldVector otherVector, int n, long[] words, boolean first,
      int[] rows) {
    if (empty || other.empty || !wide(vector) || !other.wide(otherVector)) {
      return UNPAIRED;
    }
    // A NULL clears a row after the pass, so rows are listed in it only when there are none.
    int[] listed = rows != null && !Vectors.hasNulls(vector) && !Vectors.hasNulls(otherVector) ? rows : null;
    ColumnRange a = this;
    ColumnRange b = other;
    FieldVector va = vector;
    FieldVector vb = otherVector;
    if (!a.bitRange() && b.bitRange()) {
      a = other;
      b = this;
      va = otherVector;
      vb = vector;
    }
    MemorySegment da = Vectors.segment(va.getDataBuffer());
    MemorySegment db = Vectors.segment(vb.getDataBuffer());
    int count;
    if (b.bitRange()) {
      count = SimdRanges.pairMaskBits(da, a.bitLow(), a.bitSpan(), db, b.bitLow(), b.bitSpan(), n, words, first, listed);
    } else if (a.bitRange()) {
      count = SimdRanges.pairMaskBitsDoubles(da, a.bitLow(), a.bitSpan(), db, b.doubleLo, b.doubleHi, n, words, first,
          listed);
    } else {
      count = SimdRanges.pairMaskDoubles(da, a.doubleLo, a.doubleHi, db, b.doubleLo, b.doubleHi, n, words, first,
          listed);
    }
    if (listed != null) {
      return count;
    }
    andValidity(vector, n, words);
    andValidity(otherVector, n, words);
    return MASKED;
  }

  /** Whether {@code vector} holds this range's values as 64 bits a row. */
  private boolean wide(FieldVector vector) {
    return kind == Kind.DOUBLE ? vector instanceof Float8Vector
        : vector instanceof BigIntVector || vector instanceof TimeStampVector;
  }

  /**
   * Whether the range is one unsigned range of the values' raw bits: integers always, doubles
   * when above zero (positive doubles order as their bits; zeros, negatives and NaNs of either
   * sign fall outside, as they fail the comparisons).
   */
  private boolean bitRange() {
    return kind == Kind.LONG || doubleLo > 0;
  }

  private long bitLow() {
    return kind == Kind.LONG ? longLo : Double.doubleToRawLongBits(doubleLo);
  }

  private long bitSpan() {
    return kind == Kind.LONG ? longHi - longLo : Double.doubleToRawLongBits(doubleHi) - bitLow();
  }

  /** A NULL row never passes: ANDs the validity bitmap, which has the same bit order. */
  private static void andValidity(FieldVector vector, int n, long[] words) {
    if (!Vectors.hasNulls(vector)) {
      return;
    }
    MemorySegment valid = Vectors.segment(vector.getValidityBuffer());
    int whole = n >>> 6;
    for (int w = 0; w < whole; w++) {
      words[w] &= valid.getAtIndex(LITTLE_ENDIAN_LONG, w);
    }
    for (int r = whole << 6; r < n; r++) {
      if (!isValid(valid, r)) {
        words[whole] &= ~(1L << r);
      }
    }
  }

  private static final ValueLayout.OfLong LITTLE_ENDIAN_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

  private SelectionFilter fallback() {
    if (fallback == null) {
      fallback = new Generic(terms.size() == 1 ? terms.get(0) : new LogicKernels.AndOr(true, terms));
    }
    return fallback;
  }

  private int longs(MemorySegment data, int width, MemorySegment valid, int[] sel, int n, int[] out) {
    long lo = longLo;
    long hi = longHi;
    int count = 0;
    if (valid == null && sel == null) {
      switch (width) {
        case 8 -> {
          if (SIMD) {
            return SimdRanges.longs(data, n, lo, hi, out);
          }
          for (int r = 0; r < n; r++) {
            long v = data.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, r);
            out[count] = r;
            count += v >= lo & v <= hi ? 1 : 0;
          }
        }
        case 4 -> {
          if (SIMD) {
            return lo > Integer.MAX_VALUE || hi < Integer.MIN_VALUE ? 0 : SimdRanges.ints(data, n,
                (int) Math.max(lo, Integer.MIN_VALUE), (int) Math.min(hi, Integer.MAX_VALUE), out);
          }
          for (int r = 0; r < n; r++) {
            long v = data.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
            out[count] = r;
            count += v >= lo & v <= hi ? 1 : 0;
          }
        }
        default -> count = longsGeneral(data, width, null, null, n, out);
      }
      return count;
    }
    if (valid == null) {
      switch (width) {
        case 8 -> {
          for (int i = 0; i < n; i++) {
            int r = sel[i];
            long v = data.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, r);
            out[count] = r;
            count += v >= lo & v <= hi ? 1 : 0;
          }
        }
        case 4 -> {
          for (int i = 0; i < n; i++) {
            int r = sel[i];
            long v = data.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
            out[count] = r;
            count += v >= lo & v <= hi ? 1 : 0;
          }
        }
        default -> count = longsGeneral(data, width, null, sel, n, out);
      }
      return count;
    }
    return longsGeneral(data, width, valid, sel, n, out);
  }

  private int longsGeneral(MemorySegment data, int width, MemorySegment valid, int[] sel, int n, int[] out) {
    long lo = longLo;
    long hi = longHi;
    int count = 0;
    for (int i = 0; i < n; i++) {
      int r = sel == null ? i : sel[i];
      long v = switch (width) {
        case 8 -> data.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, r);
        case 4 -> data.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
        case 2 -> data.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, r);
        default -> data.get(ValueLayout.JAVA_BYTE, r);
      };
      out[count] = r;
      count += v >= lo & v <= hi & (valid == null || isValid(valid, r)) ? 1 : 0;
    }
    return count;
  }

  private int doubles(MemorySegment data, int width, MemorySegment valid, int[] sel, int n, int[] out) {
    double lo = doubleLo;
    double hi = doubleHi;
    int count = 0;
    if (valid == null && width == 8) {
      if (sel == null && SIMD) {
        return SimdRanges.doubles(data, n, lo, hi, out);
      }
      if (sel == null) {
        for (int r = 0; r < n; r++) {
          double v = data.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, r);
          out[count] = r;
          count += v >= lo & v <= hi ? 1 : 0;
        }
      } else {
        for (int i = 0; i < n; i++) {
          int r = sel[i];
          double v = data.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, r);
          out[count] = r;
          count += v >= lo & v <= hi ? 1 : 0;
        }
      }
      return count;
    }
    for (int i = 0; i < n; i++) {
      int r = sel == null ? i : sel[i];
      double v = width == 8 ? data.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, r)
          : data.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, r);
      out[count] = r;
      count += v >= lo & v <= hi & (valid == null || isValid(valid, r)) ? 1 : 0;
    }
    return count;
  }

  private static boolean isValid(MemorySegment validity, int row) {
    return (validity.get(ValueLayout.JAVA_BYTE, row >>> 3) >> (row & 7) & 1) != 0;
  }
}
