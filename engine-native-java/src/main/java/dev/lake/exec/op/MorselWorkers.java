package dev.lake.exec.op;

import dev.lake.exec.ExecutionException;
import dev.lake.exec.QueryControl;
import dev.lake.exec.QueryStoppedException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one task per morsel on a few worker threads, each taking the next morsel when it is done
 * with one (morsel-driven scheduling: a slow morsel does not hold up the others). The workers of
 * one stage live only as long as it: {@link #run} returns, or throws, only after every worker
 * thread has stopped, so nothing touches the stage's results or buffers afterwards.
 *
 * <p>Stopping: when a task fails, the other workers are interrupted and stop at their next batch
 * (tasks call {@link #stopping()} between batches; scans check the interrupt), and the first
 * failure is thrown. A cancelled or timed-out query ({@link QueryControl}) stops them the same
 * way. With one thread, or one morsel, the tasks run on the calling thread.
 */
final class MorselWorkers {
  private static final AtomicInteger THREAD_IDS = new AtomicInteger();

  /** The work for one morsel. */
  @FunctionalInterface
  interface Task {
    void run(int morsel, MorselWorkers workers);
  }

  private final QueryControl control;
  private final AtomicBoolean failed = new AtomicBoolean();

  private MorselWorkers(QueryControl control) {
    this.control = control;
  }

  /**
   * Whether the task should stop early because another worker failed.
   *
   * @throws QueryStoppedException if the query was cancelled or timed out
   */
  boolean stopping() {
    control.check();
    return failed.get();
  }

  /**
   * Runs {@code task} for every morsel in {@code [0, morsels)} on up to {@code threads} threads.
   *
   * @throws RuntimeException the first task's failure, once every worker has stopped
   * @throws QueryStoppedException if the query was cancelled or timed out, or the calling thread
   *     was interrupted (the interrupt stays set)
   */
  static void run(int morsels, int threads, QueryControl control, Task task) {
    MorselWorkers workers = new MorselWorkers(control);
    int n = Math.min(threads, morsels);
    if (n <= 1) {
      for (int m = 0; m < morsels; m++) {
        control.check();
        task.run(m, workers);
      }
      return;
    }
    workers.runParallel(morsels, n, task);
  }

  private void runParallel(int morsels, int threads, Task task) {
    control.check();
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> first = new AtomicReference<>();
    Thread[] workers = new Thread[threads];
    Runnable loop = () -> {
      int m;
      try {
        while (!failed.get() && (m = next.getAndIncrement()) < morsels) {
          control.check();
          task.run(m, this);
        }
      } catch (Throwable e) {
        // Only the first failure is the query's; the others are its echoes (interrupts).
        if (failed.compareAndSet(false, true)) {
          first.set(e);
          interruptAll(workers);
        }
      }
    };
    for (int w = 0; w < threads; w++) {
      workers[w] = Thread.ofPlatform().name("lake-sql-worker-" + THREAD_IDS.incrementAndGet())
          .daemon().unstarted(loop);
    }
    boolean interrupted = false;
    int started = 0;
    try {
      for (; started < threads; started++) {
        workers[started].start();
      }
    } finally {
      for (int w = 0; w < started; w++) {
        while (true) {
          try {
            workers[w].join();
            break;
          } catch (InterruptedException e) {
            // The reading thread was interrupted: stop the workers, wait for them, then report.
            interrupted = true;
            if (failed.compareAndSet(false, true)) {
              first.set(new QueryStoppedException(QueryStoppedException.Reason.CANCELLED, "query cancelled"));
              interruptAll(workers);
            }
          }
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (first.get() != null) {
      throw asRuntime(first.get());
    }
  }

  // The others stop at their next batch; an interrupt also reaches a scan between batches.
  private static void interruptAll(Thread[] workers) {
    for (Thread t : workers) {
      if (t != null && t != Thread.currentThread()) {
        t.interrupt();
      }
    }
  }

  private static RuntimeException asRuntime(Throwable cause) {
    return switch (cause) {
      case RuntimeException re -> re;
      case Error error -> throw error;
      default -> new ExecutionException("a query worker failed: " + cause, cause);
    };
  }
}
