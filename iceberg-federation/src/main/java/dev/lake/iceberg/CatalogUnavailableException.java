package dev.lake.iceberg;

import dev.lake.engine.SourceUnavailableException;

/** The Iceberg catalog, or the storage its tables live in, could not be reached; retrying may succeed. */
public final class CatalogUnavailableException extends SourceUnavailableException {
  private static final long serialVersionUID = 1L;

  CatalogUnavailableException(String message, Throwable cause) {
    super(null, message, cause);
  }
}
