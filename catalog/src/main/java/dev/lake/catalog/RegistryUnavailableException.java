package dev.lake.catalog;

/**
 * The registry's authority cannot be reached (the Metasrv tier is down or unreachable, or a
 * catalog cache has no snapshot yet). Whether a write that failed so was applied is not known
 * to the caller: retrying it with the same operation id is safe, since writes are exactly-once
 * per operation id.
 */
public final class RegistryUnavailableException extends CatalogException {
  private static final long serialVersionUID = 1L;

  public RegistryUnavailableException(String message) {
    super(message);
  }

  public RegistryUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
