package dev.lake.sdk;

import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;

/**
 * A call the lake server refused or could not answer. The subclasses name the Flight status the
 * server answered; {@link #retrySafe()} says whether repeating the same call may succeed without
 * changing it and without doing its effect twice.
 */
public class LakeException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final boolean retrySafe;

  LakeException(String message, Throwable cause, boolean retrySafe) {
    super(message, cause);
    this.retrySafe = retrySafe;
  }

  /**
   * Whether retrying the same call is safe: true only when the server did not run it
   * ({@link Unavailable}, {@link StageFailed}). An update that failed for another reason (or timed out) may or may
   * not have been applied.
   */
  public boolean retrySafe() {
    return retrySafe;
  }

  /** NOT_FOUND: a table or namespace the statement names does not exist. Not retry-safe. */
  public static final class NotFound extends LakeException {
    private static final long serialVersionUID = 1L;

    NotFound(String message, Throwable cause) {
      super(message, cause, false);
    }
  }

  /** INVALID_ARGUMENT: bad SQL, wrong parameter count or type. Fix the call; do not retry. */
  public static final class InvalidArgument extends LakeException {
    private static final long serialVersionUID = 1L;

    InvalidArgument(String message, Throwable cause) {
      super(message, cause, false);
    }
  }

  /** UNAUTHENTICATED: no, unknown or expired credentials. Retry only with new credentials. */
  public static final class Unauthenticated extends LakeException {
    private static final long serialVersionUID = 1L;

    Unauthenticated(String message, Throwable cause) {
      super(message, cause, false);
    }
  }

  /** PERMISSION_DENIED: the principal lacks the grant. Do not retry. */
  public static final class PermissionDenied extends LakeException {
    private static final long serialVersionUID = 1L;

    PermissionDenied(String message, Throwable cause) {
      super(message, cause, false);
    }
  }

  /**
   * UNAVAILABLE: the server is unreachable, shutting down or not ready. The call was not run:
   * retrying (with backoff) is safe.
   */
  public static final class Unavailable extends LakeException {
    private static final long serialVersionUID = 1L;

    Unavailable(String message, Throwable cause) {
      super(message, cause, true);
    }
  }

  /**
   * The managed object stage failed an upload or a read (the store refused or could not be
   * reached). A statement whose upload failed was not run: retrying the same call is safe, and
   * objects already uploaded are reused, not uploaded again.
   */
  public static final class StageFailed extends LakeException {
    private static final long serialVersionUID = 1L;

    StageFailed(String message, Throwable cause) {
      super(message, cause, true);
    }
  }

  /**
   * An {@link LakeClient#append append} whose outcome is not known after its retry window: every
   * attempt failed in a way that may have committed. Nothing is lost: {@link #pending()} keeps
   * the operation (and a client with a resume directory keeps it on disk too), and {@link
   * LakeClient#resume} completes it exactly once. Resuming is always safe.
   */
  public static final class AppendPending extends LakeException {
    private static final long serialVersionUID = 1L;

    private final transient PendingAppend pending;

    AppendPending(String message, Throwable cause, PendingAppend pending) {
      super(message, cause, true);
      this.pending = pending;
    }

    /** The append to resume. */
    public PendingAppend pending() {
      return pending;
    }
  }

  /** The one mapping from a Flight status to this hierarchy (other codes: a plain LakeException). */
  static LakeException from(FlightRuntimeException e) {
    FlightStatusCode code = e.status().code();
    String message = code + ": " + e.getMessage();
    return switch (code) {
      case NOT_FOUND -> new NotFound(message, e);
      case INVALID_ARGUMENT -> new InvalidArgument(message, e);
      case UNAUTHENTICATED -> new Unauthenticated(message, e);
      case UNAUTHORIZED -> new PermissionDenied(message, e);
      case UNAVAILABLE -> new Unavailable(message, e);
      default -> new LakeException(message, e, false);
    };
  }
}
