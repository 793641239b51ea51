package dev.lake.engine.lance;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.TableName;
import dev.lake.sql.WritableSqlCatalog;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The SQL front end's view of the registry, writable (as the server's adapter, which lives in
 * flight), for tests that run SQL over real Lance and log tables.
 */
record RegistrySqlCatalog(Catalog catalog) implements WritableSqlCatalog {

  /** The rows of a query, each value as {@link String#valueOf}. */
  static List<List<String>> query(SqlEngine sql, String text, BufferAllocator allocator) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    try (ArrowReader reader = sql.prepare(text).execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          List<String> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(String.valueOf(v.getObject(i)));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  @Override
  public List<String> schemaNames() {
    return catalog.namespaces();
  }

  @Override
  public List<String> tableNames(String schema) {
    return catalog.tables(schema).stream().map(e -> e.ident().name()).toList();
  }

  @Override
  public Optional<TableHandle> openTable(TableName name) {
    return catalog.readHandle(TableIdent.of(name.schema(), name.table()));
  }

  @Override
  public void createSchema(String schema) {
    catalog.createNamespace(schema);
  }

  @Override
  public void dropSchema(String schema, boolean cascade) {
    catalog.dropNamespace(schema, cascade);
  }

  @Override
  public void createTable(TableName name, Schema schema, String engine) {
    catalog.create(ident(name), schema, engine == null ? "log" : engine);
  }

  @Override
  public Version createTableAs(TableName name, Schema schema, String engine, ArrowReader batches,
      byte[] sha256) {
    return catalog.createWith(ident(name), schema, engine == null ? "log" : engine,
        TestData.operation(name + new String(sha256, StandardCharsets.ISO_8859_1)),
        batches).version();
  }

  @Override
  public void dropTable(TableName name) {
    catalog.drop(ident(name));
  }

  @Override
  public Version append(TableName name, TableLocation location, ArrowReader batches,
      byte[] sha256) {
    return catalog.append(ident(name), location,
        TestData.operation(name + new String(sha256, StandardCharsets.ISO_8859_1)),
        batches);
  }

  private static TableIdent ident(TableName name) {
    return TableIdent.of(name.schema(), name.table());
  }
}
