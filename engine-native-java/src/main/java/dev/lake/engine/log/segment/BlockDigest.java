package dev.lake.engine.log.segment;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32C;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The chunk metadata of one block being written (ranges, buffer lengths, CRC32C, statistics),
 * computed from the block's memory by whichever thread starts first: the helper thread it is
 * handed to ({@link #run}), or the writing thread once it needs the block's memory back
 * ({@link #await}). So the writing thread never sits idle waiting for a helper that is busy or
 * not scheduled: it does the work itself.
 */
final class BlockDigest implements Runnable {

  private final int rows;
  private final List<ColumnSlice> columns;
  private final long[] starts;
  private final List<ColumnKind> kinds;
  private final List<Field> fields;
  private final StatsCollector helperStats;
  private final StatsCollector writerStats;
  private final AtomicBoolean started = new AtomicBoolean();
  private final CompletableFuture<BlockMeta> meta = new CompletableFuture<>();

  /**
   * @param starts where each column's chunk starts in the segment file
   * @param helperStats used only on the helper thread, {@code writerStats} only on the writing one
   */
  BlockDigest(int rows, List<ColumnSlice> columns, long[] starts, List<ColumnKind> kinds,
      List<Field> fields, StatsCollector helperStats, StatsCollector writerStats) {
    this.rows = rows;
    this.columns = columns;
    this.starts = starts.clone();
    this.kinds = kinds;
    this.fields = fields;
    this.helperStats = helperStats;
    this.writerStats = writerStats;
  }

  /** A digest computed already, by the writing thread. */
  static BlockDigest done(BlockMeta meta) {
    BlockDigest digest = new BlockDigest(meta.rows(), List.of(), new long[0], List.of(), List.of(), null, null);
    digest.started.set(true);
    digest.meta.complete(meta);
    return digest;
  }

  /** On the helper thread: computes the digest unless the writing thread already began it. */
  @Override
  public void run() {
    compute(helperStats);
  }

  /**
   * On the writing thread: computes the digest here unless the helper already began it, then
   * waits for it. Never fails (see {@link #meta}); on return nothing reads the block's memory.
   */
  void await() {
    compute(writerStats);
    meta.handle((m, failure) -> null).join();
  }

  /**
   * The block's metadata, after {@link #await}. A digest fails only on a bug, which is rethrown
   * as it was.
   */
  BlockMeta meta() {
    try {
      return meta.join();
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

  private void compute(StatsCollector stats) {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    try {
      meta.complete(digest(stats));
    } catch (Throwable e) {
      meta.completeExceptionally(e);
    }
  }

  private BlockMeta digest(StatsCollector stats) {
    List<ChunkMeta> chunks = new ArrayList<>(kinds.size());
    for (int c = 0; c < kinds.size(); c++) {
      ColumnSlice slice = columns.get(c);
      CRC32C crc = new CRC32C();
      List<Long> lengths = new ArrayList<>(3);
      long length = 0;
      for (ByteBuffer bytes : slice.buffers()) {
        crc.update(bytes.duplicate());
        lengths.add((long) bytes.remaining());
        length += bytes.remaining();
      }
      chunks.add(new ChunkMeta(starts[c], length, (int) crc.getValue(), lengths,
          stats.collect(kinds.get(c), fields.get(c), slice), slice.nodes()));
    }
    return new BlockMeta(rows, chunks);
  }
}
