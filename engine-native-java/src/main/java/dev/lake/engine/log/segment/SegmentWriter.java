package dev.lake.engine.log.segment;

import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.zip.CRC32C;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes one segment file: blocks as they come, then the footer and tail, then fsync. A block's
 * bytes are written by the caller while its chunks' CRC32C and statistics ({@link BlockDigest})
 * are computed on a helper thread, from the same memory.
 */
final class SegmentWriter implements AutoCloseable {

  /**
   * Every chunk starts at a multiple of this many bytes in the file (zeros fill the gap), so a
   * mapped column's values, which follow its validity bitmap of {@code rows / 8} bytes, start on
   * a cache line in every block of a multiple of 512 rows: a 64-byte vector load then reads one
   * line, not two (Q6's range masks over unaligned chunks streamed about 25% slower). Readers
   * need no change: chunk offsets are in the footer.
   */
  static final int CHUNK_ALIGNMENT = 64;
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(CHUNK_ALIGNMENT).asReadOnlyBuffer();

  private final String key;
  private final Schema schema;
  private final List<ColumnKind> kinds;
  private final Executor helper;
  private final Compression compression;
  private final StatsCollector helperStats = new StatsCollector();
  private final StatsCollector writerStats = new StatsCollector();
  private final ObjectStore.ObjectWriter out;
  private final List<BlockDigest> blocks = new ArrayList<>();
  private long position;
  private long rows;

  /**
   * @param helper runs the digests of the blocks, one at a time (a serial executor: they share
   *     scratch memory); the caller's thread runs those it needs before the helper began them
   */
  SegmentWriter(ObjectStore store, String key, Schema schema, Executor helper, Compression compression)
      throws IOException {
    this.key = key;
    this.compression = compression;
    this.schema = schema;
    this.kinds = SegmentFooter.kinds(schema);
    this.helper = helper;
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
   * helper computes their digest from the same memory.
   *
   * @return the block's digest: the caller must neither change nor release the block's buffers
   *     before its {@link BlockDigest#await} returned. If this method throws, nothing reads them
   *     any more.
   */
  BlockDigest writeBlock(int n, List<ColumnSlice> columns) throws IOException {
    if (compression != Compression.NONE) {
      return writeEncodedBlock(n, columns);
    }
    List<ByteBuffer> all = new ArrayList<>(kinds.size() * 4);
    long[] starts = new long[columns.size()];
    long at = position;
    for (int c = 0; c < columns.size(); c++) {
      int pad = (int) (-at & (CHUNK_ALIGNMENT - 1));
      if (pad > 0) {
        all.add(ZEROS.duplicate().limit(pad));
        at += pad;
      }
      starts[c] = at;
      for (ByteBuffer bytes : columns.get(c).buffers()) {
        all.add(bytes.duplicate());
        at += bytes.remaining();
      }
    }
    BlockDigest digest = new BlockDigest(
        n, columns, starts, kinds, schema.getFields(), helperStats, writerStats);
    blocks.add(digest);
    try {
      helper.execute(digest);
      write(all.toArray(ByteBuffer[]::new));
    } catch (IOException | RuntimeException e) {
      digest.await();
      throw e;
    }
    rows += n;
    return digest;
  }

  /**
   * Like {@link #writeBlock} for {@code fast} and {@code small}: on this thread, as encoding
   * needs a chunk's statistics before its bytes and their length are known. A flat chunk is
   * written encoded where {@link ChunkCodec} finds it pays, raw otherwise; the CRC32C covers the
   * stored bytes.
   */
  private BlockDigest writeEncodedBlock(int n, List<ColumnSlice> columns) throws IOException {
    List<ByteBuffer> all = new ArrayList<>(kinds.size() * 4);
    List<ChunkMeta> chunks = new ArrayList<>(kinds.size());
    long at = position;
    for (int c = 0; c < columns.size(); c++) {
      ColumnSlice slice = columns.get(c);
      ColumnStats stats = writerStats.collect(kinds.get(c), schema.getFields().get(c), slice);
      ChunkCodec.Encoded encoded = kinds.get(c) == null ? null
          : ChunkCodec.encode(kinds.get(c), slice, stats.nullCount(), compression);
      int pad = (int) (-at & (CHUNK_ALIGNMENT - 1));
      if (pad > 0) {
        all.add(ZEROS.duplicate().limit(pad));
        at += pad;
      }
      long start = at;
      CRC32C crc = new CRC32C();
      List<Long> lengths = new ArrayList<>(3);
      ByteBuffer[] stored = encoded == null ? slice.buffers() : new ByteBuffer[] {encoded.stored()};
      for (ByteBuffer bytes : stored) {
        crc.update(bytes.duplicate());
        lengths.add((long) bytes.remaining());
        all.add(bytes.duplicate());
        at += bytes.remaining();
      }
      chunks.add(new ChunkMeta(start, at - start, (int) crc.getValue(),
          encoded == null ? lengths : encoded.bufferLengths(), stats, slice.nodes(),
          encoded == null ? null : encoded.encoding()));
    }
    BlockDigest digest = BlockDigest.done(new BlockMeta(n, chunks));
    write(all.toArray(ByteBuffer[]::new));
    blocks.add(digest);
    rows += n;
    return digest;
  }

  /** Writes footer and tail and makes the object durable. Returns the final size. */
  long finish() throws IOException {
    awaitDigests();
    List<BlockMeta> metas = new ArrayList<>(blocks.size());
    for (BlockDigest b : blocks) {
      metas.add(b.meta());
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

  /** Waits until no digest reads any block any more, however they ended. */
  private void awaitDigests() {
    for (BlockDigest b : blocks) {
      b.await();
    }
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
