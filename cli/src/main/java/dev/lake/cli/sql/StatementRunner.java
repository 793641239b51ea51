package dev.lake.cli.sql;

import io.grpc.Status;
import java.io.PrintWriter;
import java.util.Locale;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;

/**
 * Runs statements of one session and reports each: the result through the chosen format, then
 * (for the table format, or always when a person watches) {@code (N rows)} and the time taken;
 * a failure as {@code ERROR: <gRPC status>: <message>} on the error writer.
 */
final class StatementRunner {

  /** How a statement ended, from the caller's point of view. */
  enum Result { OK, FAILED, UNREACHABLE }

  private final SqlSession session;
  private final ResultFormat format;
  private final boolean decorated;
  private final PrintWriter out;
  private final PrintWriter err;
  private final Cancellation cancellation;

  /**
   * @param decorated whether row counts, timings and update counts are written to {@code out}
   *     even for csv and json (an interactive session); the table format always has them
   */
  StatementRunner(SqlSession session, ResultFormat format, boolean decorated, PrintWriter out,
      PrintWriter err, Cancellation cancellation) {
    this.session = session;
    this.format = format;
    this.decorated = decorated || format.decorated();
    this.out = out;
    this.err = err;
    this.cancellation = cancellation;
  }

  Result run(String statement) {
    long start = System.nanoTime();
    cancellation.begin();
    try {
      SqlSession.Outcome outcome = session.execute(statement, format.printer(out), cancellation);
      if (decorated) {
        long nanos = System.nanoTime() - start;
        if (outcome.query()) {
          out.println(outcome.count() == 1 ? "(1 row)" : "(" + outcome.count() + " rows)");
        } else if (outcome.count() >= 0) {
          out.println("OK, " + outcome.count() + (outcome.count() == 1 ? " row" : " rows") + " affected");
        } else {
          out.println("OK");
        }
        out.println("Time: " + elapsed(nanos));
      }
      out.flush();
      return Result.OK;
    } catch (FlightRuntimeException e) {
      out.flush();
      return report(e);
    } catch (RuntimeException e) {
      // Arrow wraps an interrupted wait (Ctrl-C at an unlucky moment) or a malformed reply in a
      // plain RuntimeException; neither is worth a stack trace
      out.flush();
      if (cancellation.requested()) {
        cancelled();
      } else {
        err.println("ERROR: UNKNOWN: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        err.flush();
      }
      return Result.FAILED;
    } finally {
      cancellation.end();
    }
  }

  /** The terminal echoed ^C where the cursor was: the message goes on a line of its own. */
  private void cancelled() {
    err.println();
    err.println("ERROR: CANCELLED: the statement was cancelled (Ctrl-C)");
    err.flush();
  }

  private Result report(FlightRuntimeException e) {
    String code = grpcCode(e);
    String message = e.status().description();
    if (cancellation.requested() && e.status().code() == FlightStatusCode.CANCELLED) {
      cancelled();
      return Result.FAILED;
    }
    if (e.status().code() == FlightStatusCode.UNAVAILABLE) {
      err.println("ERROR: UNAVAILABLE: cannot reach " + session.endpoint() + ": " + reason(e));
      err.flush();
      return Result.UNREACHABLE;
    }
    err.println("ERROR: " + code + ": " + (message == null || message.isEmpty() ? "(no message)" : message));
    err.flush();
    return Result.FAILED;
  }

  /**
   * The gRPC status name the server sent. Arrow folds some gRPC codes into its own coarser ones
   * (DATA_LOSS into INTERNAL, say), so the gRPC status carried as the cause decides when present.
   */
  static String grpcCode(FlightRuntimeException e) {
    Status grpc = Status.fromThrowable(e);
    if (grpc.getCode() != Status.Code.UNKNOWN || e.status().code() == FlightStatusCode.UNKNOWN) {
      return grpc.getCode().name();
    }
    return switch (e.status().code()) {
      case TIMED_OUT -> "DEADLINE_EXCEEDED";
      case UNAUTHORIZED -> "PERMISSION_DENIED";
      default -> e.status().code().name();
    };
  }

  /** Why a connection failed, from the deepest cause (e.g. "Connection refused"). */
  private static String reason(FlightRuntimeException e) {
    Throwable deepest = e;
    while (deepest.getCause() != null && deepest.getCause() != deepest) {
      deepest = deepest.getCause();
    }
    String message = deepest == e ? e.status().description() : deepest.getMessage();
    if (message == null || message.isBlank()) {
      message = e.status().description();
    }
    return message == null || message.isBlank() ? "no answer" : message;
  }

  static String elapsed(long nanos) {
    double millis = nanos / 1e6;
    return millis < 1_000
        ? String.format(Locale.ROOT, "%.3f ms", millis)
        : String.format(Locale.ROOT, "%.3f s", millis / 1_000);
  }
}
