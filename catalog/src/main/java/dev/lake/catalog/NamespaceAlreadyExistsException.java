package dev.lake.catalog;

/** A create named a namespace (SQL schema) that exists already. Nothing was changed. */
public final class NamespaceAlreadyExistsException extends CatalogException {
  private static final long serialVersionUID = 1L;

  private final String namespace;

  public NamespaceAlreadyExistsException(String namespace) {
    super("schema lake." + namespace + " already exists");
    this.namespace = namespace;
  }

  public String namespace() {
    return namespace;
  }
}
