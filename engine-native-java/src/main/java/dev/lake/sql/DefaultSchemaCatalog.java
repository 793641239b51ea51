package dev.lake.sql;

import dev.lake.engine.TableHandle;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A catalog seen with a default schema for bare table names; everything else is delegated. Its
 * writable counterpart, {@link DefaultSchemaWritableCatalog}, shares these look-ups.
 */
sealed class DefaultSchemaCatalog implements SqlCatalog permits DefaultSchemaWritableCatalog {
  private final SqlCatalog catalog;
  private final String schema;

  DefaultSchemaCatalog(SqlCatalog catalog, String schema) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.schema = Objects.requireNonNull(schema, "schema");
  }

  @Override
  public List<String> schemaNames() {
    return catalog.schemaNames();
  }

  @Override
  public boolean schemaExists(String schema) {
    return catalog.schemaExists(schema);
  }

  @Override
  public List<String> tableNames(String schema) {
    return catalog.tableNames(schema);
  }

  @Override
  public Optional<TableHandle> openTable(TableName name) {
    return catalog.openTable(name);
  }

  @Override
  public OptionalLong directoryGeneration() {
    return catalog.directoryGeneration();
  }

  @Override
  public java.util.Map<String, SqlCatalog> federated() {
    return catalog.federated();
  }

  @Override
  public Optional<String> defaultSchema() {
    return Optional.of(schema);
  }
}
