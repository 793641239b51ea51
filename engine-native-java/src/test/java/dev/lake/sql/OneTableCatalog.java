package dev.lake.sql;

import dev.lake.engine.TableHandle;
import java.util.List;
import java.util.Optional;

/** A catalog of one open table under one name, for tests over a table they built themselves. */
record OneTableCatalog(TableName name, TableHandle table) implements SqlCatalog {
  @Override
  public List<String> schemaNames() {
    return List.of(name.schema());
  }

  @Override
  public List<String> tableNames(String schema) {
    return schema.equals(name.schema()) ? List.of(name.table()) : List.of();
  }

  @Override
  public Optional<TableHandle> openTable(TableName requested) {
    return requested.equals(name) ? Optional.of(table) : Optional.empty();
  }
}
