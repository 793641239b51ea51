package dev.lake.engine.log.segment;

import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.vector.types.pojo.Schema;

/** Writes one segment file: blocks as they come, then the footer and tail, then fsync. */
final class SegmentWriter implements AutoCloseable {

  private final String key;
  private final Schema schema;
  private final List<ColumnKind> kinds;
  private final ObjectStore.ObjectWriter out;
  private final List<BlockMeta> blocks = new ArrayList<>();
  private long position;
  private long rows;

  SegmentWriter(ObjectStore store, String key, Schema schema) throws IOException {
    this.key = key;
    this.schema = schema;
    this.kinds = SegmentFooter.kinds(schema);
    this.out = store.create(key);
    write(ByteBuffer.wrap(SegmentFile.MAGIC));
  }

  String key() {
    return key;
  }

  long size() {
    return position;
  }

  long rows() {
    return rows;
  }

  /**
   * Appends one block of {@code n} rows (at least one): one chunk per column, in schema order.
   * The block's buffers go out in one gathering write, straight from their memory.
   */
  void writeBlock(int n, List<ColumnSlice> columns) throws IOException {
    List<ChunkMeta> chunks = new ArrayList<>(kinds.size());
    List<ByteBuffer> all = new ArrayList<>(kinds.size() * 3);
    long at = position;
    for (int c = 0; c < kinds.size(); c++) {
      ColumnSlice slice = columns.get(c);
      CRC32C crc = new CRC32C();
      List<Long> lengths = new ArrayList<>(3);
      long start = at;
      for (ByteBuffer bytes : slice.buffers()) {
        crc.update(bytes.duplicate());
        lengths.add((long) bytes.remaining());
        at += bytes.remaining();
        all.add(bytes.duplicate());
      }
      chunks.add(new ChunkMeta(start, at - start, (int) crc.getValue(), lengths,
          StatsCollector.collect(kinds.get(c), schema.getFields().get(c), slice), slice.nodes()));
    }
    write(all.toArray(ByteBuffer[]::new));
    blocks.add(new BlockMeta(n, chunks));
    rows += n;
  }

  /** Writes footer and tail and makes the object durable. Returns the final size. */
  long finish() throws IOException {
    byte[] footer = new SegmentFooter(schema, blocks).encode();
    CRC32C crc = new CRC32C();
    crc.update(footer);
    write(ByteBuffer.wrap(footer));
    ByteBuffer tail = ByteBuffer.allocate(SegmentFile.TAIL).order(ByteOrder.LITTLE_ENDIAN);
    tail.putInt(footer.length).putInt((int) crc.getValue()).put(SegmentFile.MAGIC).flip();
    write(tail);
    return out.commit();
  }

  private void write(ByteBuffer... bytes) throws IOException {
    for (ByteBuffer b : bytes) {
      position += b.remaining();
    }
    out.write(bytes);
  }

  /** Discards the object unless {@link #finish()} committed it. */
  @Override
  public void close() throws IOException {
    out.close();
  }
}
