package dev.lake.sql;

import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A writable catalog seen with a default schema (a client session's): update statements create
 * bare-named tables there and look bare names up there first. Every change is delegated.
 */
final class DefaultSchemaWritableCatalog implements WritableSqlCatalog {
  private final WritableSqlCatalog catalog;
  private final String schema;

  DefaultSchemaWritableCatalog(WritableSqlCatalog catalog, String schema) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.schema = Objects.requireNonNull(schema, "schema");
  }

  @Override
  public Optional<String> defaultSchema() {
    return Optional.of(schema);
  }

  @Override
  public List<String> schemaNames() {
    return catalog.schemaNames();
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
  public void createSchema(String schema) {
    catalog.createSchema(schema);
  }

  @Override
  public boolean schemaExists(String schema) {
    return catalog.schemaExists(schema);
  }

  @Override
  public void dropSchema(String schema, boolean cascade) {
    catalog.dropSchema(schema, cascade);
  }

  @Override
  public void createTable(TableName name, Schema schema, String engine) {
    catalog.createTable(name, schema, engine);
  }

  @Override
  public Version createTableAs(TableName name, Schema schema, String engine, ArrowReader batches,
      byte[] sha256) {
    return catalog.createTableAs(name, schema, engine, batches, sha256);
  }

  @Override
  public void dropTable(TableName name) {
    catalog.dropTable(name);
  }

  @Override
  public Version append(TableName name, TableLocation location, ArrowReader batches, byte[] sha256) {
    return catalog.append(name, location, batches, sha256);
  }
}
