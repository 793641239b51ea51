package dev.lake.catalog;

import dev.lake.engine.TableLocation;

/**
 * A location given for a table cannot be used: nothing of the engine is there, or another
 * registered table already uses it. Nothing was changed.
 */
public final class InvalidLocationException extends CatalogException {
  private static final long serialVersionUID = 1L;

  private final TableLocation location;

  public InvalidLocationException(TableLocation location, String message) {
    super(message);
    this.location = location;
  }

  public TableLocation location() {
    return location;
  }
}
