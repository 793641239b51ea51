package dev.lake.catalog;

import java.util.List;
import java.util.Objects;

/**
 * The registry's directory at one generation: every namespace (sorted) and every table record
 * (sorted by namespace, then name). Immutable.
 *
 * @param generation the generation it is current at; it moves on every change a reader could see
 *     (a namespace or table created or dropped, a table replaced, a version appended)
 */
public record RegistrySnapshot(long generation, List<String> namespaces, List<TableEntry> tables) {

  public RegistrySnapshot {
    namespaces = List.copyOf(Objects.requireNonNull(namespaces, "namespaces"));
    tables = List.copyOf(Objects.requireNonNull(tables, "tables"));
  }
}
