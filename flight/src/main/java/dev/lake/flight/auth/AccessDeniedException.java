package dev.lake.flight.auth;

/**
 * An authenticated principal asked for something outside its role or namespace grants. Answered
 * {@code PERMISSION_DENIED}, naming the principal and the table or namespace; nothing was read or
 * changed.
 */
public final class AccessDeniedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public AccessDeniedException(String message) {
    super(message);
  }
}
