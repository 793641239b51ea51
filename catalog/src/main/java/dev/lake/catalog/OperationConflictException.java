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
  private final String what;

  /** @param what the write the id was first used for, e.g. "an append to lake.a.b" */
  public OperationConflictException(UUID operationId, String what) {
    super("operation " + operationId + " was already used for " + what
        + "; a retry must repeat the same write, a new write needs a new operation id;"
        + " nothing was changed");
    this.operationId = operationId;
    this.what = what;
  }

  /** The write the id was first used for. */
  public String what() {
    return what;
  }

  public UUID operationId() {
    return operationId;
  }
}
