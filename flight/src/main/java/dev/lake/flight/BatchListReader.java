package dev.lake.flight;

import java.io.IOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An {@link ArrowReader} over record batches already in memory (a received ingest payload).
 * Takes ownership of the batches: each is released once loaded, the rest when the reader closes.
 *
 * <p>Public only for lake's own Flight servers (the Metasrv package); not an API.
 */
public final class BatchListReader extends ArrowReader {

  private final Schema schema;
  private final List<ArrowRecordBatch> batches;
  private int next;
  private long bytes;

  public BatchListReader(BufferAllocator allocator, Schema schema, List<ArrowRecordBatch> batches) {
    super(allocator);
    this.schema = schema;
    this.batches = batches;
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    prepareLoadNextBatch();
    if (next >= batches.size()) {
      return false;
    }
    ArrowRecordBatch batch = batches.set(next++, null);
    bytes += batch.computeBodyLength();
    loadRecordBatch(batch);
    return true;
  }

  @Override
  public long bytesRead() {
    return bytes;
  }

  @Override
  protected void closeReadSource() {
    for (int i = next; i < batches.size(); i++) {
      ArrowRecordBatch batch = batches.set(i, null);
      if (batch != null) {
        batch.close();
      }
    }
  }

  @Override
  protected Schema readSchema() {
    return schema;
  }
}
