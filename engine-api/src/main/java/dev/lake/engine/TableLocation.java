package dev.lake.engine;

import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a table's files live: an absolute {@code file:} URI (or, for engines that support it,
 * an object-store URI such as {@code s3://bucket/prefix}). Immutable.
 */
public record TableLocation(URI uri) {

  public TableLocation {
    Objects.requireNonNull(uri, "uri");
    if (!uri.isAbsolute() || uri.getScheme() == null) {
      throw new IllegalArgumentException("table location must be an absolute URI: " + uri);
    }
    uri = uri.normalize();
  }

  public static TableLocation of(Path directory) {
    return new TableLocation(directory.toAbsolutePath().normalize().toUri());
  }

  public boolean isLocal() {
    return "file".equals(uri.getScheme());
  }

  /**
   * The local directory of a {@code file:} location.
   *
   * @throws IllegalStateException if the location is not local
   */
  public Path localPath() {
    if (!isLocal()) {
      throw new IllegalStateException("not a local table location: " + uri);
    }
    return Path.of(uri);
  }

  @Override
  public String toString() {
    return uri.toString();
  }
}
