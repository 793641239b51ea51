package dev.lake.engine.log.segment;

import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Turns a stream of batches of any size into segment files of fixed-size blocks, rolling to a new
 * segment once one reaches the size bound. Every whole block inside a batch is written straight
 * from the batch's Arrow buffers ({@link ColumnSlicer}: views, re-based only where a block starts
 * mid-byte or its offsets do not start at 0); only rows that straddle batches are copied, in bulk,
 * into a {@link StagedBlock}.
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
  private final List<ColumnSlicer> slicers = new ArrayList<>();
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
    this.store = store;
    this.directory = directory;
    this.schema = schema;
    this.blockRows = blockRows;
    this.segmentBytes = segmentBytes;
    List<ColumnKind> kinds = SegmentFooter.kinds(schema);
    StagedBlock block = new StagedBlock(kinds, blockRows, allocator);
    for (ColumnKind kind : kinds) {
      slicers.add(new ColumnSlicer(kind, allocator));
    }
    this.staged = block;
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
    while (from < n) {
      if (staged.rows() == 0 && n - from >= blockRows) {
        List<ColumnSlice> block = new ArrayList<>(vectors.size());
        for (int c = 0; c < vectors.size(); c++) {
          block.add(slicers.get(c).slice(vectors.get(c), from, blockRows));
        }
        writeBlock(blockRows, block);
        from += blockRows;
        rows += blockRows;
      } else {
        int take = Math.min(n - from, blockRows - staged.rows());
        staged.append(vectors, from, take);
        from += take;
        rows += take;
        if (staged.rows() == blockRows) {
          flushStaged();
        }
      }
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

  private void flushStaged() throws IOException {
    writeBlock(staged.rows(), staged.slices());
    staged.clear();
  }

  private void writeBlock(int n, List<ColumnSlice> block) throws IOException {
    if (current == null) {
      String key = directory + UUID.randomUUID() + ".seg";
      keys.add(key);
      current = new SegmentWriter(store, key, schema);
    }
    current.writeBlock(n, block);
    if (current.size() >= segmentBytes) {
      closeSegment();
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
    staged.close();
    slicers.forEach(ColumnSlicer::close);
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
