package dev.lake.exec;

import java.time.Duration;
import java.util.Objects;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Stops one query from outside: {@link #cancel()} from any thread, or a deadline. The thread
 * reading the result and every worker of a parallel plan {@link #check()} it at each batch, so a
 * stopped query ends within one batch of work per thread, its workers exit and closing its reader
 * releases everything; the query fails with a {@link QueryStoppedException} saying why.
 *
 * <p>A control travels with the query's allocator: an execution creates its child allocator with
 * {@link #listener()}, and an operator finds its query's control with {@link #of(BufferAllocator)}
 * (so operator constructors need no extra parameter). A control derived with
 * {@link #withTimeout(Duration)} stops when its parent does, or at its own deadline.
 *
 * <p>Thread-safe.
 */
public final class QueryControl {
  private static final QueryControl UNBOUNDED = new QueryControl(null, 0, null);

  private final QueryControl parent;
  private final long deadlineNanos;
  private final Duration timeout;
  private volatile boolean cancelled;

  private QueryControl(QueryControl parent, long deadlineNanos, Duration timeout) {
    this.parent = parent;
    this.deadlineNanos = deadlineNanos;
    this.timeout = timeout;
  }

  /** A control without a deadline, stopped only by {@link #cancel()}. */
  public static QueryControl create() {
    return new QueryControl(null, 0, null);
  }

  /**
   * A control that stops when this one does or {@code timeout} from now, whichever comes first.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  public QueryControl withTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    long nanos = System.nanoTime() + timeout.toNanos();
    return new QueryControl(this, nanos, timeout);
  }

  /**
   * Stops the query: the reader and every worker stop at their next batch with
   * {@link QueryStoppedException.Reason#CANCELLED}. Idempotent; a no-op after the query ended.
   */
  public void cancel() {
    if (this != UNBOUNDED) {
      cancelled = true;
    }
  }

  /** Whether the query should stop now (cancelled, or past its deadline). */
  public boolean stopped() {
    return stopReason() != null;
  }

  /**
   * @throws QueryStoppedException if the query was cancelled, its deadline passed, or the calling
   *     thread was interrupted (the interrupt stays set)
   */
  public void check() {
    QueryStoppedException.Reason reason = Thread.currentThread().isInterrupted()
        ? QueryStoppedException.Reason.CANCELLED : stopReason();
    if (reason != null) {
      throw stoppedException(reason);
    }
  }

  private QueryStoppedException.Reason stopReason() {
    for (QueryControl c = this; c != null; c = c.parent) {
      if (c.cancelled) {
        return QueryStoppedException.Reason.CANCELLED;
      }
      if (c.timeout != null && System.nanoTime() - c.deadlineNanos >= 0) {
        return QueryStoppedException.Reason.TIMED_OUT;
      }
    }
    return null;
  }

  private QueryStoppedException stoppedException(QueryStoppedException.Reason reason) {
    if (reason == QueryStoppedException.Reason.CANCELLED) {
      return new QueryStoppedException(reason, "query cancelled");
    }
    Duration shortest = null;
    for (QueryControl c = this; c != null; c = c.parent) {
      if (c.timeout != null && System.nanoTime() - c.deadlineNanos >= 0
          && (shortest == null || c.timeout.compareTo(shortest) < 0)) {
        shortest = c.timeout;
      }
    }
    return new QueryStoppedException(reason, "query timed out after " + shortest.toMillis() + " ms");
  }

  /** The listener to create the query's allocator with, so that {@link #of} finds this control. */
  public AllocationListener listener() {
    return new Carrier(this);
  }

  /**
   * The control of the query that owns {@code allocator} (or an ancestor of it); a control that
   * never stops when the allocator belongs to no query.
   */
  public static QueryControl of(BufferAllocator allocator) {
    for (BufferAllocator a = allocator; a != null; a = a.getParentAllocator()) {
      if (a.getListener() instanceof Carrier carrier) {
        return carrier.control;
      }
    }
    return UNBOUNDED;
  }

  /** Only carries the control; allocation itself is not observed. */
  private record Carrier(QueryControl control) implements AllocationListener {}
}
