package dev.lake.sdk;

import java.util.Objects;
import java.util.UUID;

/**
 * What an {@link LakeClient#append append} committed: its operation id, the rows it carried and
 * the table version that holds them. A repeated operation answers the version it first committed.
 */
public record AppendResult(UUID operationId, long rows, long version) {

  public AppendResult {
    Objects.requireNonNull(operationId, "operationId");
  }
}
