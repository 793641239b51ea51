package dev.lake.catalog;

/**
 * The registry record changed under a write (another writer created, dropped or replaced the
 * table). This write did not take effect; re-read and retry if still wanted.
 */
public final class ConcurrentChangeException extends CatalogException {
  private static final long serialVersionUID = 1L;

  public ConcurrentChangeException(TableIdent ident, String what) {
    super("table lake." + ident + " changed while " + what + "; retry");
  }
}
