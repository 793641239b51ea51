package dev.lake.engine.log.segment;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * Cuts rows {@code [from, from + n)} of a vector into a {@link ColumnSlice} without per-row work
 * where the layout allows: fixed-width values and utf8/binary bytes are always views of the
 * vector's memory, a bitmap is a view when the range starts and ends on a byte, and offsets are a
 * view when they start at 0. Only the rest is rewritten, into scratch memory this slicer owns and
 * reuses: the shifted bitmaps of a range starting mid-byte, and re-based offsets.
 */
final class ColumnSlicer implements AutoCloseable {

  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final ColumnKind kind;
  private final BufferAllocator allocator;
  private ArrowBuf validityScratch;
  private ArrowBuf valuesScratch;
  private ArrowBuf offsetsScratch;

  ColumnSlicer(ColumnKind kind, BufferAllocator allocator) {
    this.kind = kind;
    this.allocator = allocator;
  }

  /**
   * The chunk of {@code vector}'s rows {@code [from, from + n)}, {@code n > 0}. Valid until the
   * next call; the vector must not change meanwhile.
   */
  ColumnSlice slice(FieldVector vector, int from, int n) {
    ByteBuffer validity;
    ByteBuffer offsets = null;
    ByteBuffer values;
    validity = bitmap(vector.getValidityBuffer(), from, n, true);
    ArrowBuf data = vector.getDataBuffer();
    if (kind.variableWidth()) {
      ArrowBuf src = vector.getOffsetBuffer();
      int start = src.getInt((long) from * 4);
      int end = src.getInt((long) (from + n) * 4);
      if (start == 0) {
        offsets = view(src, (long) from * 4, (n + 1L) * 4);
      } else {
        offsetsScratch = ensure(offsetsScratch, (n + 1L) * 4);
        offsets = view(offsetsScratch, 0, (n + 1L) * 4);
        rebase(view(src, (long) from * 4, (n + 1L) * 4), offsets, n + 1, start);
      }
      values = view(data, start, end - start);
    } else if (kind == ColumnKind.BOOL) {
      values = bitmap(data, from, n, false);
    } else {
      long width = kind.bufferLength(1, 1);
      values = view(data, from * width, n * width);
    }
    return new ColumnSlice(n, validity, offsets, values);
  }

  /**
   * Writes {@code count} int32 offsets of {@code src} less {@code start} to {@code dst}: one tight
   * loop over both buffers' memory, without ArrowBuf's per-access checks.
   */
  static void rebase(ByteBuffer src, ByteBuffer dst, int count, int start) {
    MemorySegment from = MemorySegment.ofBuffer(src);
    MemorySegment to = MemorySegment.ofBuffer(dst);
    for (int i = 0; i < count; i++) {
      to.setAtIndex(INT, i, from.getAtIndex(INT, i) - start);
    }
  }

  private ByteBuffer bitmap(ArrowBuf src, int from, int n, boolean isValidity) {
    long bytes = (n + 7L) / 8;
    if ((from & 7) == 0 && (n & 7) == 0) {
      return view(src, from >>> 3, bytes);
    }
    // Copied so the range starts at bit 0 and the bits after it in the last byte are zero.
    ArrowBuf scratch = ensure(isValidity ? validityScratch : valuesScratch, bytes);
    if (isValidity) {
      validityScratch = scratch;
    } else {
      valuesScratch = scratch;
    }
    scratch.setZero(0, bytes);
    Bits.copy(src, from, scratch, 0, n);
    return view(scratch, 0, bytes);
  }

  private ArrowBuf ensure(ArrowBuf buf, long bytes) {
    if (buf != null && buf.capacity() >= bytes) {
      return buf;
    }
    if (buf != null) {
      buf.close();
    }
    return allocator.buffer(Math.max(bytes, 64));
  }

  /** A ByteBuffer over {@code [offset, offset + length)}; empty ranges need no memory. */
  static ByteBuffer view(ArrowBuf buf, long offset, long length) {
    return length == 0 ? ByteBuffer.allocate(0) : buf.nioBuffer(offset, Math.toIntExact(length));
  }

  @Override
  public void close() {
    for (ArrowBuf b : new ArrowBuf[] {validityScratch, valuesScratch, offsetsScratch}) {
      if (b != null) {
        b.close();
      }
    }
  }
}
