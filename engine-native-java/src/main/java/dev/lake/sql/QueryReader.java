package dev.lake.sql;

import dev.lake.engine.EngineException;
import dev.lake.exec.Batch;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.HeapBudget;
import dev.lake.exec.QueryControl;
import dev.lake.exec.QueryStoppedException;
import dev.lake.exec.op.Operator;
import java.io.IOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The result of one execution as an {@link ArrowReader}. Owns the query's child allocator and
 * operator tree: {@link #close()} releases both, also after a failed {@link #loadNextBatch()}.
 * Result buffers move into the reader's root without copying when the batch is dense.
 */
final class QueryReader extends ArrowReader {
  private final BufferAllocator queryAllocator;
  private final Operator plan;
  private final Schema schema;
  private final QueryControl control;
  private boolean closed;

  QueryReader(BufferAllocator queryAllocator, Operator plan, Schema schema, QueryControl control) {
    super(queryAllocator);
    this.queryAllocator = queryAllocator;
    this.plan = plan;
    this.schema = schema;
    this.control = control;
  }

  /**
   * @throws SqlException EXECUTION when the query fails while running, RESOURCE_EXHAUSTED over
   *     its memory budget, CANCELLED or TIMED_OUT when its {@link QueryControl} stopped it
   */
  @Override
  public boolean loadNextBatch() throws IOException {
    try {
      return load();
    } catch (OutOfMemoryException | ExecutionException | EngineException | QueryStoppedException e) {
      throw Execution.failure(queryAllocator, e);
    }
  }

  private boolean load() throws IOException {
    control.check();
    prepareLoadNextBatch();
    Batch batch = plan.next();
    if (batch == null) {
      return false;
    }
    VectorSchemaRoot root = getVectorSchemaRoot();
    for (int c = 0; c < schema.getFields().size(); c++) {
      batch.moveTo(batch.root().getVector(c), root.getVector(c));
    }
    root.setRowCount(batch.count());
    return true;
  }

  /** RESOURCE_EXHAUSTED naming the query's budget and, when tighter, the process's. */
  static SqlException overBudget(BufferAllocator query, OutOfMemoryException e) {
    BufferAllocator root = query.getRoot();
    String message = "query memory budget of " + query.getLimit() + " bytes exceeded"
        + (root.getLimit() < Long.MAX_VALUE ? " (process memory budget " + root.getLimit() + " bytes)" : "")
        + (e instanceof HeapBudget.OverBudgetException heap ? ": " + heap.getMessage() : "");
    return new SqlException(SqlException.Kind.RESOURCE_EXHAUSTED, message, 0, 0, e);
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      plan.close();
    } finally {
      queryAllocator.close();
    }
  }

  @Override
  protected Schema readSchema() {
    return schema;
  }
}
