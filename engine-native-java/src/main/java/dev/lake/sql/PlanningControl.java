package dev.lake.sql;

import dev.lake.exec.QueryControl;
import dev.lake.exec.QueryStoppedException;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.calcite.plan.RelOptListener;

/**
 * Lets planning stop when its caller goes away or its deadline passes. {@link
 * SqlEngine#prepare(String, java.util.Map, QueryControl)} binds the call's {@link QueryControl}
 * to the planning thread for as long as it plans; the planner's loops call {@link #check()}, and
 * Calcite's rule planners get {@link #listener()}, which checks before every rule attempt. So a
 * statement whose planning would run long (a wide join search, a rule program over a huge tree)
 * stops within one step of its control, with {@link QueryStoppedException} (CANCELLED or
 * TIMED_OUT).
 *
 * <p>Planning runs on one thread, so the binding is per thread; without one (planning through
 * {@link SqlEngine#prepare(String)}), {@link #check()} only honours the thread's interrupt.
 */
public final class PlanningControl {

  private static final ThreadLocal<QueryControl> CURRENT = new ThreadLocal<>();

  private PlanningControl() {}

  /** Runs {@code planning} with {@code control} bound to this thread, restoring what was bound before. */
  static <T> T during(QueryControl control, Supplier<T> planning) {
    try {
      return call(control, planning::get);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Runs {@code work} with {@code control} bound to this thread (restoring what was bound
   * before), so every statement it plans, and every loop that calls {@link #check()}, stops when
   * {@code control} does. A server binds the call's control around all the work of one call.
   */
  public static <T> T call(QueryControl control, Callable<T> work) throws Exception {
    Objects.requireNonNull(control, "control");
    QueryControl previous = CURRENT.get();
    CURRENT.set(control);
    try {
      return work.call();
    } finally {
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(previous);
      }
    }
  }

  /**
   * Throws if the statement being planned on this thread should stop. Cheap (a volatile read and
   * a clock read): call it once per step of any loop whose length the statement decides.
   *
   * @throws QueryStoppedException CANCELLED if the caller cancelled or the thread was
   *     interrupted, TIMED_OUT if the deadline passed
   */
  public static void check() {
    QueryControl control = CURRENT.get();
    if (control != null) {
      control.check();
    } else if (Thread.currentThread().isInterrupted()) {
      throw new QueryStoppedException(QueryStoppedException.Reason.CANCELLED, "planning interrupted");
    }
  }

  /** A Calcite planner listener that {@link #check() checks} before and after every rule attempt. */
  static RelOptListener listener() {
    return LISTENER;
  }

  private static final RelOptListener LISTENER = new RelOptListener() {
    @Override
    public void relEquivalenceFound(RelEquivalenceEvent event) {}

    @Override
    public void ruleAttempted(RuleAttemptedEvent event) {
      check();
    }

    @Override
    public void ruleProductionSucceeded(RuleProductionEvent event) {}

    @Override
    public void relDiscarded(RelDiscardedEvent event) {}

    @Override
    public void relChosen(RelChosenEvent event) {
      check();
    }
  };
}
