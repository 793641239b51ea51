package dev.lake.engine;

/**
 * The root of every failure a {@link TableEngine} reports. Carries the table location it concerns
 * when known. Subclasses say precisely what happened; a plain {@code EngineException} means the
 * storage failed and the outcome of a write is unknown.
 */
public class EngineException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final TableLocation location;

  public EngineException(TableLocation location, String message) {
    this(location, message, null);
  }

  public EngineException(TableLocation location, String message, Throwable cause) {
    super(location == null ? message : message + " (table " + location + ")", cause);
    this.location = location;
  }

  /** The table this failure concerns, or null when it concerns none. */
  public TableLocation location() {
    return location;
  }
}
