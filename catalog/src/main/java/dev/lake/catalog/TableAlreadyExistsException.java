package dev.lake.catalog;

/** A create named a table that is already registered. Nothing was changed. */
public final class TableAlreadyExistsException extends CatalogException {
  private static final long serialVersionUID = 1L;

  private final TableIdent ident;

  public TableAlreadyExistsException(TableIdent ident) {
    super("table lake." + ident + " already exists");
    this.ident = ident;
  }

  public TableIdent ident() {
    return ident;
  }
}
