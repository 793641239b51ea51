package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Vectors;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.Kernel;
import dev.lake.exec.expr.NestedKernel;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Computes the output columns of each batch into a new dense root it owns. A bare column
 * reference shares the input's buffers (no copy) when the batch has no selection; a struct or
 * list value inside a column ({@link Expr.Nested} with a nested output field) is copied.
 */
public final class ProjectOperator implements Operator {
  private final Operator input;
  private final Schema schema;
  private final List<Expr> exprs;
  private final List<Kernel> kernels;
  private final BufferAllocator allocator;
  private VectorSchemaRoot output;

  public ProjectOperator(Operator input, Schema schema, List<Expr> exprs, BufferAllocator allocator) {
    this.input = input;
    this.schema = schema;
    this.exprs = List.copyOf(exprs);
    // Each batch's values are written into the output vectors before the next batch is evaluated.
    this.kernels = Kernel.compileShared(exprs, true);
    this.allocator = allocator;
  }

  @Override
  public Batch next() {
    Batch batch = input.next();
    closeOutput();
    if (batch == null) {
      return null;
    }
    List<FieldVector> vectors = new ArrayList<>(exprs.size());
    try {
      for (int c = 0; c < exprs.size(); c++) {
        FieldVector target = schema.getFields().get(c).createVector(allocator);
        vectors.add(target);
        if (exprs.get(c) instanceof Expr.Column column
            && batch.root().getVector(column.index()).getField().getType()
                .equals(target.getField().getType())) {
          copyColumn(batch, batch.root().getVector(column.index()), target);
        } else if (kernels.get(c) instanceof NestedKernel nested
            && !target.getField().getChildren().isEmpty()) {
          nested.copyInto(batch, target);
        } else {
          Vectors.write(kernels.get(c).eval(batch), target);
        }
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    output = new VectorSchemaRoot(schema.getFields(), vectors, batch.count());
    return Batch.dense(output);
  }

  private static void copyColumn(Batch batch, FieldVector source, FieldVector target) {
    if (batch.selection() == null) {
      source.makeTransferPair(target).splitAndTransfer(0, batch.count());
      return;
    }
    if (Vectors.gatherWithoutNulls(source, batch.selection(), batch.count(), target)) {
      return;
    }
    target.setInitialCapacity(batch.count());
    target.allocateNew();
    for (int i = 0; i < batch.count(); i++) {
      target.copyFromSafe(batch.selection()[i], i, source);
    }
    target.setValueCount(batch.count());
  }

  private void closeOutput() {
    if (output != null) {
      output.close();
      output = null;
    }
  }

  @Override
  public void close() {
    try {
      closeOutput();
    } finally {
      input.close();
    }
  }
}
