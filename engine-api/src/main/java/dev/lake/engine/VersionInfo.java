package dev.lake.engine;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** What the commit history says of one version: when it was committed and by which operation. */
public record VersionInfo(Version version, Instant committedAt, Optional<AppendOperation> operation) {
  public VersionInfo {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(committedAt, "committedAt");
    Objects.requireNonNull(operation, "operation");
  }
}
