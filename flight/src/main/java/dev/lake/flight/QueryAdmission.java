package dev.lake.flight;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Which queries run now (planning, and a {@code DoGet} from its start to its last message), and
 * in what order waiting ones get their turn. At most {@code maxConcurrent} queries run in the
 * process and at most {@code maxPerTenant} of one tenant; a query over either bound waits in its
 * tenant's FIFO queue, and a freed place goes to the tenants with waiting queries in turn
 * (round-robin), so one tenant's flood delays another tenant's queries by at most one turn, never
 * by the length of the flood.
 *
 * <p>At most {@code maxQueued} queries wait in all. When the queue is full, a query of a tenant
 * with fewer waiting queries than the tenant with the most takes the newest place of that tenant
 * (which is refused); otherwise the newcomer is refused. A query that waits longer than {@code
 * maxWait} is refused. Refusals are {@link AdmissionRefusedException}s ({@code
 * RESOURCE_EXHAUSTED}) naming the tenant and the bound. Waiting holds no thread: expiry is a
 * timer, and admission and refusal are callbacks run on the executor the caller gives (its event
 * loop). Thread-safe.
 */
final class QueryAdmission {

  /** Runs a task once after a delay; the returned action cancels it (no-op once it ran). */
  @FunctionalInterface
  interface Timers {
    Runnable schedule(long delayMillis, Runnable task);
  }

  /** Told of every refusal (metrics); called outside the admission's lock. */
  @FunctionalInterface
  interface RefusalListener {
    void refused(String tenant, Reason reason);
  }

  /** Why a query was not admitted. */
  enum Reason {
    /** The queue of waiting queries was full. */
    QUEUE_FULL,
    /** The query waited the longest allowed. */
    WAIT_EXPIRED
  }

  /** A query refused admission; the message names the tenant and the bound. */
  static final class AdmissionRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String tenant;
    private final Reason reason;

    AdmissionRefusedException(String tenant, Reason reason, String message) {
      super(message);
      this.tenant = tenant;
      this.reason = reason;
    }

    String tenant() {
      return tenant;
    }

    Reason reason() {
      return reason;
    }
  }

  private enum State { WAITING, RUNNING, DONE }

  private final int maxConcurrent;
  private final int maxPerTenant;
  private final int maxQueued;
  private final long maxWaitMillis;
  private final Timers timers;
  private final RefusalListener listener;

  // Guarded by this.
  private final Map<String, Tenant> tenants = new HashMap<>();
  /** Tenants with waiting queries, in the order their turn comes. */
  private final LinkedHashSet<Tenant> turns = new LinkedHashSet<>();
  private int running;
  private int queued;

  /**
   * @throws IllegalArgumentException if a bound is below 1 ({@code maxQueued} below 0: 0 refuses
   *     a query at once when it cannot run)
   */
  QueryAdmission(int maxConcurrent, int maxPerTenant, int maxQueued, long maxWaitMillis,
      Timers timers, RefusalListener listener) {
    checkBounds(maxConcurrent, maxPerTenant, maxQueued, maxWaitMillis);
    this.maxConcurrent = maxConcurrent;
    this.maxPerTenant = maxPerTenant;
    this.maxQueued = maxQueued;
    this.maxWaitMillis = maxWaitMillis;
    this.timers = Objects.requireNonNull(timers, "timers");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** @throws IllegalArgumentException naming the bound that is out of range */
  static void checkBounds(int maxConcurrent, int maxPerTenant, int maxQueued,
      long maxWaitMillis) {
    atLeast(1, maxConcurrent, "maxConcurrentQueries");
    atLeast(1, maxPerTenant, "maxQueriesPerTenant");
    atLeast(0, maxQueued, "maxQueuedQueries");
    if (maxWaitMillis < 1) {
      throw new IllegalArgumentException("maxQueueWait must be at least 1 ms, got "
          + maxWaitMillis + " ms");
    }
  }

  private static void atLeast(int min, long value, String what) {
    if (value < min) {
      throw new IllegalArgumentException(what + " must be at least " + min + ", got " + value);
    }
  }

  /**
   * Asks for a place for one query of {@code tenant}. Exactly one of {@code onAdmitted} and
   * {@code onRefused} runs, handed to {@code callbacks} (the call's event loop, so never inside
   * this call), unless the slot is closed first while waiting. The caller closes the slot when the
   * query ends, however it ends, and when a callback finds the query already gone.
   */
  Slot admit(String tenant, Executor callbacks, Runnable onAdmitted,
      Consumer<AdmissionRefusedException> onRefused) {
    Slot slot = new Slot(tenant, callbacks, onAdmitted, onRefused);
    List<Runnable> fire = new ArrayList<>(2);
    synchronized (this) {
      Tenant own = tenants.computeIfAbsent(tenant, Tenant::new);
      slot.owner = own;
      if (running < maxConcurrent && own.running < maxPerTenant) {
        // Free places are always handed to waiters first, so a tenant under its cap has none.
        fire.add(grant(slot));
      } else if (queued < maxQueued) {
        enqueue(slot);
      } else {
        Tenant longest = longestQueue();
        if (longest != null && own.waiting.size() + 1 < longest.waiting.size()) {
          Slot shed = longest.waiting.pollLast();
          queued--;
          fire.add(refuse(shed, Reason.QUEUE_FULL, queueFull(longest)));
          enqueue(slot);
        } else {
          fire.add(refuse(slot, Reason.QUEUE_FULL, queueFull(own)));
        }
      }
      forgetIfIdle(own);
    }
    fire.forEach(Runnable::run);
    return slot;
  }

  /** Queries running now; for metrics and tests. */
  synchronized int running() {
    return running;
  }

  /** Queries of {@code tenant} running now; for tests. */
  synchronized int running(String tenant) {
    Tenant t = tenants.get(tenant);
    return t == null ? 0 : t.running;
  }

  /** Queries waiting now; for metrics and tests. */
  synchronized int queued() {
    return queued;
  }

  /** Tenants with state held (running or waiting queries); for tests: idle ones are forgotten. */
  synchronized int tenantsHeld() {
    return tenants.size();
  }

  // ---- under the lock ----------------------------------------------------------------------

  private void enqueue(Slot slot) {
    Tenant own = slot.owner;
    own.waiting.addLast(slot);
    queued++;
    turns.add(own); // keeps its place in the turns if it already had waiting queries
    slot.cancelTimer = timers.schedule(maxWaitMillis, () -> expire(slot));
  }

  private Tenant longestQueue() {
    Tenant longest = null;
    for (Tenant t : turns) {
      if (longest == null || t.waiting.size() > longest.waiting.size()) {
        longest = t;
      }
    }
    return longest;
  }

  private Runnable grant(Slot slot) {
    slot.state = State.RUNNING;
    running++;
    slot.owner.running++;
    Runnable cancelTimer = slot.cancelTimer;
    slot.cancelTimer = null;
    return () -> {
      if (cancelTimer != null) {
        cancelTimer.run();
      }
      slot.callbacks.execute(slot.onAdmitted);
    };
  }

  private Runnable refuse(Slot slot, Reason reason, String message) {
    slot.state = State.DONE;
    Runnable cancelTimer = slot.cancelTimer;
    slot.cancelTimer = null;
    if (slot.owner.waiting.isEmpty()) {
      turns.remove(slot.owner);
    }
    AdmissionRefusedException refusal = new AdmissionRefusedException(slot.tenant, reason, message);
    return () -> {
      if (cancelTimer != null) {
        cancelTimer.run();
      }
      listener.refused(slot.tenant, reason);
      slot.callbacks.execute(() -> slot.onRefused.accept(refusal));
    };
  }

  /** Hands free places to waiting queries, one per tenant in turn. */
  private void dispatch(List<Runnable> fire) {
    while (running < maxConcurrent) {
      Tenant next = null;
      for (Iterator<Tenant> it = turns.iterator(); it.hasNext(); ) {
        Tenant t = it.next();
        if (t.running < maxPerTenant) {
          it.remove();
          next = t;
          break;
        }
      }
      if (next == null) {
        return;
      }
      Slot slot = next.waiting.pollFirst();
      queued--;
      if (!next.waiting.isEmpty()) {
        turns.add(next); // its next turn comes after every other waiting tenant's
      }
      fire.add(grant(slot));
    }
  }

  private void forgetIfIdle(Tenant t) {
    if (t.running == 0 && t.waiting.isEmpty()) {
      tenants.remove(t.name);
    }
  }

  private String queueFull(Tenant t) {
    return "admission refused for tenant '" + t.name + "': the queue of waiting queries is full"
        + " (max queued queries " + maxQueued + ", of which tenant '" + t.name + "' holds "
        + t.waiting.size() + "); tenant '" + t.name + "' runs " + t.running
        + " (max queries per tenant " + maxPerTenant + "), the server " + running
        + " (max concurrent queries " + maxConcurrent + "); retry later";
  }

  // ---- callbacks from the timer and the slot -----------------------------------------------

  private void expire(Slot slot) {
    Runnable fire;
    synchronized (this) {
      if (slot.state != State.WAITING) {
        return;
      }
      Tenant own = slot.owner;
      own.waiting.remove(slot);
      queued--;
      slot.cancelTimer = null;
      fire = refuse(slot, Reason.WAIT_EXPIRED, "admission refused for tenant '" + own.name
          + "': the query waited " + maxWaitMillis + " ms (max queue wait) for a place; tenant '"
          + own.name + "' runs " + own.running + " (max queries per tenant " + maxPerTenant
          + "), the server " + running + " (max concurrent queries " + maxConcurrent
          + "); retry later");
      forgetIfIdle(own);
    }
    fire.run();
  }

  private void close(Slot slot) {
    List<Runnable> fire = new ArrayList<>(2);
    synchronized (this) {
      Tenant own = slot.owner;
      switch (slot.state) {
        case DONE -> {
          return;
        }
        case WAITING -> {
          own.waiting.remove(slot);
          queued--;
          if (own.waiting.isEmpty()) {
            turns.remove(own);
          }
          Runnable cancelTimer = slot.cancelTimer;
          slot.cancelTimer = null;
          if (cancelTimer != null) {
            fire.add(cancelTimer);
          }
        }
        case RUNNING -> {
          running--;
          own.running--;
          dispatch(fire);
        }
      }
      slot.state = State.DONE;
      forgetIfIdle(own);
    }
    fire.forEach(Runnable::run);
  }

  private static final class Tenant {
    final String name;
    final ArrayDeque<Slot> waiting = new ArrayDeque<>();
    int running;

    Tenant(String name) {
      this.name = name;
    }
  }

  /**
   * One query's place: waiting, then running, then done. {@link #close()} ends it, exactly once
   * whatever the number of calls: a running query's place goes to the next waiting one, a waiting
   * query leaves the queue (and neither of its callbacks runs after that).
   */
  final class Slot implements AutoCloseable {
    private final String tenant;
    private final Executor callbacks;
    private final Runnable onAdmitted;
    private final Consumer<AdmissionRefusedException> onRefused;
    // Guarded by the admission.
    private Tenant owner;
    private State state = State.WAITING;
    private Runnable cancelTimer;

    private Slot(String tenant, Executor callbacks, Runnable onAdmitted,
        Consumer<AdmissionRefusedException> onRefused) {
      this.tenant = Objects.requireNonNull(tenant, "tenant");
      this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
      this.onAdmitted = Objects.requireNonNull(onAdmitted, "onAdmitted");
      this.onRefused = Objects.requireNonNull(onRefused, "onRefused");
    }

    String tenant() {
      return tenant;
    }

    @Override
    public void close() {
      QueryAdmission.this.close(this);
    }
  }
}
