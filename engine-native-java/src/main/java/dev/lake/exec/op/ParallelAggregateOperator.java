package dev.lake.exec.op;

import dev.lake.engine.ScanUnit;
import dev.lake.exec.Batch;
import dev.lake.exec.QueryControl;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Morsel-driven partial aggregation: {@code threads} workers ({@link MorselWorkers}) take the
 * morsels of a pipeline (scan, filters, projections, hash join probes) one at a time, run the
 * pipeline and a partial aggregate over each, and keep the partial results; the final aggregate
 * then merges them in morsel order, so the answer (floating-point sums included) does not depend
 * on which worker took which morsel. The pipeline's shared state (its join tables) is released as
 * soon as the partials are done. The workers live only while the partials run, inside the first
 * {@link #next()}: a failure, cancellation or timeout stops all of them before it returns.
 */
public final class ParallelAggregateOperator implements Operator {
  private final Supplier<Morsels> pipeline;
  private final UnaryOperator<Operator> partial;
  private final Function<Operator, Operator> merge;
  private final Schema partialSchema;
  private final int threads;
  private final BufferAllocator allocator;
  private VectorSchemaRoot[] partials;
  private Operator finalOp;

  /**
   * @param pipeline starts the pipeline for this execution (builds its join tables)
   * @param partial wraps one copy of the pipeline into the partial aggregate
   * @param merge wraps the stream of partial results (schema {@code partialSchema}) into the final
   *     aggregate
   */
  public ParallelAggregateOperator(Supplier<Morsels> pipeline, UnaryOperator<Operator> partial,
      Schema partialSchema, Function<Operator, Operator> merge, int threads, BufferAllocator allocator) {
    this.pipeline = pipeline;
    this.partial = partial;
    this.partialSchema = partialSchema;
    this.merge = merge;
    this.threads = Math.max(1, threads);
    this.allocator = allocator;
  }

  @Override
  public Batch next() {
    if (finalOp == null) {
      runPartials();
      finalOp = merge.apply(new RootsOperator(partials));
    }
    return finalOp.next();
  }

  private void runPartials() {
    try (Morsels morsels = pipeline.get()) {
      List<ScanUnit> units = morsels.units();
      partials = new VectorSchemaRoot[units.size()];
      MorselWorkers.run(units.size(), threads, QueryControl.of(allocator), (m, workers) ->
          partials[m] = drain(morsels.open(List.of(units.get(m))), workers));
    }
  }

  /** Runs one partial pipeline to its end, copying its output into one root this operator owns. */
  private VectorSchemaRoot drain(Operator morsel, MorselWorkers workers) {
    Operator op;
    try {
      op = partial.apply(morsel);
    } catch (RuntimeException e) {
      morsel.close();
      throw e;
    }
    VectorSchemaRoot out = null;
    try (op) {
      out = VectorSchemaRoot.create(partialSchema, allocator);
      int rows = 0;
      Batch batch;
      while (!workers.stopping() && (batch = op.next()) != null) {
        for (int c = 0; c < partialSchema.getFields().size(); c++) {
          FieldVector source = batch.root().getVector(c);
          FieldVector target = out.getVector(c);
          for (int i = 0; i < batch.count(); i++) {
            target.copyFromSafe(batch.row(i), rows + i, source);
          }
        }
        rows += batch.count();
        out.setRowCount(rows);
      }
      for (FieldVector v : out.getFieldVectors()) {
        v.setValueCount(rows);
      }
      out.setRowCount(rows);
      return out;
    } catch (RuntimeException e) {
      if (out != null) {
        out.close();
      }
      throw e;
    }
  }

  @Override
  public void close() {
    try {
      if (finalOp != null) {
        finalOp.close();
      }
    } finally {
      if (partials != null) {
        for (VectorSchemaRoot root : partials) {
          if (root != null) {
            root.close();
          }
        }
      }
    }
  }

  /** The partial results, in morsel order. */
  private static final class RootsOperator implements Operator {
    private final VectorSchemaRoot[] roots;
    private int next;

    RootsOperator(VectorSchemaRoot[] roots) {
      this.roots = roots;
    }

    @Override
    public Batch next() {
      while (next < roots.length) {
        VectorSchemaRoot root = roots[next++];
        if (root != null && root.getRowCount() > 0) {
          return Batch.dense(root);
        }
      }
      return null;
    }

    @Override
    public void close() {
      // The roots belong to the enclosing operator.
    }
  }
}
