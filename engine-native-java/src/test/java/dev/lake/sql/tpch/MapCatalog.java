package dev.lake.sql.tpch;

import dev.lake.engine.TableHandle;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.TableName;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** A {@link SqlCatalog} over open table handles, for tests. */
public final class MapCatalog implements SqlCatalog {
  private final Map<TableName, TableHandle> tables = new LinkedHashMap<>();
  private volatile long generation;

  /** Adds or replaces a table; moves the directory generation. */
  public synchronized MapCatalog put(TableName name, TableHandle table) {
    tables.put(name, table);
    generation++;
    return this;
  }

  /** Removes a table; moves the directory generation. */
  public synchronized MapCatalog remove(TableName name) {
    tables.remove(name);
    generation++;
    return this;
  }

  @Override
  public OptionalLong directoryGeneration() {
    return OptionalLong.of(generation);
  }

  @Override
  public List<String> schemaNames() {
    return tables.keySet().stream().map(TableName::schema).distinct().toList();
  }

  @Override
  public List<String> tableNames(String schema) {
    return tables.keySet().stream().filter(t -> t.schema().equals(schema)).map(TableName::table).toList();
  }

  @Override
  public Optional<TableHandle> openTable(TableName name) {
    return Optional.ofNullable(tables.get(name));
  }
}
