package dev.lake.engine;

/**
 * Another writer committed the version this write tried to create, more times than the engine
 * retries. No version was created by this write; retrying the same operation is safe.
 */
public final class CommitConflictException extends EngineException {
  private static final long serialVersionUID = 1L;

  public CommitConflictException(TableLocation location, String message) {
    super(location, message);
  }
}
