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
  private final AtomicReference<Throwable> first = new AtomicReference<>();
  private Thread[] threads = new Thread[0];
  private int started;

  private MorselWorkers(QueryControl control) {
    this.control = control;
  }

  /**
   * Whether the task should stop early because another worker failed (or the stage was stopped).
   *
   * @throws QueryStoppedException if the query was cancelled or timed out
   */
  boolean stopping() {
    control.check();
    return failed.get();
  }

  /**
   * Runs {@code task} for every morsel in {@code [0, morsels)} on up to {@code threads} threads
   * and returns when all are done.
   *
   * @throws RuntimeException the first task's failure, once every worker has stopped
   * @throws QueryStoppedException if the query was cancelled or timed out, or the calling thread
   *     was interrupted (the interrupt stays set)
   */
  static void run(int morsels, int threads, QueryControl control, Task task) {
    if (Math.min(threads, morsels) <= 1) {
      MorselWorkers inline = new MorselWorkers(control);
      for (int m = 0; m < morsels; m++) {
        control.check();
        task.run(m, inline);
      }
      return;
    }
    start(morsels, threads, control, task).join();
  }

  /**
   * Starts up to {@code threads} threads (at least one when there is a morsel) running
   * {@code task} for every morsel, and returns at once; {@link #join()} waits for them.
   */
  static MorselWorkers start(int morsels, int threads, QueryControl control, Task task) {
    control.check();
    MorselWorkers workers = new MorselWorkers(control);
    workers.threads = new Thread[Math.min(threads, morsels)];
    AtomicInteger next = new AtomicInteger();
    Runnable loop = () -> {
      int m;
      try {
        while (!workers.failed.get() && (m = next.getAndIncrement()) < morsels) {
          control.check();
          task.run(m, workers);
        }
      } catch (Throwable e) {
        // Only the first failure is the query's; the others are its echoes (interrupts).
        if (workers.failed.compareAndSet(false, true)) {
          workers.first.set(e);
          interruptAll(workers.threads);
        }
      }
    };
    for (int w = 0; w < workers.threads.length; w++) {
      workers.threads[w] = Thread.ofPlatform().name("lake-sql-worker-" + THREAD_IDS.incrementAndGet())
          .daemon().unstarted(loop);
    }
    try {
      for (; workers.started < workers.threads.length; workers.started++) {
        workers.threads[workers.started].start();
      }
    } catch (RuntimeException | Error e) {
      workers.stop();
      workers.join();
      throw e;
    }
    return workers;
  }

  /** Whether a task failed (or the stage was stopped); {@link #join()} reports the failure. */
  boolean failed() {
    return failed.get();
  }

  /** Stops the workers early without a failure: each stops at its next batch. */
  void stop() {
    if (failed.compareAndSet(false, true)) {
      interruptAll(threads);
    }
  }

  /**
   * Waits until every worker has exited.
   *
   * @throws RuntimeException the first task's failure
   * @throws QueryStoppedException if the calling thread was interrupted while waiting (the
   *     workers are stopped first; the interrupt stays set)
   */
  void join() {
    boolean interrupted = false;
    for (int w = 0; w < started; w++) {
      while (true) {
        try {
          threads[w].join();
          break;
        } catch (InterruptedException e) {
          // The reading thread was interrupted: stop the workers, wait for them, then report.
          interrupted = true;
          if (failed.compareAndSet(false, true)) {
            first.set(new QueryStoppedException(QueryStoppedException.Reason.CANCELLED, "query cancelled"));
            interruptAll(threads);
          }
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
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
