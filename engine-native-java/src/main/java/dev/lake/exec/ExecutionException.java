package dev.lake.exec;

/**
 * A query failed while running. {@link #kind()} is decided where it is thrown: most are {@link
 * Kind#DATA} errors, the query's fault on this data (division by zero, an overflow, a value that
 * does not cast, a function argument out of its domain), with a message naming the value; the
 * rest are limits of the engine or its failures. The query's resources are still released by
 * closing its reader.
 */
public final class ExecutionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Whose fault the failure is. */
  public enum Kind {
    /** The query cannot be computed on this data; changing the query or the data fixes it. */
    DATA,
    /** The query needs more than a fixed limit of the engine (a column over 2 GiB). */
    LIMIT,
    /** The engine itself failed (storage I/O, an unexpected failure of a worker). */
    INTERNAL
  }

  private final Kind kind;

  /** A {@link Kind#DATA} error. */
  public ExecutionException(String message) {
    this(Kind.DATA, message, null);
  }

  /** A {@link Kind#DATA} error. */
  public ExecutionException(String message, Throwable cause) {
    this(Kind.DATA, message, cause);
  }

  public ExecutionException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = java.util.Objects.requireNonNull(kind, "kind");
  }

  public Kind kind() {
    return kind;
  }
}
