package dev.lake.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;

/**
 * One process-wide validity bitmap with every bit set. A reader may hand it out as the validity
 * buffer of a column it knows holds no NULLs (from its metadata, checked against the stored
 * bitmap); a consumer that finds it, by address, knows the column is NULL-free without reading
 * a bit. Otherwise each batch would have each such column's bitmap read from memory once per
 * question, 8 KiB per 65,536 rows, only to learn what the table's metadata already said.
 *
 * <p>The memory is shared, so nothing may write to it: like a mapped segment, a buffer of it is
 * read, never filled. It is never freed.
 */
public final class AllValidBitmap {
  /** The most rows one buffer of it can cover. */
  public static final int MAX_ROWS = 1 << 20;

  private static final MemorySegment ONES = Arena.global().allocate(MAX_ROWS / 8, 64).fill((byte) -1);

  private AllValidBitmap() {}

  /**
   * A buffer of {@code allocator} over the bitmap's first {@code (rows + 7) / 8} bytes, accounted
   * to it like a buffer of that size; {@code rows} is at most {@link #MAX_ROWS}.
   */
  public static ArrowBuf wrap(BufferAllocator allocator, int rows) {
    if (rows < 0 || rows > MAX_ROWS) {
      throw new IllegalArgumentException("rows " + rows + " outside 0.." + MAX_ROWS);
    }
    return allocator.wrapForeignAllocation(new ForeignAllocation(Math.max(1, (rows + 7) / 8), ONES.address()) {
      @Override
      protected void release0() {
        // Shared and never freed.
      }
    });
  }

  /** Whether {@code buffer} starts at this bitmap: every bit it covers is set. */
  public static boolean covers(ArrowBuf buffer) {
    return buffer != null && buffer.memoryAddress() == ONES.address();
  }
}
