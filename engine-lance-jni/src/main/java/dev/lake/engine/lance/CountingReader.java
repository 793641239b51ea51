package dev.lake.engine.lance;

import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Batches without columns that carry only row counts, for scans that project no column (a bare
 * {@code COUNT(*)}): the count comes from the manifest and no data file is read.
 */
final class CountingReader extends ArrowReader {

  private static final long BATCH_ROWS = 65_536;

  private long remaining;

  CountingReader(BufferAllocator allocator, long rows, OptionalLong limit) {
    super(allocator);
    this.remaining = limit.isPresent() ? Math.min(rows, limit.getAsLong()) : rows;
  }

  @Override
  public boolean loadNextBatch() throws java.io.IOException {
    if (remaining == 0) {
      return false;
    }
    int n = (int) Math.min(remaining, BATCH_ROWS);
    getVectorSchemaRoot().setRowCount(n);
    remaining -= n;
    return true;
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {}

  @Override
  protected Schema readSchema() {
    return new Schema(List.of());
  }
}
