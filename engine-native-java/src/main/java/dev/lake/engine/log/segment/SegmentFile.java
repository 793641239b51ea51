package dev.lake.engine.log.segment;

import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reading side of the segment file layout:
 *
 * <pre>
 *   "LAKESEG1"                          8-byte magic
 *   column chunks                       per block, per column: its Arrow buffers, raw, LE
 *   footer                              JSON ({@link SegmentFooter})
 *   footer length   int32 LE
 *   footer CRC32C   int32 LE
 *   "LAKESEG1"                          8-byte magic
 * </pre>
 *
 * Every chunk carries its own CRC32C in the footer, checked on every read, so a torn or flipped
 * file is reported instead of returned as data.
 */
public final class SegmentFile {

  static final byte[] MAGIC = "LAKESEG1".getBytes(StandardCharsets.US_ASCII);
  static final int TAIL = 4 + 4 + 8;

  private SegmentFile() {}

  /** Turns a corruption detected while reading blocks into the exception the caller reports. */
  @FunctionalInterface
  public interface CorruptionHandler {
    /**
     * @param block the damaged block, or -1 when the damage concerns the whole file
     * @param column the damaged column's name, or null
     * @param problem what is wrong, without a path ("fails its checksum")
     * @param cause the underlying failure (for the log), or null
     */
    RuntimeException corrupt(int block, String column, String problem, Throwable cause);
  }

  /**
   * Reads and verifies the footer of {@code file}.
   *
   * @param expectedSize the size the commit log recorded, or -1 not to check it
   * @param expectedSchema the table schema the footer must carry
   * @throws SegmentFormatException if the file is missing, has another size, or its tail,
   *     footer checksum or structure is wrong
   */
  public static SegmentFooter readFooter(ObjectStore store, String key, long expectedSize, Schema expectedSchema)
      throws SegmentFormatException {
    try (ObjectStore.ReadableObject ch = store.open(key)) {
      long size = ch.size();
      if (expectedSize >= 0 && size != expectedSize) {
        throw new SegmentFormatException(
            "has " + size + " bytes, the commit log recorded " + expectedSize);
      }
      if (size < MAGIC.length + TAIL) {
        throw new SegmentFormatException("is too short to be a segment (" + size + " bytes)");
      }
      ByteBuffer head = readFully(ch, 0, MAGIC.length);
      ByteBuffer tail = readFully(ch, size - TAIL, TAIL).order(ByteOrder.LITTLE_ENDIAN);
      int footerLength = tail.getInt(0);
      int footerCrc = tail.getInt(4);
      if (!head.equals(ByteBuffer.wrap(MAGIC)) || !tail.slice(8, 8).equals(ByteBuffer.wrap(MAGIC))) {
        throw new SegmentFormatException("has no segment magic at its start or end");
      }
      long footerStart = size - TAIL - footerLength;
      if (footerLength <= 0 || footerStart < MAGIC.length) {
        throw new SegmentFormatException("has an invalid footer length " + footerLength);
      }
      ByteBuffer footerBytes = readFully(ch, footerStart, footerLength);
      CRC32C crc = new CRC32C();
      crc.update(footerBytes.duplicate());
      if ((int) crc.getValue() != footerCrc) {
        throw new SegmentFormatException("fails its footer checksum");
      }
      byte[] bytes = new byte[footerLength];
      footerBytes.get(bytes);
      SegmentFooter footer = SegmentFooter.decode(bytes);
      validate(footer, footerStart, expectedSchema);
      return footer;
    } catch (NoSuchFileException e) {
      throw new SegmentFormatException("is missing", e);
    } catch (SegmentFormatException e) {
      throw e;
    } catch (IOException e) {
      throw new SegmentFormatException("cannot be read", e);
    }
  }

  /**
   * Opens a reader over {@code blocks} of a segment whose footer was verified, yielding one batch
   * per block with the columns {@code projection} (indexes into the table schema), in that order.
   * Chunk checksums are checked as blocks load; failures surface through {@code onCorrupt}.
   */
  public static ArrowReader openBlocks(
      ObjectStore store,
      String key,
      SegmentFooter footer,
      List<Integer> blocks,
      List<Integer> projection,
      BufferAllocator allocator,
      CorruptionHandler onCorrupt) {
    return new BlockReader(store, key, footer, blocks, projection, allocator, null, onCorrupt);
  }

  /**
   * Like {@link #openBlocks(ObjectStore, String, SegmentFooter, List, List, BufferAllocator,
   * CorruptionHandler)}, but where the store maps files the blocks are read from the segment's
   * mapping in {@code mappings} (mapped on first use, kept for the next readers) instead of
   * copied: the vectors wrap the mapped bytes, verified against their CRC32C before each batch
   * is returned.
   */
  public static ArrowReader openBlocks(
      ObjectStore store,
      String key,
      SegmentFooter footer,
      List<Integer> blocks,
      List<Integer> projection,
      BufferAllocator allocator,
      SegmentMappings mappings,
      CorruptionHandler onCorrupt) {
    return new BlockReader(store, key, footer, blocks, projection, allocator, mappings, onCorrupt);
  }

  private static void validate(SegmentFooter footer, long dataEnd, Schema expectedSchema)
      throws SegmentFormatException {
    if (!sameFields(footer.schema(), expectedSchema)) {
      throw new SegmentFormatException("has schema " + footer.schema() + ", expected " + expectedSchema);
    }
    List<ColumnKind> kinds = SegmentFooter.kinds(footer.schema());
    for (BlockMeta block : footer.blocks()) {
      if (block.rows() <= 0 || block.columns().size() != kinds.size()) {
        throw new SegmentFormatException("has a malformed block index");
      }
      for (int c = 0; c < kinds.size(); c++) {
        ChunkMeta chunk = block.columns().get(c);
        ColumnKind kind = kinds.get(c);
        if (chunk.offset() < MAGIC.length
            || chunk.length() <= 0
            || chunk.length() > Integer.MAX_VALUE
            || chunk.offset() + chunk.length() > dataEnd
            || (kind != null && chunk.bufferLengths().size() != kind.bufferCount())) {
          throw new SegmentFormatException("has a malformed chunk index");
        }
        if (kind == null) {
          NestedLayout.validate(footer.schema().getFields().get(c), chunk, block.rows());
        } else {
          for (int i = 0; i < kind.bufferCount(); i++) {
            long len = chunk.bufferLengths().get(i);
            long expected = kind.bufferLength(i, block.rows());
            if (len < 0 || (expected >= 0 && len != expected)) {
              throw new SegmentFormatException("has a malformed buffer length");
            }
          }
        }
        long sum = chunk.bufferLengths().stream().mapToLong(Long::longValue).sum();
        boolean sized = chunk.encoding() == null ? sum == chunk.length()
            : sum <= Integer.MAX_VALUE && chunk.encoding().encodedLength() >= 0
                && chunk.encoding().encodedLength() <= sum + 64;
        if (!sized || chunk.stats().nullCount() > block.rows()) {
          throw new SegmentFormatException("has a malformed chunk index");
        }
      }
    }
  }

  /** Field names, types and nullability equal, children included; metadata is ignored. */
  static boolean sameFields(Schema a, Schema b) {
    return sameFields(a.getFields(), b.getFields());
  }

  private static boolean sameFields(List<Field> fa, List<Field> fb) {
    if (fa.size() != fb.size()) {
      return false;
    }
    for (int i = 0; i < fa.size(); i++) {
      Field x = fa.get(i);
      Field y = fb.get(i);
      if (!x.getName().equals(y.getName())
          || !x.getType().equals(y.getType())
          || x.isNullable() != y.isNullable()
          || !sameFields(x.getChildren(), y.getChildren())) {
        return false;
      }
    }
    return true;
  }

  static ByteBuffer readFully(ObjectStore.ReadableObject object, long position, int length) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(length);
    object.read(position, buf);
    return buf.flip();
  }
}
