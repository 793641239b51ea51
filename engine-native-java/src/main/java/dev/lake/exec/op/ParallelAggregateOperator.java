package dev.lake.exec.op;

import dev.lake.engine.ScanUnit;
import dev.lake.exec.Batch;
import dev.lake.exec.ExecutionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Morsel-driven partial aggregation: {@code threads} workers take scan units (morsels) from one
 * list, run the pipeline and a partial aggregate over each unit, and keep the partial results;
 * the final aggregate then merges them in unit order, so the answer (floating-point sums
 * included) does not depend on which worker took which unit. Closing cancels the workers: each
 * stops at its next batch and everything it held is released before {@link #close()} returns.
 */
public final class ParallelAggregateOperator implements Operator {
  private final List<ScanUnit> units;
  private final BiFunction<List<ScanUnit>, BufferAllocator, Operator> partial;
  private final java.util.function.Function<Operator, Operator> merge;
  private final Schema partialSchema;
  private final int threads;
  private final BufferAllocator allocator;
  private final AtomicBoolean cancelled = new AtomicBoolean();
  private VectorSchemaRoot[] partials;
  private Operator finalOp;

  /**
   * @param partial opens the pipeline and partial aggregate over some units
   * @param merge wraps the stream of partial results (schema {@code partialSchema}) into the final
   *     aggregate
   */
  public ParallelAggregateOperator(List<ScanUnit> units,
      BiFunction<List<ScanUnit>, BufferAllocator, Operator> partial, Schema partialSchema,
      java.util.function.Function<Operator, Operator> merge, int threads, BufferAllocator allocator) {
    this.units = List.copyOf(units);
    this.partial = partial;
    this.partialSchema = partialSchema;
    this.merge = merge;
    this.threads = Math.max(1, Math.min(threads, units.size()));
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
    partials = new VectorSchemaRoot[units.size()];
    AtomicInteger nextUnit = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "lake-sql-worker");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < threads; w++) {
        workers.add(pool.submit(() -> {
          int u;
          while (!cancelled.get() && (u = nextUnit.getAndIncrement()) < units.size()) {
            partials[u] = drain(partial.apply(List.of(units.get(u)), allocator));
          }
          return null;
        }));
      }
      RuntimeException failure = null;
      for (Future<?> f : workers) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          cancelled.set(true);
          Throwable cause = e.getCause();
          if (failure == null) {
            failure = cause instanceof RuntimeException re ? re
                : new ExecutionException("a query worker failed: " + cause, cause);
          }
        } catch (InterruptedException e) {
          cancelled.set(true);
          Thread.currentThread().interrupt();
          failure = new ExecutionException("query interrupted", e);
        }
      }
      if (failure != null) {
        throw failure;
      }
    } finally {
      // Workers stop at their next batch; wait for them so nothing is written after close().
      pool.shutdownNow();
      boolean interrupted = false;
      while (true) {
        try {
          if (pool.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES)) {
            break;
          }
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Runs one partial pipeline to its end, copying its output into one root this operator owns. */
  private VectorSchemaRoot drain(Operator op) {
    VectorSchemaRoot out = VectorSchemaRoot.create(partialSchema, allocator);
    try (op) {
      int rows = 0;
      Batch batch;
      while (!cancelled.get() && (batch = op.next()) != null) {
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
      out.close();
      throw e;
    }
  }

  @Override
  public void close() {
    cancelled.set(true);
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

  /** The partial results, in unit order. */
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
