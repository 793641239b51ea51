package dev.lake.engine;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An {@link ArrowReader} over record batches already in memory, for handing batches to
 * {@link TableHandle#append}. Takes ownership of the batches: each is closed once loaded, and
 * those never loaded are closed with the reader.
 */
public final class RecordBatchReader extends ArrowReader {

  private final Schema schema;
  private final Deque<ArrowRecordBatch> pending;
  private long bytesRead;

  /**
   * @param allocator allocates the reader's {@link #getVectorSchemaRoot() root}
   * @param batches transferred to the reader
   */
  public RecordBatchReader(BufferAllocator allocator, Schema schema, List<ArrowRecordBatch> batches) {
    super(allocator);
    this.schema = Objects.requireNonNull(schema, "schema");
    this.pending = new ArrayDeque<>(batches);
  }

  @Override
  public boolean loadNextBatch() throws java.io.IOException {
    ArrowRecordBatch batch = pending.pollFirst();
    if (batch == null) {
      return false;
    }
    try (batch) {
      bytesRead += batch.computeBodyLength();
      new VectorLoader(getVectorSchemaRoot()).load(batch);
    }
    return true;
  }

  @Override
  public long bytesRead() {
    return bytesRead;
  }

  @Override
  protected void closeReadSource() {
    ArrowRecordBatch batch;
    while ((batch = pending.pollFirst()) != null) {
      batch.close();
    }
  }

  @Override
  protected Schema readSchema() {
    return schema;
  }
}
