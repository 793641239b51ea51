package dev.lake.sql;

import dev.lake.engine.Version;
import java.util.Optional;

/**
 * What one {@link PreparedUpdate#execute} did: its update count (rows inserted, 0 for DDL) and
 * the table version it committed: an {@code INSERT}'s new version, the first version of a
 * {@code CREATE TABLE ... AS} that wrote rows; empty when no table version was committed (other
 * DDL, an {@code INSERT} or {@code CREATE TABLE ... AS} of no rows).
 */
public record UpdateResult(long count, Optional<Version> version) {

  /** A change that committed no table version (DDL, no rows). */
  static UpdateResult none() {
    return new UpdateResult(0, Optional.empty());
  }

  public UpdateResult {
    if (count < 0) {
      throw new IllegalArgumentException("an update count must be >= 0, got " + count);
    }
    java.util.Objects.requireNonNull(version, "version");
  }
}
