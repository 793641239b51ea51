package dev.lake.catalog;

/** The table is not in the registry. Nothing was changed. */
public final class TableNotFoundException extends CatalogException {
  private static final long serialVersionUID = 1L;

  private final TableIdent ident;

  public TableNotFoundException(TableIdent ident) {
    super("table lake." + ident + " does not exist");
    this.ident = ident;
  }

  public TableIdent ident() {
    return ident;
  }
}
