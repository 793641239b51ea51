package dev.lake.engine.log.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Writes one segment file: blocks as they come, then the footer and tail, then fsync. */
final class SegmentWriter implements AutoCloseable {

  private final Path file;
  private final Schema schema;
  private final List<ColumnKind> kinds;
  private final FileChannel channel;
  private final List<BlockMeta> blocks = new ArrayList<>();
  private long position;
  private long rows;

  SegmentWriter(Path file, Schema schema) throws IOException {
    this.file = file;
    this.schema = schema;
    this.kinds = SegmentFooter.kinds(schema);
    // CREATE_NEW: segment names are fresh UUIDs, so an existing file means a bug, not a retry.
    this.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    write(ByteBuffer.wrap(SegmentFile.MAGIC));
  }

  Path file() {
    return file;
  }

  long size() {
    return position;
  }

  long rows() {
    return rows;
  }

  /** Appends {@code root}'s rows (at least one) as one block. */
  void writeBlock(VectorSchemaRoot root) throws IOException {
    int n = root.getRowCount();
    List<ChunkMeta> chunks = new ArrayList<>(kinds.size());
    for (int c = 0; c < kinds.size(); c++) {
      FieldVector vector = root.getVector(c);
      ColumnKind kind = kinds.get(c);
      List<ArrowBuf> buffers = vector.getFieldBuffers();
      long start = position;
      CRC32C crc = new CRC32C();
      List<Long> lengths = new ArrayList<>(kind.bufferCount());
      for (int i = 0; i < kind.bufferCount(); i++) {
        long len = kind.bufferLength(i, n);
        if (len < 0) {
          len = vector.getOffsetBuffer().getInt((long) n * 4);
        }
        ByteBuffer bytes = buffers.get(i).nioBuffer(0, (int) len);
        crc.update(bytes.duplicate());
        write(bytes);
        lengths.add(len);
      }
      chunks.add(new ChunkMeta(start, position - start, (int) crc.getValue(), lengths,
          StatsCollector.collect(kind, vector, n)));
    }
    blocks.add(new BlockMeta(n, chunks));
    rows += n;
  }

  /** Writes footer and tail and forces the file to disk. Returns the final size. */
  long finish() throws IOException {
    byte[] footer = new SegmentFooter(schema, blocks).encode();
    CRC32C crc = new CRC32C();
    crc.update(footer);
    write(ByteBuffer.wrap(footer));
    ByteBuffer tail = ByteBuffer.allocate(SegmentFile.TAIL).order(ByteOrder.LITTLE_ENDIAN);
    tail.putInt(footer.length).putInt((int) crc.getValue()).put(SegmentFile.MAGIC).flip();
    write(tail);
    channel.force(true);
    channel.close();
    return position;
  }

  private void write(ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      position += channel.write(bytes, position);
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
