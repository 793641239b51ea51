package dev.lake.sdk;

import java.io.IOException;

/** The bytes read from a managed object differ in size or SHA-256 from its DataLocation. */
public final class ObjectVerificationException extends IOException {

  public ObjectVerificationException(String message) {
    super(message);
  }
}
