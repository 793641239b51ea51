package dev.lake.flight;

import dev.lake.flight.auth.Grants;
import dev.lake.flight.auth.Principal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The server's worker threads, shared fairly among tenants. A task runs at once if a thread is
 * free; otherwise it waits in its tenant's queue, and each thread that finishes a task takes the
 * next one from the next tenant in turn. One tenant's backlog (a flood of heavy queries, each task
 * a whole aggregate) therefore delays another tenant's task by at most one task per thread, not
 * by the whole backlog as one shared FIFO queue would.
 *
 * <p>A task's tenant is the caller bound where it is submitted ({@link Grants#caller()}); work
 * submitted outside a call (the event loop's callbacks of a streaming {@code DoGet}) names it
 * with {@link #forTenant}; anything else shares the server's own queue. At most {@code maxQueued}
 * tasks wait in all; beyond that {@link RejectedExecutionException} (the server answers
 * RESOURCE_EXHAUSTED). Shutdown follows {@link java.util.concurrent.ExecutorService}: {@link
 * #shutdown} runs what was accepted, {@link #shutdownNow} drops what waits and interrupts.
 */
final class FairWorkers extends AbstractExecutorService {

  /** The queue of tasks submitted outside any call. */
  static final String SERVER = "";

  private final ThreadPoolExecutor pool;
  private final int threads;
  private final int maxQueued;
  private final Object lock = new Object();
  // Tenants with waiting tasks, in turn order: the head goes next, then moves to the back.
  private final LinkedHashMap<String, ArrayDeque<Runnable>> waiting = new LinkedHashMap<>();
  private int dispatched;
  private int queued;
  private boolean shutdown;

  FairWorkers(int threads, int maxQueued, ThreadFactory factory) {
    if (threads < 1 || maxQueued < 0) {
      throw new IllegalArgumentException("threads must be at least 1 and maxQueued at least 0");
    }
    this.threads = threads;
    this.maxQueued = maxQueued;
    // Never more than `threads` tasks are handed to the pool, so its own queue stays empty.
    this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
        new java.util.concurrent.LinkedBlockingQueue<>(), factory);
  }

  /** An executor queuing its tasks as {@code tenant}'s. */
  Executor forTenant(String tenant) {
    java.util.Objects.requireNonNull(tenant, "tenant");
    return task -> submitAs(tenant, task);
  }

  @Override
  public void execute(Runnable task) {
    submitAs(Grants.caller().map(Principal::tenant).orElse(SERVER), task);
  }

  private void submitAs(String tenant, Runnable task) {
    java.util.Objects.requireNonNull(task, "task");
    synchronized (lock) {
      if (shutdown) {
        throw new RejectedExecutionException("the server is shutting down");
      }
      if (dispatched >= threads) {
        if (queued >= maxQueued) {
          throw new RejectedExecutionException("all " + threads + " workers are busy and "
              + queued + " tasks wait");
        }
        waiting.computeIfAbsent(tenant, t -> new ArrayDeque<>()).add(task);
        queued++;
        return;
      }
      dispatched++;
    }
    dispatch(task);
  }

  private void dispatch(Runnable task) {
    try {
      pool.execute(() -> {
        try {
          task.run();
        } finally {
          next();
        }
      });
    } catch (RejectedExecutionException e) {
      synchronized (lock) {
        dispatched--;
      }
      throw e;
    }
  }

  // A task finished: hand its thread to the next tenant in turn, if any task waits.
  private void next() {
    Runnable task;
    synchronized (lock) {
      Iterator<Map.Entry<String, ArrayDeque<Runnable>>> turn = waiting.entrySet().iterator();
      if (!turn.hasNext()) {
        dispatched--;
        if (shutdown && dispatched == 0) {
          pool.shutdown();
        }
        return;
      }
      Map.Entry<String, ArrayDeque<Runnable>> head = turn.next();
      task = head.getValue().poll();
      queued--;
      turn.remove();
      if (!head.getValue().isEmpty()) {
        waiting.put(head.getKey(), head.getValue());
      }
    }
    try {
      dispatch(task);
    } catch (RejectedExecutionException stopped) {
      // shutdownNow stopped the pool meanwhile: the task is dropped, as shutdownNow drops tasks.
    }
  }

  /** Threads running a task now. */
  int active() {
    return pool.getActiveCount();
  }

  /** Tasks waiting for a thread. */
  int queued() {
    synchronized (lock) {
      return queued;
    }
  }

  @Override
  public void shutdown() {
    synchronized (lock) {
      shutdown = true;
      if (dispatched == 0) {
        pool.shutdown();
      }
    }
  }

  @Override
  public List<Runnable> shutdownNow() {
    List<Runnable> dropped = new ArrayList<>();
    synchronized (lock) {
      shutdown = true;
      waiting.values().forEach(dropped::addAll);
      waiting.clear();
      queued = 0;
    }
    pool.shutdownNow();
    return dropped;
  }

  @Override
  public boolean isShutdown() {
    synchronized (lock) {
      return shutdown;
    }
  }

  @Override
  public boolean isTerminated() {
    return pool.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return pool.awaitTermination(timeout, unit);
  }
}
