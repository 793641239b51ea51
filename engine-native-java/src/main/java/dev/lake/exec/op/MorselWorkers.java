package dev.lake.exec.op;

import dev.lake.exec.ExecutionException;
import dev.lake.exec.QueryControl;
import dev.lake.exec.QueryStoppedException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one task per morsel on a few worker threads, each taking the next morsel when it is done
 * with one (morsel-driven scheduling: a slow morsel does not hold up the others). A stage's
 * workers are only its own while it runs: {@link #run} returns, or throws, only after every
 * worker has left the stage, so nothing touches the stage's results or buffers afterwards.
 *
 * <p>Workers are pooled threads, idle ones kept for a minute: starting two threads for every stage
 * of every query cost more than small stages took (Q6 at SF 1 ran slower on two threads than on
 * one). The pool has no bound and no queue, so a stage started inside another stage's worker
 * (a join table built while a morsel runs) gets threads of its own and never waits for its
 * parent's.
 *
 * <p>Stopping: when a task fails, the other workers are interrupted and stop at their next batch
 * (tasks call {@link #stopping()} between batches; scans check the interrupt), and the first
 * failure is thrown. A cancelled or timed-out query ({@link QueryControl}) stops them the same
 * way. With one thread, or one morsel, the tasks run on the calling thread.
 */
final class MorselWorkers {
  private static final AtomicInteger THREAD_IDS = new AtomicInteger();
  private static final ExecutorService POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
      new SynchronousQueue<>(), task -> Thread.ofPlatform().name("lake-sql-worker-" + THREAD_IDS.incrementAndGet())
          .daemon().unstarted(task));

  /** The work for one morsel. */
  @FunctionalInterface
  interface Task {
    void run(int morsel, MorselWorkers workers);
  }

  private final QueryControl control;
  private final AtomicBoolean failed = new AtomicBoolean();
  private final AtomicReference<Throwable> first = new AtomicReference<>();
  /** The pooled thread serving each worker slot while it runs this stage's loop, else null. */
  private Thread[] threads = new Thread[0];
  private CountDownLatch done = new CountDownLatch(0);

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
    int slots = Math.min(threads, morsels);
    workers.threads = new Thread[slots];
    workers.done = new CountDownLatch(slots);
    AtomicInteger next = new AtomicInteger();
    int started = 0;
    try {
      for (; started < slots; started++) {
        int slot = started;
        POOL.execute(() -> workers.serve(slot, next, morsels, task));
      }
    } catch (RuntimeException | Error e) {
      // Slots that never started count as done, so join() waits only for the started ones.
      for (int w = started; w < slots; w++) {
        workers.done.countDown();
      }
      workers.stop();
      workers.join();
      throw e;
    }
    return workers;
  }

  /** One worker's loop on a pooled thread: morsels until none are left or the stage fails. */
  private void serve(int slot, AtomicInteger next, int morsels, Task task) {
    synchronized (this) {
      threads[slot] = Thread.currentThread();
    }
    try {
      int m;
      while (!failed.get() && (m = next.getAndIncrement()) < morsels) {
        control.check();
        task.run(m, this);
      }
    } catch (Throwable e) {
      // Only the first failure is the query's; the others are its echoes (interrupts).
      if (failed.compareAndSet(false, true)) {
        first.set(e);
        interruptAll();
      }
    } finally {
      synchronized (this) {
        threads[slot] = null;
      }
      // An interrupt meant for this stage must not reach the thread's next stage, maybe another
      // query's: none arrives once the slot is cleared (interruptAll holds the same lock).
      Thread.interrupted();
      done.countDown();
    }
  }

  /** Whether a task failed (or the stage was stopped); {@link #join()} reports the failure. */
  boolean failed() {
    return failed.get();
  }

  /** Stops the workers early without a failure: each stops at its next batch. */
  void stop() {
    if (failed.compareAndSet(false, true)) {
      interruptAll();
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
    while (true) {
      try {
        done.await();
        break;
      } catch (InterruptedException e) {
        // The reading thread was interrupted: stop the workers, wait for them, then report.
        interrupted = true;
        if (failed.compareAndSet(false, true)) {
          first.set(new QueryStoppedException(QueryStoppedException.Reason.CANCELLED, "query cancelled"));
          interruptAll();
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
  private synchronized void interruptAll() {
    for (Thread t : threads) {
      if (t != null && t != Thread.currentThread()) {
        t.interrupt();
      }
    }
  }

  private static RuntimeException asRuntime(Throwable cause) {
    return switch (cause) {
      case RuntimeException re -> re;
      case Error error -> throw error;
      default -> new ExecutionException(ExecutionException.Kind.INTERNAL, "a query worker failed: " + cause, cause);
    };
  }
}
