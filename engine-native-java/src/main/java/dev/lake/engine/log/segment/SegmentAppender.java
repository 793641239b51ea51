package dev.lake.engine.log.segment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Turns a stream of batches of any size into segment files of fixed-size blocks, rolling to a new
 * segment once one reaches the size bound. Rows are copied into a staging block because
 * incoming batches rarely align with block boundaries.
 *
 * <p>Files are durable (data and directory entry fsynced) once {@link #finish()} returns; until a
 * commit log entry names them they are invisible. {@link #close()} before {@code finish} deletes
 * what was written.
 */
public final class SegmentAppender implements AutoCloseable {

  /** A finished segment: its file name in the data directory, rows and bytes. */
  public record Written(String fileName, long rows, long bytes) {}

  private final Path dataDir;
  private final Schema schema;
  private final int blockRows;
  private final long segmentBytes;
  private final VectorSchemaRoot staging;
  private final List<Written> written = new ArrayList<>();
  private final List<Path> files = new ArrayList<>();
  private SegmentWriter current;
  private int staged;
  private long rows;
  private boolean finished;

  /**
   * @param allocator where the staging block lives; it is released by {@link #close()}
   */
  public SegmentAppender(
      Path dataDir, Schema schema, int blockRows, long segmentBytes, BufferAllocator allocator) {
    this.dataDir = dataDir;
    this.schema = schema;
    this.blockRows = blockRows;
    this.segmentBytes = segmentBytes;
    this.staging = VectorSchemaRoot.create(schema, allocator);
    allocateStaging();
  }

  public long rows() {
    return rows;
  }

  /** Copies every row of {@code batch} (whose fields match the table's types) into blocks. */
  public void append(VectorSchemaRoot batch) throws IOException {
    int n = batch.getRowCount();
    int from = 0;
    while (from < n) {
      int take = Math.min(n - from, blockRows - staged);
      for (int c = 0; c < staging.getFieldVectors().size(); c++) {
        FieldVector target = staging.getVector(c);
        FieldVector source = batch.getVector(c);
        for (int i = 0; i < take; i++) {
          target.copyFromSafe(from + i, staged + i, source);
        }
      }
      staged += take;
      from += take;
      rows += take;
      if (staged == blockRows) {
        flushBlock();
      }
    }
  }

  /** Writes the last partial block and every footer, fsyncs, and lists the segments written. */
  public List<Written> finish() throws IOException {
    if (staged > 0) {
      flushBlock();
    }
    if (current != null) {
      closeSegment();
    }
    if (!written.isEmpty()) {
      // The files' directory entries must be durable before a commit entry names them.
      try (FileChannel dir = FileChannel.open(dataDir, StandardOpenOption.READ)) {
        dir.force(true);
      }
    }
    finished = true;
    return List.copyOf(written);
  }

  private void flushBlock() throws IOException {
    staging.setRowCount(staged);
    if (current == null) {
      Path file = dataDir.resolve(UUID.randomUUID() + ".seg");
      files.add(file);
      current = new SegmentWriter(file, schema);
    }
    current.writeBlock(staging);
    staging.clear();
    allocateStaging();
    staged = 0;
    if (current.size() >= segmentBytes) {
      closeSegment();
    }
  }

  private void closeSegment() throws IOException {
    long bytes = current.finish();
    written.add(new Written(current.file().getFileName().toString(), current.rows(), bytes));
    current = null;
  }

  private void allocateStaging() {
    for (FieldVector v : staging.getFieldVectors()) {
      v.setInitialCapacity(blockRows);
      v.allocateNew();
    }
  }

  /** Releases the staging block; if {@link #finish()} did not complete, deletes the files. */
  @Override
  public void close() {
    staging.close();
    try {
      if (current != null) {
        current.close();
      }
      if (!finished) {
        for (Path f : files) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
