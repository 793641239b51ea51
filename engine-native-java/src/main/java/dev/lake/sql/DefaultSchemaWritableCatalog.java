package dev.lake.sql;

import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A writable catalog seen with a default schema (a client session's): update statements create
 * bare-named tables there and look bare names up there first. Every change is delegated.
 */
final class DefaultSchemaWritableCatalog extends DefaultSchemaCatalog
    implements WritableSqlCatalog {
  private final WritableSqlCatalog catalog;

  DefaultSchemaWritableCatalog(WritableSqlCatalog catalog, String schema) {
    super(catalog, schema);
    this.catalog = catalog;
  }

  @Override
  public void createSchema(String schema) {
    catalog.createSchema(schema);
  }

  @Override
  public void dropSchema(String schema, boolean cascade) {
    catalog.dropSchema(schema, cascade);
  }

  @Override
  public void checkWritable(TableName name) {
    catalog.checkWritable(name);
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
