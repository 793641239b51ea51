package dev.lake.engine;

/** Appended batches do not have the table's schema. Nothing was written. */
public final class SchemaMismatchException extends EngineException {
  private static final long serialVersionUID = 1L;

  public SchemaMismatchException(TableLocation location, String message) {
    super(location, message);
  }
}
