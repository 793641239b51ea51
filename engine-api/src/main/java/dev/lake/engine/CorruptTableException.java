package dev.lake.engine;

/**
 * Files of a table are missing, truncated or fail their checksums, or the location does not hold
 * a table of this engine. Names the file and the version it belongs to. Damage found in a data
 * file while reading it is the more precise {@link CorruptDataException}.
 */
public class CorruptTableException extends EngineException {
  private static final long serialVersionUID = 1L;

  public CorruptTableException(TableLocation location, String message) {
    super(location, message);
  }

  public CorruptTableException(TableLocation location, String message, Throwable cause) {
    super(location, message, cause);
  }
}
