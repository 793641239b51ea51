package dev.lake.engine;

/** A create found a table already at the location. Nothing was changed. */
public final class TableExistsException extends EngineException {
  private static final long serialVersionUID = 1L;

  public TableExistsException(TableLocation location) {
    super(location, "a table already exists at this location");
  }
}
