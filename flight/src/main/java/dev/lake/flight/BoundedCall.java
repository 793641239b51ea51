package dev.lake.flight;

import dev.lake.exec.QueryControl;
import dev.lake.exec.QueryStoppedException;
import dev.lake.sql.PlanningControl;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import io.vertx.grpc.server.StatusException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The work of one call that answers once (GetFlightInfo, GetSchema, DoAction), bounded by the
 * call: it runs on a worker with the call's {@link QueryControl} bound ({@link PlanningControl}),
 * so planning and any loop that checks stop when the client cancels or disconnects (the control is
 * cancelled) or when the call's deadline passes (the control's own deadline). At the deadline the
 * call is answered {@code DEADLINE_EXCEEDED} at once from the event loop, whatever the worker is
 * doing; a result that arrives after that, or after the client went away, is dropped.
 *
 * <p>Event-loop state ({@link #finished}, the timer) is touched on the call's context only.
 */
final class BoundedCall {

  private final Context context;
  private final GrpcServerResponse<?, ?> response;
  private final QueryControl control;
  private final long deadlineMillis;
  private boolean finished;
  private long timer = -1;
  private Runnable onEnd;

  /**
   * Creates the call's control with a deadline of {@code deadlineMillis} (0: none) and hooks the
   * request's cancellation to it. Call on the event loop, once the request message has arrived.
   */
  BoundedCall(Context context, GrpcServerRequest<?, ?> request, long deadlineMillis) {
    this.context = context;
    this.response = request.response();
    this.deadlineMillis = deadlineMillis;
    this.control = deadlineMillis > 0
        ? QueryControl.create().withTimeout(Duration.ofMillis(deadlineMillis))
        : QueryControl.create();
    request.errorHandler(error -> clientGone());
    request.exceptionHandler(error -> clientGone());
    response.exceptionHandler(error -> clientGone());
  }

  /**
   * Runs {@code action} once when the call ends (answered, failed, cancelled, timed out), at once
   * if it already has; event loop only.
   */
  void whenEnded(Runnable action) {
    if (finished) {
      action.run();
    } else {
      onEnd = action;
    }
  }

  /** Whether the call ended; event loop only. */
  boolean ended() {
    return finished;
  }

  /** Answers the call with {@code status} unless it ended already; event loop only. */
  void refuse(StatusException status) {
    fail(status);
  }

  /** The call's control; stopped by the client's cancel or the deadline. */
  QueryControl control() {
    return control;
  }

  /**
   * Runs {@code work} on {@code workers} with the control bound, then {@code onSuccess} on the
   * event loop (unless the call already ended); a failure is answered through {@link ErrorMapper}.
   */
  <T> void start(Executor workers, Callable<T> work, Handler<T> onSuccess) {
    if (deadlineMillis > 0) {
      timer = context.owner().setTimer(deadlineMillis, id -> expire());
    }
    try {
      workers.execute(() -> {
        T result;
        try {
          result = PlanningControl.call(control, work);
        } catch (Throwable e) {
          StatusException status = ErrorMapper.toStatus(e);
          context.runOnContext(v -> fail(status));
          return;
        }
        context.runOnContext(v -> {
          if (end()) {
            onSuccess.handle(result);
          }
        });
      });
    } catch (RejectedExecutionException e) {
      fail(ErrorMapper.toStatus(e));
    }
  }

  // The client cancelled or the connection went: nobody is left to answer, so only stop the work.
  private void clientGone() {
    control.cancel();
    end();
  }

  private void expire() {
    timer = -1;
    if (finished) {
      return;
    }
    QueryStoppedException stopped;
    try {
      control.check();
      // The timer may fire a hair before the control's clock agrees; the deadline has passed.
      stopped = new QueryStoppedException(QueryStoppedException.Reason.TIMED_OUT,
          "query timed out after " + deadlineMillis + " ms");
    } catch (QueryStoppedException e) {
      stopped = e;
    }
    control.cancel();
    fail(ErrorMapper.toStatus(stopped));
  }

  private void fail(StatusException status) {
    if (end()) {
      response.fail(status);
    }
  }

  /** Marks the call ended; false if it had ended already. */
  private boolean end() {
    if (finished) {
      return false;
    }
    finished = true;
    if (timer >= 0) {
      context.owner().cancelTimer(timer);
      timer = -1;
    }
    if (onEnd != null) {
      Runnable action = onEnd;
      onEnd = null;
      action.run();
    }
    return true;
  }
}
