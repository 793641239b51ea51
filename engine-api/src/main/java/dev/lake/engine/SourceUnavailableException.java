package dev.lake.engine;

/**
 * The catalog or storage a table is read from could not be reached (a federated catalog's server
 * refusing connections or answering 5xx, its object store unreachable); nothing was read or
 * changed and retrying may succeed. Servers answer it as unavailable, by this type.
 */
public class SourceUnavailableException extends EngineException {
  private static final long serialVersionUID = 1L;

  public SourceUnavailableException(TableLocation location, String message, Throwable cause) {
    super(location, message, cause);
  }
}
