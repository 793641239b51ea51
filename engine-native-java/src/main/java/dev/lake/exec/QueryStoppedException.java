package dev.lake.exec;

/**
 * A query stopped before its end because it was cancelled or ran past its deadline (see
 * {@link QueryControl}). Every buffer it held is released once its reader is closed; running it
 * again is safe.
 */
public final class QueryStoppedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why the query stopped. */
  public enum Reason {
    /** {@link QueryControl#cancel()} was called, or the thread running the query was interrupted. */
    CANCELLED,
    /** The query's deadline passed. */
    TIMED_OUT
  }

  private final Reason reason;

  public QueryStoppedException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
