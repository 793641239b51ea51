package dev.lake.catalog;

import java.util.UUID;

/**
 * An operation id was used again for a different write: another payload digest, another kind of
 * write, or another table. Operation ids are chosen once per write and reused only to retry that
 * same write. Nothing was changed.
 */
public final class OperationConflictException extends CatalogException {
  private static final long serialVersionUID = 1L;

  private final UUID operationId;

  public OperationConflictException(UUID operationId, String what) {
    super("operation " + operationId + " was already used for " + what
        + "; a retry must repeat the same write, a new write needs a new operation id;"
        + " nothing was changed");
    this.operationId = operationId;
  }

  public UUID operationId() {
    return operationId;
  }
}
