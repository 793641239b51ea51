package dev.lake.catalog;

/**
 * A refusal or failure of the table registry. Subclasses are precise refusals that changed
 * nothing; a plain {@code CatalogException} is a failure whose outcome the message explains.
 */
public class CatalogException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CatalogException(String message) {
    super(message);
  }

  public CatalogException(String message, Throwable cause) {
    super(message, cause);
  }
}
