package dev.lake.exec.op;

import dev.lake.exec.Batch;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** The input of {@code SELECT} without {@code FROM}: one row with no columns. */
public final class SingleRowOperator implements Operator {
  private final VectorSchemaRoot root;
  private boolean done;

  public SingleRowOperator(BufferAllocator allocator) {
    root = VectorSchemaRoot.create(new Schema(List.of()), allocator);
    root.setRowCount(1);
  }

  @Override
  public Batch next() {
    if (done) {
      return null;
    }
    done = true;
    return Batch.dense(root);
  }

  @Override
  public void close() {
    root.close();
  }
}
