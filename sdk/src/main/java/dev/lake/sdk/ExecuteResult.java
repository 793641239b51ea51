package dev.lake.sdk;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What an {@link LakeClient#executeWithVersion executed} statement did: its update count (rows
 * inserted, 0 for DDL) and the table version it committed, the number the table's versions list
 * shows; empty when it committed none (DDL, an INSERT of no rows) or the server named none (not
 * a lake server).
 */
public record ExecuteResult(long count, OptionalLong version) {

  public ExecuteResult {
    Objects.requireNonNull(version, "version");
  }
}
