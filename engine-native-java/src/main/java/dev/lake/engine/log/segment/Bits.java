package dev.lake.engine.log.segment;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;

/** Bit ranges of Arrow bitmaps (validity, bool values): copying at any bit offset, counting. */
final class Bits {

  private Bits() {}

  /**
   * Copies bits {@code [srcBit, srcBit + count)} of {@code src} to {@code dstBit} onwards in
   * {@code dst}, leaving every other bit of {@code dst} as it was. Whole bytes are copied in bulk
   * when both offsets share a byte alignment, else byte by byte with a shift: never bit by bit
   * except at the ends.
   */
  static void copy(ArrowBuf src, long srcBit, ArrowBuf dst, long dstBit, long count) {
    long done = 0;
    // Head: single bits until the destination is byte aligned.
    while (done < count && ((dstBit + done) & 7) != 0) {
      set(dst, dstBit + done, get(src, srcBit + done));
      done++;
    }
    long bytes = (count - done) >>> 3;
    long s = srcBit + done;
    long d = (dstBit + done) >>> 3;
    int shift = (int) (s & 7);
    if (shift == 0) {
      dst.setBytes(d, src, s >>> 3, bytes);
    } else {
      long from = s >>> 3;
      for (long i = 0; i < bytes; i++) {
        int lo = Byte.toUnsignedInt(src.getByte(from + i)) >>> shift;
        int hi = Byte.toUnsignedInt(src.getByte(from + i + 1)) << (8 - shift);
        dst.setByte(d + i, lo | hi);
      }
    }
    done += bytes << 3;
    // Tail: the remaining bits of a last partial byte.
    for (; done < count; done++) {
      set(dst, dstBit + done, get(src, srcBit + done));
    }
  }

  /** The number of zero bits among the first {@code count} bits of {@code bitmap}. */
  static int zeros(ByteBuffer bitmap, int count) {
    ByteBuffer b = bitmap.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int base = b.position();
    int ones = 0;
    int full = count >>> 3;
    int i = 0;
    for (; i + 8 <= full; i += 8) {
      ones += Long.bitCount(b.getLong(base + i));
    }
    for (; i < full; i++) {
      ones += Integer.bitCount(Byte.toUnsignedInt(b.get(base + i)));
    }
    int rest = count & 7;
    if (rest != 0) {
      ones += Integer.bitCount(Byte.toUnsignedInt(b.get(base + full)) & ((1 << rest) - 1));
    }
    return count - ones;
  }

  /** Bit {@code i} of a bitmap whose first byte is at the buffer's position. */
  static boolean get(ByteBuffer bitmap, int i) {
    return (bitmap.get(bitmap.position() + (i >>> 3)) & (1 << (i & 7))) != 0;
  }

  private static boolean get(ArrowBuf buf, long bit) {
    return (buf.getByte(bit >>> 3) & (1 << (bit & 7))) != 0;
  }

  private static void set(ArrowBuf buf, long bit, boolean value) {
    long at = bit >>> 3;
    int b = buf.getByte(at);
    int mask = 1 << (bit & 7);
    buf.setByte(at, value ? b | mask : b & ~mask);
  }
}
