package dev.lake.exec;

/**
 * A query failed while running: a data error such as division by zero, an overflow or an
 * invalid cast. The query's resources are still released by closing its reader.
 */
public final class ExecutionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ExecutionException(String message) {
    super(message);
  }

  public ExecutionException(String message, Throwable cause) {
    super(message, cause);
  }
}
