package dev.lake.engine;

/**
 * Files of a table are missing, truncated or fail their checksums, or the location does not hold
 * a table of this engine. Names the file and the version it belongs to.
 */
public final class CorruptTableException extends EngineException {
  private static final long serialVersionUID = 1L;

  public CorruptTableException(TableLocation location, String message) {
    super(location, message);
  }

  public CorruptTableException(TableLocation location, String message, Throwable cause) {
    super(location, message, cause);
  }
}
