package dev.lake.iceberg;

import dev.lake.engine.EngineException;

/** The Iceberg catalog, or the storage its tables live in, could not be reached; retrying may succeed. */
public final class CatalogUnavailableException extends EngineException {
  private static final long serialVersionUID = 1L;

  CatalogUnavailableException(String message, Throwable cause) {
    super(null, message, cause);
  }
}
