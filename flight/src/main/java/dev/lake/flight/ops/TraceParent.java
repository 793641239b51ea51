package dev.lake.flight.ops;

import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * The W3C {@code traceparent} of the call a thread works for, so that the calls it makes to
 * other lake services (a Query replica to Metasrv, a Metasrv follower to its leader) continue the
 * caller's trace. Inside a traced server the value names the call's own server span ({@link
 * CallTracing} rewrites the header before the handlers see it); in an untraced one it is the
 * client's, passed on unchanged. Bound per task, like the call's principal.
 */
public final class TraceParent {

  /** The header, as W3C Trace Context names it. */
  public static final String HEADER = "traceparent";

  private static final ScopedValue<String> CURRENT = ScopedValue.newInstance();

  private TraceParent() {}

  /** The traceparent bound to the running task, if any. */
  public static Optional<String> current() {
    return CURRENT.isBound() ? Optional.of(CURRENT.get()) : Optional.empty();
  }

  /** Runs {@code work} with {@code traceparent} bound (null: as is). */
  public static void runWithin(String traceparent, Runnable work) {
    if (traceparent == null) {
      work.run();
    } else {
      ScopedValue.where(CURRENT, traceparent).run(work);
    }
  }

  /** {@code task} bound to the traceparent of the thread that calls this (as is without one). */
  public static Runnable propagate(Runnable task) {
    if (!CURRENT.isBound()) {
      return task;
    }
    String traceparent = CURRENT.get();
    return () -> ScopedValue.where(CURRENT, traceparent).run(task);
  }

  /** An executor running each task on {@code workers} with {@code traceparent} bound. */
  public static Executor within(String traceparent, Executor workers) {
    return traceparent == null ? workers : task -> workers.execute(() -> runWithin(traceparent,
        task));
  }
}
