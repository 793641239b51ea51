package dev.lake.flight.auth;

/**
 * A call carried no credentials, or credentials that name nobody (unknown or expired token, wrong
 * password). Answered {@code UNAUTHENTICATED}; the message never quotes the credential.
 */
public final class AuthenticationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public AuthenticationException(String message) {
    super(message);
  }
}
