package dev.lake.catalog;

import java.util.List;

/** A drop without cascade named a namespace that still holds tables. Nothing was changed. */
public final class NamespaceNotEmptyException extends CatalogException {
  private static final long serialVersionUID = 1L;

  private final String namespace;
  private final List<String> tables;

  public NamespaceNotEmptyException(String namespace, List<String> tables) {
    super("cannot drop schema lake." + namespace + ": it holds " + tables.size()
        + (tables.size() == 1 ? " table " : " tables ") + preview(tables)
        + "; drop them first or use CASCADE");
    this.namespace = namespace;
    this.tables = List.copyOf(tables);
  }

  private static String preview(List<String> tables) {
    List<String> shown = tables.subList(0, Math.min(tables.size(), 10));
    return String.join(", ", shown) + (tables.size() > shown.size() ? ", ..." : "");
  }

  public String namespace() {
    return namespace;
  }

  public List<String> tables() {
    return tables;
  }
}
