package dev.lake.catalog;

/**
 * No replica of the registry authority (Metasrv) answered: none reachable, or none leading. The
 * outcome of a write is unknown; retrying it with the same operation id is safe.
 */
public class RegistryUnavailableException extends CatalogException {
  private static final long serialVersionUID = 1L;

  public RegistryUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
