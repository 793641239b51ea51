package dev.lake.sql;

import dev.lake.engine.TableHandle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A {@link SqlCatalog} over {@link InMemoryTable}s, for tests. */
final class InMemoryCatalog implements SqlCatalog {
  private final Map<TableName, InMemoryTable> tables = new LinkedHashMap<>();

  InMemoryCatalog put(TableName name, InMemoryTable table) {
    tables.put(name, table);
    return this;
  }

  @Override
  public List<String> schemaNames() {
    return tables.keySet().stream().map(TableName::schema).distinct().toList();
  }

  @Override
  public List<String> tableNames(String schema) {
    List<String> names = new ArrayList<>();
    tables.keySet().stream().filter(t -> t.schema().equals(schema)).forEach(t -> names.add(t.table()));
    return names;
  }

  @Override
  public Optional<TableHandle> openTable(TableName name) {
    return Optional.ofNullable(tables.get(name));
  }
}
