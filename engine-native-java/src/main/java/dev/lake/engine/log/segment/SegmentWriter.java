package dev.lake.engine.log.segment;

import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.zip.CRC32C;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes one segment file: blocks as they come, then the footer and tail, then fsync. A block's
 * bytes are written by the caller while its chunks' CRC32C and statistics are computed on the
 * digest executor, from the same memory.
 */
final class SegmentWriter implements AutoCloseable {

  private final String key;
  private final Schema schema;
  private final List<ColumnKind> kinds;
  private final Executor digests;
  private final StatsCollector stats = new StatsCollector();
  private final ObjectStore.ObjectWriter out;
  private final List<CompletableFuture<BlockMeta>> blocks = new ArrayList<>();
  private long position;
  private long rows;

  /**
   * @param digests runs the CRC32C and statistics of each block, one block at a time (a serial
   *     executor: the digests share scratch memory; a direct executor is fine)
   */
  SegmentWriter(ObjectStore store, String key, Schema schema, Executor digests) throws IOException {
    this.key = key;
    this.schema = schema;
    this.kinds = SegmentFooter.kinds(schema);
    this.digests = digests;
    this.out = store.create(key);
    try {
      write(ByteBuffer.wrap(SegmentFile.MAGIC));
    } catch (IOException | RuntimeException e) {
      out.close();
      throw e;
    }
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
   * The block's buffers go out in one gathering write, straight from their memory, while the
   * digest executor reads the same memory.
   *
   * @return completes (never exceptionally) once nothing reads the block's buffers any more: the
   *     caller must neither change nor release them before. If this method throws, that point
   *     has already been reached.
   */
  CompletableFuture<?> writeBlock(int n, List<ColumnSlice> columns) throws IOException {
    long start = position;
    CompletableFuture<BlockMeta> meta =
        CompletableFuture.supplyAsync(() -> digest(n, columns, start), digests);
    blocks.add(meta);
    List<ByteBuffer> all = new ArrayList<>(kinds.size() * 3);
    for (ColumnSlice slice : columns) {
      for (ByteBuffer bytes : slice.buffers()) {
        all.add(bytes.duplicate());
      }
    }
    CompletableFuture<?> released = meta.handle((m, failure) -> null);
    try {
      write(all.toArray(ByteBuffer[]::new));
    } catch (IOException | RuntimeException e) {
      released.join();
      throw e;
    }
    rows += n;
    return released;
  }

  /** The chunks of a block written at {@code start}: their ranges, CRC32C and statistics. */
  private BlockMeta digest(int n, List<ColumnSlice> columns, long start) {
    List<ChunkMeta> chunks = new ArrayList<>(kinds.size());
    long at = start;
    for (int c = 0; c < kinds.size(); c++) {
      ColumnSlice slice = columns.get(c);
      CRC32C crc = new CRC32C();
      List<Long> lengths = new ArrayList<>(3);
      long chunkStart = at;
      for (ByteBuffer bytes : slice.buffers()) {
        crc.update(bytes.duplicate());
        lengths.add((long) bytes.remaining());
        at += bytes.remaining();
      }
      chunks.add(new ChunkMeta(chunkStart, at - chunkStart, (int) crc.getValue(), lengths,
          stats.collect(kinds.get(c), schema.getFields().get(c), slice)));
    }
    return new BlockMeta(n, chunks);
  }

  /** Writes footer and tail and makes the object durable. Returns the final size. */
  long finish() throws IOException {
    awaitDigests();
    List<BlockMeta> metas = new ArrayList<>(blocks.size());
    for (CompletableFuture<BlockMeta> b : blocks) {
      metas.add(joinDigest(b));
    }
    byte[] footer = new SegmentFooter(schema, metas).encode();
    CRC32C crc = new CRC32C();
    crc.update(footer);
    write(ByteBuffer.wrap(footer));
    ByteBuffer tail = ByteBuffer.allocate(SegmentFile.TAIL).order(ByteOrder.LITTLE_ENDIAN);
    tail.putInt(footer.length).putInt((int) crc.getValue()).put(SegmentFile.MAGIC).flip();
    write(tail);
    return out.commit();
  }

  /** A digest's result; a digest fails only on a bug, which is rethrown as it was. */
  private static BlockMeta joinDigest(CompletableFuture<BlockMeta> digest) {
    try {
      return digest.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error r) {
        throw r;
      }
      throw e;
    }
  }

  /** Waits until no digest runs any more, however they ended. */
  private void awaitDigests() {
    CompletableFuture.allOf(blocks.toArray(CompletableFuture<?>[]::new)).handle((r, e) -> null).join();
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
    awaitDigests();
    out.close();
  }
}
