package dev.lake.engine;

import java.net.URI;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An immutable reference to a managed object that a table row points at: where it is, its media
 * type, its exact size and its SHA-256 digest (lowercase hex), so a reader can verify it.
 */
public record DataLocation(URI uri, String mimeType, long size, String sha256) {

  private static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-f]{64}");

  public DataLocation {
    Objects.requireNonNull(uri, "uri");
    if (!uri.isAbsolute()) {
      throw new IllegalArgumentException("data location must be an absolute URI: " + uri);
    }
    if (mimeType == null || mimeType.isBlank() || !mimeType.contains("/")) {
      throw new IllegalArgumentException("invalid media type: " + mimeType);
    }
    if (size < 0) {
      throw new IllegalArgumentException("negative size: " + size);
    }
    if (sha256 == null || !HEX_SHA256.matcher(sha256).matches()) {
      throw new IllegalArgumentException("sha256 must be 64 lowercase hex digits, got: " + sha256);
    }
  }
}
