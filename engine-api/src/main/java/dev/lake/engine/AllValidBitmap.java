package dev.lake.engine;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * read, never filled (it is mapped read-only, see {@link #ones}). It is never freed.
 */
public final class AllValidBitmap {
  /** The most rows one buffer of it can cover. */
  public static final int MAX_ROWS = 1 << 20;

  private static final MemorySegment ONES = ones(MAX_ROWS / 8);

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

  /**
   * The bitmap's memory: read-only, mapped from a file of ones (deleted once mapped; the mapping
   * lives on), so a write by mistake faults as a write to a mapped segment would, instead of
   * turning every NULL-free column's rows NULL. Where no temporary file can be written, plain
   * memory.
   */
  private static MemorySegment ones(int bytes) {
    byte[] content = new byte[bytes];
    java.util.Arrays.fill(content, (byte) -1);
    try {
      Path file = Files.createTempFile("lake-all-valid", ".bits");
      try {
        Files.write(file, content);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
          return channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes, Arena.global());
        }
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException | UnsupportedOperationException e) {
      return Arena.global().allocate(bytes, 64).copyFrom(MemorySegment.ofArray(content));
    }
  }

  /** Whether the bitmap's memory is mapped read-only (not where no temporary file could be made). */
  static boolean readOnly() {
    return ONES.isReadOnly();
  }

  /** Whether {@code buffer} starts at this bitmap: every bit it covers is set. */
  public static boolean covers(ArrowBuf buffer) {
    return buffer != null && buffer.memoryAddress() == ONES.address();
  }
}
