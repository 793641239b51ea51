package dev.lake.exec.op;

import dev.lake.engine.ScanUnit;
import dev.lake.exec.Batch;
import dev.lake.exec.QueryControl;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Runs a pipeline (scan, filters, projections, hash join probes) on the workers and hands its
 * batches to a consumer that runs on one thread (a sort, a limit, the query's reader), in morsel
 * order: the same rows in the same order as the pipeline run serially.
 *
 * <p>Workers copy (or, for a dense batch, take over) each batch into a root of their own and
 * queue it under its morsel; the consumer takes the current morsel's batches, then the next
 * morsel's. Workers ahead of the consumer wait once {@value #MAX_BUFFERED_ROWS} rows are queued;
 * the worker of the morsel the consumer waits for never does, so the pipeline always moves.
 * Closing early (a limit reached) stops the workers at their next batch.
 */
public final class GatherOperator implements Operator {
  static final int MAX_BUFFERED_ROWS = 1 << 18;

  private final Supplier<Morsels> pipeline;
  private final int threads;
  private final BufferAllocator allocator;
  private final Object lock = new Object();

  private Morsels morsels;
  private MorselWorkers workers;
  private List<ArrayDeque<VectorSchemaRoot>> queued;
  private boolean[] done;
  private int current;
  private long bufferedRows;
  private boolean closed;
  private VectorSchemaRoot emitted;

  /** @param pipeline starts the pipeline for this execution (builds its join tables) */
  public GatherOperator(Supplier<Morsels> pipeline, int threads, BufferAllocator allocator) {
    this.pipeline = pipeline;
    this.threads = threads;
    this.allocator = allocator;
  }

  @Override
  public Batch next() {
    if (morsels == null) {
      start();
    }
    if (emitted != null) {
      emitted.close();
      emitted = null;
    }
    QueryControl control = QueryControl.of(allocator);
    while (true) {
      synchronized (lock) {
        if (current == done.length) {
          break;
        }
        VectorSchemaRoot root = queued.get(current).poll();
        if (root != null) {
          bufferedRows -= root.getRowCount();
          lock.notifyAll();
          emitted = root;
          return Batch.dense(root);
        }
        if (done[current]) {
          current++;
          lock.notifyAll();
          continue;
        }
        if (!workers.failed()) {
          waitBriefly();
          continue;
        }
      }
      // A worker failed (or the query stopped): report it once every worker has exited.
      control.check();
      workers.join();
      throw new IllegalStateException("the workers of a gather stopped without a failure");
    }
    workers.join();
    return null;
  }

  private void start() {
    morsels = pipeline.get();
    List<ScanUnit> units = morsels.units();
    queued = new ArrayList<>();
    for (int m = 0; m < units.size(); m++) {
      queued.add(new ArrayDeque<>());
    }
    done = new boolean[units.size()];
    workers = MorselWorkers.start(units.size(), threads, QueryControl.of(allocator), (m, w) -> {
      try (Operator op = morsels.open(List.of(units.get(m)))) {
        Batch batch;
        while (!w.stopping() && (batch = op.next()) != null) {
          if (!offer(m, own(batch), w)) {
            return;
          }
        }
      }
      synchronized (lock) {
        done[m] = true;
        lock.notifyAll();
      }
    });
  }

  /** Queues a morsel's batch; false (the root closed) when the consumer has gone. */
  private boolean offer(int morsel, VectorSchemaRoot root, MorselWorkers w) {
    synchronized (lock) {
      try {
        while (!closed && morsel != current && bufferedRows >= MAX_BUFFERED_ROWS && !w.failed()) {
          waitBriefly();
        }
      } catch (RuntimeException e) {
        root.close();
        throw e;
      }
      if (closed || w.failed()) {
        root.close();
        return false;
      }
      queued.get(morsel).add(root);
      bufferedRows += root.getRowCount();
      lock.notifyAll();
      return true;
    }
  }

  // Bounded, so a cancelled query or a failed worker is noticed without a notification.
  private void waitBriefly() {
    try {
      lock.wait(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      QueryControl.of(allocator).check();
    }
  }

  /** The batch in a root of its own: its buffers taken over when dense, else its rows copied. */
  private VectorSchemaRoot own(Batch batch) {
    VectorSchemaRoot source = batch.root();
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (FieldVector v : source.getFieldVectors()) {
        FieldVector target = v.getField().createVector(allocator);
        vectors.add(target);
        batch.moveTo(v, target);
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    List<org.apache.arrow.vector.types.pojo.Field> fields = vectors.stream().map(FieldVector::getField).toList();
    return new VectorSchemaRoot(fields, vectors, batch.count());
  }

  @Override
  public void close() {
    if (workers != null) {
      synchronized (lock) {
        closed = true;
        lock.notifyAll();
      }
      workers.stop();
      try {
        workers.join();
      } catch (RuntimeException ignored) {
        // The consumer has gone; whatever failed after that is nobody's answer.
      }
    }
    try {
      if (queued != null) {
        queued.forEach(q -> q.forEach(VectorSchemaRoot::close));
      }
      if (emitted != null) {
        emitted.close();
      }
    } finally {
      if (morsels != null) {
        morsels.close();
      }
    }
  }
}
