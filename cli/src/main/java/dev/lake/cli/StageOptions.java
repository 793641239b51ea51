package dev.lake.cli;

import java.net.URI;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Option {@code --stage} of {@code lake dev} and {@code lake query}: the managed object stage
 * the server names to SDK clients (Flight action {@code lake.stage}), a local directory or
 * {@code s3://bucket/prefix}.
 */
final class StageOptions {

  @Option(names = "--stage",
      description = "Managed object stage for FILE values: a directory or s3://bucket/prefix"
          + " (lake dev default: <data-dir>/stage/).")
  String stage;

  /**
   * The stage root URI ({@code file:} or {@code s3:}, ending in {@code /}), or {@code fallback}
   * when {@code --stage} is not given.
   *
   * @throws IllegalArgumentException naming {@code --stage} when it is malformed
   */
  URI root(Path fallback) {
    if (stage == null || stage.isBlank()) {
      return fallback == null ? null : directory(fallback);
    }
    String value = stage.trim();
    if (value.startsWith("s3://")) {
      URI uri;
      try {
        uri = URI.create(value.endsWith("/") ? value : value + "/");
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--stage must be a directory or s3://bucket/prefix, got "
            + stage);
      }
      if (uri.getHost() == null || uri.getQuery() != null || uri.getFragment() != null) {
        throw new IllegalArgumentException("--stage must be s3://bucket/prefix, got " + stage);
      }
      return uri;
    }
    if (value.contains("://")) {
      throw new IllegalArgumentException("--stage must be a directory or s3://bucket/prefix, got "
          + stage);
    }
    return directory(Path.of(value));
  }

  private static URI directory(Path dir) {
    String uri = dir.toAbsolutePath().normalize().toUri().toString();
    return URI.create(uri.endsWith("/") ? uri : uri + "/");
  }
}
