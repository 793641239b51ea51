package dev.lake.engine.log.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Yields one batch per selected block. Each column chunk is read with one positional read
 * straight into an {@link ArrowBuf} of the caller's allocator, its CRC32C checked, and its
 * buffers handed to the vectors as slices of that one allocation: no copy, no per-row work.
 */
final class BlockReader extends ArrowReader {

  private final Path file;
  private final SegmentFooter footer;
  private final List<Integer> blocks;
  private final List<Integer> projection;
  private final List<ColumnKind> kinds;
  private final SegmentFile.CorruptionHandler onCorrupt;
  private FileChannel channel;
  private int next;
  private long bytesRead;

  BlockReader(
      Path file,
      SegmentFooter footer,
      List<Integer> blocks,
      List<Integer> projection,
      BufferAllocator allocator,
      SegmentFile.CorruptionHandler onCorrupt) {
    super(allocator);
    this.file = file;
    this.footer = footer;
    this.blocks = List.copyOf(blocks);
    this.projection = List.copyOf(projection);
    this.kinds = SegmentFooter.kinds(footer.schema());
    this.onCorrupt = onCorrupt;
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    prepareLoadNextBatch();
    if (next >= blocks.size()) {
      return false;
    }
    int blockIndex = blocks.get(next++);
    BlockMeta block = footer.blocks().get(blockIndex);
    FileChannel ch = channel();
    List<ArrowBuf> chunks = new ArrayList<>(projection.size());
    try {
      List<ArrowFieldNode> nodes = new ArrayList<>(projection.size());
      List<ArrowBuf> buffers = new ArrayList<>();
      for (int column : projection) {
        ChunkMeta meta = block.columns().get(column);
        ArrowBuf chunk = allocator.buffer(meta.length());
        chunks.add(chunk);
        readChunk(ch, meta, chunk, blockIndex, column);
        long offset = 0;
        for (long len : meta.bufferLengths()) {
          buffers.add(chunk.slice(offset, len));
          offset += len;
        }
        if (kinds.get(column).variableWidth()) {
          checkOffsets(buffers, block.rows(), blockIndex, column);
        }
        nodes.add(new ArrowFieldNode(block.rows(), meta.stats().nullCount()));
      }
      // The batch retains the slices; the vectors retain them again on load.
      loadRecordBatch(new ArrowRecordBatch(block.rows(), nodes, buffers));
      return true;
    } finally {
      chunks.forEach(ArrowBuf::close);
    }
  }

  private void readChunk(FileChannel ch, ChunkMeta meta, ArrowBuf chunk, int block, int column) {
    ByteBuffer target = chunk.nioBuffer(0, (int) meta.length());
    try {
      SegmentFile.readFully(ch, meta.offset(), target);
    } catch (IOException e) {
      throw onCorrupt.corrupt(where(block, column) + " cannot be read: " + e.getMessage(), e);
    }
    bytesRead += meta.length();
    CRC32C crc = new CRC32C();
    crc.update(chunk.nioBuffer(0, (int) meta.length()));
    if ((int) crc.getValue() != meta.crc32c()) {
      throw onCorrupt.corrupt(where(block, column) + " fails its checksum", null);
    }
    chunk.writerIndex(meta.length());
  }

  private void checkOffsets(List<ArrowBuf> buffers, int rows, int block, int column) {
    ArrowBuf offsets = buffers.get(buffers.size() - 2);
    ArrowBuf data = buffers.get(buffers.size() - 1);
    if (offsets.getInt(0) != 0 || offsets.getInt((long) rows * 4) != data.capacity()) {
      throw onCorrupt.corrupt(where(block, column) + " has inconsistent offsets", null);
    }
  }

  private String where(int block, int column) {
    return "block " + block + " column '" + footer.schema().getFields().get(column).getName() + "'";
  }

  private FileChannel channel() {
    if (channel == null) {
      try {
        channel = FileChannel.open(file, StandardOpenOption.READ);
      } catch (NoSuchFileException e) {
        throw onCorrupt.corrupt("is missing", e);
      } catch (IOException e) {
        throw onCorrupt.corrupt("cannot be opened: " + e.getMessage(), e);
      }
    }
    return channel;
  }

  @Override
  public long bytesRead() {
    return bytesRead;
  }

  @Override
  protected void closeReadSource() throws IOException {
    if (channel != null) {
      channel.close();
    }
  }

  @Override
  protected Schema readSchema() {
    List<Field> fields = new ArrayList<>(projection.size());
    for (int column : projection) {
      fields.add(footer.schema().getFields().get(column));
    }
    return new Schema(fields);
  }
}
