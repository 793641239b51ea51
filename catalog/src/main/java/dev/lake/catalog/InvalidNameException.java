package dev.lake.catalog;

/** A namespace, table or engine name is not acceptable. Nothing was changed. */
public final class InvalidNameException extends CatalogException {
  private static final long serialVersionUID = 1L;

  public InvalidNameException(String message) {
    super(message);
  }
}
