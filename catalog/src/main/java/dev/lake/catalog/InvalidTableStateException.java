package dev.lake.catalog;

/**
 * The table exists but is not in a state the operation can act on, for example a {@code log}
 * table asked for through the Lance Namespace, which serves {@code lance} tables only. Nothing was
 * changed.
 */
public final class InvalidTableStateException extends CatalogException {
  private static final long serialVersionUID = 1L;

  private final TableIdent ident;

  public InvalidTableStateException(TableIdent ident, String message) {
    super(message);
    this.ident = ident;
  }

  public TableIdent ident() {
    return ident;
  }
}
