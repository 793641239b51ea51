package dev.lake.engine.log.segment;

import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Turns a stream of batches of any size into segment files of fixed-size blocks, rolling to a new
 * segment once one reaches the size bound. Every whole block inside a batch is written straight
 * from the batch's Arrow buffers ({@link ColumnSlicer}: views, re-based only where a block starts
 * mid-byte or its offsets do not start at 0); only rows that straddle batches are copied, in bulk,
 * into a {@link StagedBlock}. Struct and list columns take the same two paths through a
 * {@link NestedColumn} each.
 *
 * <p>Each block's CRC32C and statistics are computed on a helper thread of this appender while
 * the caller writes it and cuts the next ones ({@link BlockDigest}): up to {@value #IN_FLIGHT}
 * blocks of a batch are in flight at once, each cut with its own slicers. {@link #append}
 * returns only when nothing reads the batch any more; digests the helper has not begun by then
 * are computed on the caller's thread. A table with struct or list columns keeps one block in
 * flight: a {@link NestedColumn} has one set of scratch buffers.
 *
 * <p>Objects are durable once {@link #finish()} returns; until a commit log entry names them they
 * are invisible. {@link #close()} before {@code finish} deletes what was written.
 */
public final class SegmentAppender implements AutoCloseable {

  /** A finished segment: its file name in the data directory, rows and bytes. */
  public record Written(String fileName, long rows, long bytes) {}

  private final ObjectStore store;
  private final String directory;
  private final Schema schema;
  private final int blockRows;
  private final long segmentBytes;
  private final Compression compression;
  /**
   * Blocks whose digest may still read their memory while the next ones are cut: enough to keep
   * the helper busy while a block is written, few enough that the slicers' scratch stays small.
   */
  static final int IN_FLIGHT = 4;

  /** The slicers of each in-flight slot, one per column; null for a struct or list column. */
  private final List<List<ColumnSlicer>> slicers = new ArrayList<>();
  /** Per column, null for a flat one. */
  private final NestedColumn[] nested;
  private final boolean allFlat;
  /** Per slot: the digest of the block last cut with its slicers, until awaited. */
  private final BlockDigest[] inFlight = new BlockDigest[IN_FLIGHT];
  private int nextSlot;
  /** The helper: one virtual thread, started with the first block. */
  private final ExecutorService helper =
      Executors.newSingleThreadExecutor(Thread.ofVirtual().name("lake-log-digest").factory());
  private final StagedBlock staged;
  private final List<Written> written = new ArrayList<>();
  private final List<String> keys = new ArrayList<>();
  private SegmentWriter current;
  private long rows;
  private boolean finished;

  /**
   * @param directory key prefix of the segments, such as {@code "data/"}
   * @param allocator where the staging block and scratch memory live; released by {@link #close()}
   */
  public SegmentAppender(ObjectStore store, String directory, Schema schema, int blockRows,
      long segmentBytes, BufferAllocator allocator) {
    this(store, directory, schema, blockRows, segmentBytes, Compression.NONE, allocator);
  }

  /** @param compression how the segments' chunks are stored */
  public SegmentAppender(ObjectStore store, String directory, Schema schema, int blockRows,
      long segmentBytes, Compression compression, BufferAllocator allocator) {
    this.compression = compression;
    this.store = store;
    this.directory = directory;
    this.schema = schema;
    this.blockRows = blockRows;
    this.segmentBytes = segmentBytes;
    List<ColumnKind> kinds = SegmentFooter.kinds(schema);
    List<ColumnKind> flat = new ArrayList<>();
    nested = new NestedColumn[kinds.size()];
    for (int c = 0; c < kinds.size(); c++) {
      if (kinds.get(c) == null) {
        nested[c] = new NestedColumn(schema.getFields().get(c), allocator);
      } else {
        flat.add(kinds.get(c));
      }
    }
    this.allFlat = flat.size() == kinds.size();
    this.staged = new StagedBlock(flat, blockRows, allocator);
    for (int slot = 0; slot < IN_FLIGHT; slot++) {
      List<ColumnSlicer> set = new ArrayList<>(kinds.size());
      for (ColumnKind kind : kinds) {
        set.add(kind == null ? null : new ColumnSlicer(kind, allocator));
      }
      slicers.add(set);
    }
  }

  public long rows() {
    return rows;
  }

  /**
   * Adds every row of {@code batch} (whose fields match the table's types). The batch is only
   * read during the call.
   */
  public void append(VectorSchemaRoot batch) throws IOException {
    int n = batch.getRowCount();
    List<FieldVector> vectors = batch.getFieldVectors();
    int from = 0;
    try {
      while (from < n) {
        if (staged.rows() == 0 && n - from >= blockRows) {
          int slot = nextSlot;
          nextSlot = (slot + 1) % IN_FLIGHT;
          if (allFlat) {
            awaitSlot(slot);
          } else {
            awaitInFlight();
          }
          List<ColumnSlicer> set = slicers.get(slot);
          List<ColumnSlice> block = new ArrayList<>(vectors.size());
          for (int c = 0; c < vectors.size(); c++) {
            block.add(nested[c] != null ? nested[c].slice(vectors.get(c), from, blockRows)
                : set.get(c).slice(vectors.get(c), from, blockRows));
          }
          inFlight[slot] = writeBlock(blockRows, block);
          from += blockRows;
          rows += blockRows;
        } else {
          int take = Math.min(n - from, blockRows - staged.rows());
          staged.append(flat(vectors), from, take);
          for (int c = 0; c < nested.length; c++) {
            if (nested[c] != null) {
              nested[c].stage(vectors.get(c), from, take);
            }
          }
          from += take;
          rows += take;
          if (staged.rows() == blockRows) {
            flushStaged();
          }
        }
      }
    } finally {
      // The batch is only read during the call: its digests end before it returns, even when
      // a write failed.
      awaitInFlight();
    }
  }

  /** Writes the last partial block and every footer, fsyncs, and lists the segments written. */
  public List<Written> finish() throws IOException {
    if (staged.rows() > 0) {
      flushStaged();
    }
    if (current != null) {
      closeSegment();
    }
    finished = true;
    return List.copyOf(written);
  }

  /** Writes the staged block and empties it once its digest no longer reads it. */
  private void flushStaged() throws IOException {
    awaitInFlight();
    List<ColumnSlice> flat = staged.slices();
    List<ColumnSlice> block = new ArrayList<>(nested.length);
    for (int c = 0, f = 0; c < nested.length; c++) {
      block.add(nested[c] != null ? nested[c].staged() : flat.get(f++));
    }
    writeBlock(staged.rows(), block).await();
    staged.clear();
    for (NestedColumn n : nested) {
      if (n != null) {
        n.clearStaged();
      }
    }
  }

  /** The flat columns' vectors, which {@link #staged} holds. */
  private List<FieldVector> flat(List<FieldVector> vectors) {
    if (allFlat) {
      return vectors;
    }
    List<FieldVector> out = new ArrayList<>();
    for (int c = 0; c < vectors.size(); c++) {
      if (nested[c] == null) {
        out.add(vectors.get(c));
      }
    }
    return out;
  }

  /** @return the block's digest, which reads the block's buffers until awaited */
  private BlockDigest writeBlock(int n, List<ColumnSlice> block) throws IOException {
    if (current == null) {
      String key = directory + UUID.randomUUID() + ".seg";
      keys.add(key);
      current = new SegmentWriter(store, key, schema, helper, compression);
    }
    BlockDigest digest = current.writeBlock(n, block);
    if (current.size() >= segmentBytes) {
      closeSegment();
    }
    return digest;
  }

  /** Returns once the block last cut in {@code slot} is no longer read (never fails). */
  private void awaitSlot(int slot) {
    if (inFlight[slot] != null) {
      inFlight[slot].await();
      inFlight[slot] = null;
    }
  }

  private void awaitInFlight() {
    for (int slot = 0; slot < IN_FLIGHT; slot++) {
      awaitSlot(slot);
    }
  }

  private void closeSegment() throws IOException {
    long bytes = current.finish();
    written.add(new Written(current.key().substring(directory.length()), current.rows(), bytes));
    current = null;
  }

  /** Releases the staging block; if {@link #finish()} did not complete, deletes the files. */
  @Override
  public void close() {
    awaitInFlight();
    helper.close();
    staged.close();
    slicers.forEach(set -> set.stream().filter(java.util.Objects::nonNull).forEach(ColumnSlicer::close));
    for (NestedColumn n : nested) {
      if (n != null) {
        n.close();
      }
    }
    try {
      if (current != null) {
        current.close();
      }
      if (!finished) {
        for (String k : keys) {
          store.delete(k);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
