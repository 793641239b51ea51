package dev.lake.catalog;

/** The namespace (SQL schema) does not exist: no namespace record and no table in it. */
public final class NamespaceNotFoundException extends CatalogException {
  private static final long serialVersionUID = 1L;

  private final String namespace;

  public NamespaceNotFoundException(String namespace) {
    super("schema lake." + namespace + " does not exist");
    this.namespace = namespace;
  }

  public String namespace() {
    return namespace;
  }
}
