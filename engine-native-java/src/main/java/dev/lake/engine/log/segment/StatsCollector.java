package dev.lake.engine.log.segment;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Computes {@link ColumnStats} of a chunk from the bytes written, without boxing: tight loops
 * over little-endian views, with the validity bitmap consulted only when the chunk has nulls.
 */
final class StatsCollector {

  /** Longest utf8 bound kept; longer values get a truncated, inexact bound. */
  static final int MAX_UTF8_BOUND = 64;

  private StatsCollector() {}

  static ColumnStats collect(ColumnKind kind, Field field, ColumnSlice slice) {
    int rows = slice.rows();
    long nulls = Bits.zeros(slice.validity(), rows);
    if (!kind.hasStats() || nulls == rows) {
      return ColumnStats.unknown(nulls);
    }
    ByteBuffer validity = nulls == 0 ? null : slice.validity();
    ByteBuffer data = slice.values().slice().order(ByteOrder.LITTLE_ENDIAN);
    return switch (kind) {
      case INT8, INT16, INT32, INT64, DATE_DAY, DATE_MILLI, TIMESTAMP ->
          longs(kind, validity, data, rows, nulls);
      case FLOAT32, FLOAT64 -> doubles(kind, validity, data, rows, nulls);
      case BOOL -> bools(validity, data, rows, nulls);
      case DECIMAL128 -> decimals(field, validity, data, rows, nulls);
      case UTF8 -> utf8(validity, slice.offsets().slice().order(ByteOrder.LITTLE_ENDIAN), data, rows, nulls);
      default -> ColumnStats.unknown(nulls);
    };
  }

  private static boolean isNull(ByteBuffer validity, int i) {
    return validity != null && !Bits.get(validity, i);
  }

  private static ColumnStats longs(
      ColumnKind kind, ByteBuffer validity, ByteBuffer data, int rows, long nulls) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    int width = (int) kind.bufferLength(1, 1);
    if (validity == null && width == 8) {
      for (int i = 0; i < rows; i++) {
        long v = data.getLong(i * 8);
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
    } else {
      for (int i = 0; i < rows; i++) {
        if (!isNull(validity, i)) {
          long v = switch (width) {
            case 1 -> data.get(i);
            case 2 -> data.getShort(i * 2);
            case 4 -> data.getInt(i * 4);
            default -> data.getLong(i * 8);
          };
          min = Math.min(min, v);
          max = Math.max(max, v);
        }
      }
    }
    return new ColumnStats(nulls, min, max, true);
  }

  private static ColumnStats doubles(
      ColumnKind kind, ByteBuffer validity, ByteBuffer data, int rows, long nulls) {
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    boolean nan = false;
    for (int i = 0; i < rows; i++) {
      if (!isNull(validity, i)) {
        double v = kind == ColumnKind.FLOAT32 ? data.getFloat(i * 4) : data.getDouble(i * 8);
        nan |= v != v;
        if (v < min) {
          min = v;
        }
        if (v > max) {
          max = v;
        }
      }
    }
    // NaN has no agreed place in SQL ordering; a block holding one is never pruned by value.
    return nan ? ColumnStats.unknown(nulls) : new ColumnStats(nulls, min, max, true);
  }

  private static ColumnStats bools(ByteBuffer validity, ByteBuffer data, int rows, long nulls) {
    boolean seenTrue = false;
    boolean seenFalse = false;
    for (int i = 0; i < rows && !(seenTrue && seenFalse); i++) {
      if (!isNull(validity, i)) {
        if (Bits.get(data, i)) {
          seenTrue = true;
        } else {
          seenFalse = true;
        }
      }
    }
    return new ColumnStats(nulls, !seenFalse, seenTrue, true);
  }

  private static ColumnStats decimals(Field field, ByteBuffer validity, ByteBuffer data, int rows, long nulls) {
    // Compare the 128-bit little-endian two's complement values as (signed high, unsigned low).
    int minRow = -1;
    int maxRow = -1;
    for (int i = 0; i < rows; i++) {
      if (isNull(validity, i)) {
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
    int scale = ((ArrowType.Decimal) field.getType()).getScale();
    return new ColumnStats(
        nulls, decimalAt(data, minRow, scale), decimalAt(data, maxRow, scale), true);
  }

  private static int compare128(ByteBuffer data, int a, int b) {
    int high = Long.compare(data.getLong(a * 16 + 8), data.getLong(b * 16 + 8));
    return high != 0 ? high : Long.compareUnsigned(data.getLong(a * 16), data.getLong(b * 16));
  }

  private static BigDecimal decimalAt(ByteBuffer data, int row, int scale) {
    byte[] bigEndian = new byte[16];
    for (int i = 0; i < 16; i++) {
      bigEndian[15 - i] = data.get(row * 16 + i);
    }
    return new BigDecimal(new BigInteger(bigEndian), scale);
  }

  private static ColumnStats utf8(ByteBuffer validity, ByteBuffer offsets, ByteBuffer data, int rows, long nulls) {
    // Rows are first compared by an 8-byte big-endian key of their prefix, zero padded: a key
    // strictly between the keys of min and max decides without touching the bytes again.
    ByteBuffer bigEndian = data.duplicate().order(ByteOrder.BIG_ENDIAN);
    int minRow = -1;
    int maxRow = -1;
    long minKey = 0;
    long maxKey = 0;
    for (int i = 0; i < rows; i++) {
      if (isNull(validity, i)) {
        continue;
      }
      long key = prefixKey(bigEndian, offsets, i);
      if (minRow < 0) {
        minRow = i;
        maxRow = i;
        minKey = key;
        maxKey = key;
        continue;
      }
      int vsMin = Long.compareUnsigned(key, minKey);
      if (vsMin < 0 || (vsMin == 0 && compareBytes(data, offsets, i, minRow) < 0)) {
        minRow = i;
        minKey = key;
        continue;
      }
      int vsMax = Long.compareUnsigned(key, maxKey);
      if (vsMax > 0 || (vsMax == 0 && compareBytes(data, offsets, i, maxRow) > 0)) {
        maxRow = i;
        maxKey = key;
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

  /**
   * The first 8 bytes of row {@code i}'s value as an unsigned big-endian number, zero padded: if
   * one row's key is greater than another's, so is its value.
   */
  private static long prefixKey(ByteBuffer bigEndian, ByteBuffer offsets, int i) {
    int start = offsets.getInt(i * 4);
    int length = offsets.getInt(i * 4 + 4) - start;
    if (length >= 8) {
      return bigEndian.getLong(start);
    }
    if (length == 0) {
      return 0;
    }
    if (start + 8 <= bigEndian.limit()) {
      return bigEndian.getLong(start) & (-1L << ((8 - length) * 8));
    }
    long key = 0;
    for (int b = 0; b < 8; b++) {
      key = (key << 8) | (b < length ? Byte.toUnsignedInt(bigEndian.get(start + b)) : 0);
    }
    return key;
  }

  /** Unsigned lexicographic order of the values of rows {@code a} and {@code b}. */
  private static int compareBytes(ByteBuffer data, ByteBuffer offsets, int a, int b) {
    int startA = offsets.getInt(a * 4);
    int lengthA = offsets.getInt(a * 4 + 4) - startA;
    int startB = offsets.getInt(b * 4);
    int lengthB = offsets.getInt(b * 4 + 4) - startB;
    int n = Math.min(lengthA, lengthB);
    for (int i = 0; i < n; i++) {
      int c = Integer.compare(
          Byte.toUnsignedInt(data.get(startA + i)), Byte.toUnsignedInt(data.get(startB + i)));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(lengthA, lengthB);
  }

  private static byte[] bytesAt(ByteBuffer data, ByteBuffer offsets, int row) {
    int start = offsets.getInt(row * 4);
    int end = offsets.getInt(row * 4 + 4);
    byte[] bytes = new byte[end - start];
    data.get(start, bytes);
    return bytes;
  }
}
