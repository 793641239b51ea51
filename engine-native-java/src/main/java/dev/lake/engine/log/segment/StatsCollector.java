package dev.lake.engine.log.segment;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Computes {@link ColumnStats} of a block straight from the Arrow buffers, without boxing. */
final class StatsCollector {

  /** Longest utf8 bound kept; longer values get a truncated, inexact bound. */
  static final int MAX_UTF8_BOUND = 64;

  private StatsCollector() {}

  static ColumnStats collect(ColumnKind kind, FieldVector vector, int rows) {
    long nulls = vector.getNullCount();
    if (!kind.hasStats() || nulls == rows) {
      return ColumnStats.unknown(nulls);
    }
    ArrowBuf data = vector.getDataBuffer();
    return switch (kind) {
      case INT8, INT16, INT32, INT64, DATE_DAY, DATE_MILLI, TIMESTAMP ->
          longs(kind, vector, data, rows, nulls);
      case FLOAT32, FLOAT64 -> doubles(kind, vector, data, rows, nulls);
      case BOOL -> bools(vector, data, rows, nulls);
      case DECIMAL128 -> decimals(vector, data, rows, nulls);
      case UTF8 -> utf8(vector, data, rows, nulls);
      default -> ColumnStats.unknown(nulls);
    };
  }

  private static long longAt(ColumnKind kind, ArrowBuf data, int i) {
    return switch (kind) {
      case INT8 -> data.getByte(i);
      case INT16 -> data.getShort((long) i * 2);
      case INT32, DATE_DAY -> data.getInt((long) i * 4);
      default -> data.getLong((long) i * 8);
    };
  }

  private static ColumnStats longs(
      ColumnKind kind, FieldVector vector, ArrowBuf data, int rows, long nulls) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < rows; i++) {
      if (!vector.isNull(i)) {
        long v = longAt(kind, data, i);
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
    }
    return new ColumnStats(nulls, min, max, true);
  }

  private static ColumnStats doubles(
      ColumnKind kind, FieldVector vector, ArrowBuf data, int rows, long nulls) {
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < rows; i++) {
      if (!vector.isNull(i)) {
        double v = kind == ColumnKind.FLOAT32 ? data.getFloat((long) i * 4) : data.getDouble((long) i * 8);
        if (Double.isNaN(v)) {
          // NaN has no agreed place in SQL ordering; a block holding one is never pruned by value.
          return ColumnStats.unknown(nulls);
        }
        if (v < min) {
          min = v;
        }
        if (v > max) {
          max = v;
        }
      }
    }
    return new ColumnStats(nulls, min, max, true);
  }

  private static ColumnStats bools(FieldVector vector, ArrowBuf data, int rows, long nulls) {
    boolean seenTrue = false;
    boolean seenFalse = false;
    for (int i = 0; i < rows && !(seenTrue && seenFalse); i++) {
      if (!vector.isNull(i)) {
        if ((data.getByte(i >> 3) & (1 << (i & 7))) != 0) {
          seenTrue = true;
        } else {
          seenFalse = true;
        }
      }
    }
    return new ColumnStats(nulls, !seenFalse, seenTrue, true);
  }

  private static ColumnStats decimals(FieldVector vector, ArrowBuf data, int rows, long nulls) {
    // Compare the 128-bit little-endian two's complement values as (signed high, unsigned low).
    int minRow = -1;
    int maxRow = -1;
    for (int i = 0; i < rows; i++) {
      if (vector.isNull(i)) {
        continue;
      }
      if (minRow < 0) {
        minRow = i;
        maxRow = i;
      } else {
        if (compare128(data, i, minRow) < 0) {
          minRow = i;
        }
        if (compare128(data, i, maxRow) > 0) {
          maxRow = i;
        }
      }
    }
    int scale = ((ArrowType.Decimal) vector.getField().getType()).getScale();
    return new ColumnStats(
        nulls, decimalAt(data, minRow, scale), decimalAt(data, maxRow, scale), true);
  }

  private static int compare128(ArrowBuf data, int a, int b) {
    long offA = (long) a * DecimalVector.TYPE_WIDTH;
    long offB = (long) b * DecimalVector.TYPE_WIDTH;
    int high = Long.compare(data.getLong(offA + 8), data.getLong(offB + 8));
    return high != 0 ? high : Long.compareUnsigned(data.getLong(offA), data.getLong(offB));
  }

  private static BigDecimal decimalAt(ArrowBuf data, int row, int scale) {
    byte[] bigEndian = new byte[16];
    long off = (long) row * DecimalVector.TYPE_WIDTH;
    for (int i = 0; i < 16; i++) {
      bigEndian[15 - i] = data.getByte(off + i);
    }
    return new BigDecimal(new BigInteger(bigEndian), scale);
  }

  private static ColumnStats utf8(FieldVector vector, ArrowBuf data, int rows, long nulls) {
    ArrowBuf offsets = vector.getOffsetBuffer();
    int minRow = -1;
    int maxRow = -1;
    for (int i = 0; i < rows; i++) {
      if (vector.isNull(i)) {
        continue;
      }
      if (minRow < 0) {
        minRow = i;
        maxRow = i;
      } else {
        if (compareBytes(data, offsets, i, minRow) < 0) {
          minRow = i;
        }
        if (compareBytes(data, offsets, i, maxRow) > 0) {
          maxRow = i;
        }
      }
    }
    byte[] min = bytesAt(data, offsets, minRow);
    byte[] max = bytesAt(data, offsets, maxRow);
    boolean exact = true;
    if (min.length > MAX_UTF8_BOUND) {
      // A prefix sorts before the value it was cut from, so it stays a lower bound.
      min = Arrays.copyOf(min, MAX_UTF8_BOUND);
      exact = false;
    }
    if (max.length > MAX_UTF8_BOUND) {
      max = roundUp(Arrays.copyOf(max, MAX_UTF8_BOUND));
      exact = false;
    }
    return new ColumnStats(nulls, min, max, exact);
  }

  /**
   * The shortest byte string greater than every string starting with {@code prefix}: the prefix
   * with its last non-0xFF byte incremented and what follows dropped; null if all bytes are 0xFF.
   */
  static byte[] roundUp(byte[] prefix) {
    for (int i = prefix.length - 1; i >= 0; i--) {
      if (prefix[i] != (byte) 0xFF) {
        byte[] bound = Arrays.copyOf(prefix, i + 1);
        bound[i]++;
        return bound;
      }
    }
    return null;
  }

  private static int compareBytes(ArrowBuf data, ArrowBuf offsets, int a, int b) {
    int startA = offsets.getInt((long) a * 4);
    int lenA = offsets.getInt((long) a * 4 + 4) - startA;
    int startB = offsets.getInt((long) b * 4);
    int lenB = offsets.getInt((long) b * 4 + 4) - startB;
    int n = Math.min(lenA, lenB);
    for (int i = 0; i < n; i++) {
      int c = Integer.compare(
          Byte.toUnsignedInt(data.getByte(startA + i)), Byte.toUnsignedInt(data.getByte(startB + i)));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(lenA, lenB);
  }

  private static byte[] bytesAt(ArrowBuf data, ArrowBuf offsets, int row) {
    int start = offsets.getInt((long) row * 4);
    int end = offsets.getInt((long) row * 4 + 4);
    byte[] bytes = new byte[end - start];
    data.getBytes(start, bytes);
    return bytes;
  }
}
