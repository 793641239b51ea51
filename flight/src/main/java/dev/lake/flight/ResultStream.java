package dev.lake.flight;

import dev.lake.exec.QueryControl;
import dev.lake.exec.QueryStoppedException;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.WireFormat;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.arrow.flight.impl.Flight;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams one {@code DoGet} result with backpressure. A worker task produces messages
 * (opening the source, executing, encoding) until they add up to the bytes that may still be in
 * flight, or the stream ends; the event loop writes them. A batch message is an {@link
 * OutgoingMessage} over the result's own Arrow buffers, written as one gRPC frame straight to
 * the call's HTTP/2 response (the gRPC response sends the headers and the status). The next task
 * starts only while fewer than {@code maxBytesInFlight} bytes are written but not yet flushed and
 * the response's write queue is not full, so a slow client holds about that much of the query's
 * memory (at most one task's messages more) and no thread ever waits for it. A short result is
 * one task: one hand-off to a worker and one back.
 *
 * <p>Buffers: each message is closed exactly once, when its write completes (written, failed or
 * the stream gone) or, never written, as soon as the stream has ended; the source (and with it
 * the query's allocator) is closed only after the last message.
 *
 * <p>Stopping: when the client cancels or goes away, the query's {@link QueryControl} is
 * cancelled, so a worker producing a message stops within a batch (and the workers of a
 * parallel plan with it); at the call's deadline the control stops the query the same way, and
 * a stream waiting for the client fails with {@code DEADLINE_EXCEEDED} at once.
 *
 * <p>All fields are touched on the event loop only, except {@link #source}, which worker tasks
 * use one at a time (there is never more than one in progress) and whose hand-over to and from
 * the event loop goes through {@link Context#runOnContext}.
 */
final class ResultStream {

  private static final Logger LOG = LoggerFactory.getLogger(ResultStream.class);
  /** The most bytes one worker task produces before handing them to the event loop. */
  private static final long TASK_BYTES = 1L << 20;

  /** Produces a stream's messages on worker threads, one call at a time. */
  interface Source extends AutoCloseable {
    /**
     * The next {@code FlightData} (the schema first), or null at the end; the stream closes
     * each message once written or dropped.
     */
    OutgoingMessage next() throws Exception;

    /**
     * Releases everything the source holds; called exactly once, after every message it gave
     * was closed.
     */
    @Override
    void close();
  }

  /** Told, on the event loop, of what the stream wrote and when it ended. */
  interface Listener {
    /** A message of {@code bytes} was handed to the response. */
    void wrote(int bytes);

    /**
     * The stream ended (answered, failed or cancelled) and no worker produces for it any more;
     * called exactly once.
     */
    void done();
  }

  private final Context context;
  private final Executor workers;
  private final GrpcServerResponse<?, Flight.FlightData> response;
  /** The call's HTTP/2 response, written directly (prefix and all), or null: through {@link #response}. */
  private final HttpServerResponse http;
  private final long maxBytesInFlight;
  private final Callable<Source> opener;
  private final QueryControl control;
  private final long deadlineMillis;
  private final Listener listener;

  private Source source;
  private long deadlineTimer = -1;
  private long bytesInFlight;
  private boolean producing;
  /** Messages handed to a write that has not completed yet (each closed on completion). */
  private int unreleased;
  private boolean headSent;
  private boolean finished;
  private boolean done;

  /**
   * @param control stops the query the source runs (cancel, deadline)
   * @param deadlineMillis the call's time limit (the same as {@code control}'s), or 0 for none
   * @param http the call's HTTP/2 response underneath {@code response}, to write the messages'
   *     frames to without another copy, or null to write them through {@code response}
   */
  ResultStream(Context context, Executor workers, GrpcServerResponse<?, Flight.FlightData> response,
      HttpServerResponse http, long maxBytesInFlight, Callable<Source> opener, QueryControl control, long deadlineMillis,
      Listener listener) {
    this.context = context;
    this.workers = workers;
    this.response = response;
    this.http = http;
    this.maxBytesInFlight = maxBytesInFlight;
    this.opener = opener;
    this.control = control;
    this.deadlineMillis = deadlineMillis;
    this.listener = listener;
  }

  /** Starts streaming, unless the stream already ended (cancelled); call on the event loop. */
  void start() {
    if (finished) {
      return;
    }
    response.drainHandler(v -> maybeProduce());
    response.exceptionHandler(e -> cancel());
    if (deadlineMillis > 0) {
      deadlineTimer = context.owner().setTimer(deadlineMillis, id -> expire());
    }
    produce();
  }

  /** Whether the stream ended (answered, failed, cancelled); event loop only. */
  boolean finished() {
    return finished;
  }

  /** Fails the stream with {@code error} unless it already ended; event loop only. */
  void fail(Throwable error) {
    if (!finished) {
      finish(error);
    }
  }

  /** Stops producing after the client cancelled or went away; releases the source. Event loop only. */
  void cancel() {
    control.cancel();
    if (!finished) {
      finished = true;
      stopTimer();
      if (!producing) {
        closeSource();
      }
    }
  }

  // The deadline passed: a producing worker stops by itself (the control has the same deadline)
  // and reports it; a stream waiting for the client to read fails now.
  private void expire() {
    deadlineTimer = -1;
    if (!finished && !producing) {
      try {
        control.check();
      } catch (QueryStoppedException e) {
        finish(e);
      }
    }
  }

  private void stopTimer() {
    if (deadlineTimer >= 0) {
      context.owner().cancelTimer(deadlineTimer);
      deadlineTimer = -1;
    }
  }

  private void maybeProduce() {
    if (!finished && !producing && bytesInFlight < maxBytesInFlight && !response.writeQueueFull()) {
      produce();
    }
  }

  private void produce() {
    producing = true;
    // The worker produces messages until they add up to what may still be in flight (at least
    // one), or the stream ends: a small result (schema, a batch, the end) costs one hand-off to
    // a worker and one back instead of one pair per message, which on a loaded machine is most
    // of a short statement's latency.
    long allowance = Math.max(1, Math.min(TASK_BYTES, maxBytesInFlight - bytesInFlight));
    try {
      workers.execute(() -> {
        java.util.List<OutgoingMessage> produced = new java.util.ArrayList<>(2);
        boolean ended = false;
        Throwable error = null;
        try {
          if (source == null) {
            source = opener.call();
          }
          long bytes = 0;
          while (bytes < allowance) {
            OutgoingMessage next = source.next();
            if (next == null) {
              ended = true;
              break;
            }
            produced.add(next);
            bytes += next.size();
          }
        } catch (Throwable e) {
          error = e;
        }
        boolean end = ended;
        Throwable failure = error;
        context.runOnContext(v -> onProduced(produced, end, failure));
      });
    } catch (RejectedExecutionException e) {
      producing = false;
      finish(e);
    }
  }

  private void onProduced(java.util.List<OutgoingMessage> messages, boolean end, Throwable error) {
    // Still producing while the messages are handed on: a write may complete at once, and its
    // completion must neither start the next task nor close the source before this one is done.
    for (int i = 0; i < messages.size(); i++) {
      OutgoingMessage message = messages.get(i);
      if (finished) {
        // Cancelled, or a failed write cancelled the stream: what is left is never written.
        message.close();
        continue;
      }
      write(message);
    }
    producing = false;
    if (finished) {
      closeSource();
      return;
    }
    if (error != null) {
      finish(error);
    } else if (end) {
      finish(null);
    } else {
      maybeProduce();
    }
  }

  // Already encoded on the worker: the event loop only writes it. The message is closed (its
  // buffers released) when the write completes, whichever way, and the source only after that.
  private void write(OutgoingMessage message) {
    int size = message.size();
    bytesInFlight += size;
    unreleased++;
    listener.wrote(size);
    io.vertx.core.Future<Void> written;
    try {
      if (http != null) {
        if (!headSent) {
          headSent = true;
          response.writeHead();
        }
        written = http.write(message.framed());
      } else {
        written = response.writeMessage(GrpcMessage.message("identity", WireFormat.PROTOBUF,
            message.copiedPayload()));
      }
    } catch (RuntimeException e) {
      // The stream is gone (reset, closed) under the response.
      written = io.vertx.core.Future.failedFuture(e);
    }
    written.onComplete(ar -> {
      bytesInFlight -= size;
      unreleased--;
      message.close();
      if (ar.failed()) {
        cancel();
      } else {
        maybeProduce();
      }
      if (finished && !producing && unreleased == 0) {
        closeSource();
      }
    });
  }

  private void finish(Throwable error) {
    finished = true;
    stopTimer();
    closeSource();
    if (error == null) {
      response.end();
    } else {
      response.fail(ErrorMapper.toStatus(error));
    }
  }

  // Closing may touch files, so it runs on a worker; when the pool is gone (server shutting
  // down) it runs here, because leaking the buffers would be worse.
  private void closeSource() {
    if (!done) {
      done = true;
      listener.done();
    }
    if (unreleased > 0) {
      // The last write's completion closes it.
      return;
    }
    Source toClose = source;
    source = null;
    if (toClose == null) {
      return;
    }
    try {
      workers.execute(() -> closeQuietly(toClose));
    } catch (RejectedExecutionException e) {
      closeQuietly(toClose);
    }
  }

  private static void closeQuietly(Source source) {
    try {
      source.close();
    } catch (RuntimeException e) {
      LOG.error("closing a DoGet result failed", e);
    }
  }
}
