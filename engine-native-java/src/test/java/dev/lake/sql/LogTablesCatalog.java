package dev.lake.sql;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.UuidV7;
import dev.lake.engine.Version;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A {@link WritableSqlCatalog} for tests: schemas and table names held in memory, each table a
 * real {@code log} table in its own directory under {@code root} (a new directory per
 * incarnation). Synchronized: one change at a time.
 */
final class LogTablesCatalog implements WritableSqlCatalog, AutoCloseable {
  private final Path root;
  private final TableEngine log;
  private final TreeMap<String, TreeMap<String, TableHandle>> schemas = new TreeMap<>();
  private long generation;
  /** Appends attempted, committed or not: tests prove a refused statement reached none. */
  int appends;

  LogTablesCatalog(Path root) {
    this.root = root;
    this.log = ServiceLoader.load(TableEngineFactory.class).stream()
        .map(ServiceLoader.Provider::get).filter(f -> f.name().equals("log")).findFirst()
        .orElseThrow().create(Map.of());
  }

  @Override
  public synchronized List<String> schemaNames() {
    return List.copyOf(schemas.keySet());
  }

  @Override
  public synchronized List<String> tableNames(String schema) {
    TreeMap<String, TableHandle> tables = schemas.get(schema);
    return tables == null ? List.of() : List.copyOf(tables.keySet());
  }

  @Override
  public synchronized Optional<TableHandle> openTable(TableName name) {
    TreeMap<String, TableHandle> tables = schemas.get(name.schema());
    return Optional.ofNullable(tables == null ? null : tables.get(name.table()));
  }

  @Override
  public synchronized OptionalLong directoryGeneration() {
    return OptionalLong.of(generation);
  }

  @Override
  public synchronized void createSchema(String schema) {
    if (schemas.containsKey(schema)) {
      throw new SqlException(SqlException.Kind.ALREADY_EXISTS, "schema " + schema + " already exists");
    }
    schemas.put(schema, new TreeMap<>());
    generation++;
  }

  @Override
  public synchronized void dropSchema(String schema, boolean cascade) {
    TreeMap<String, TableHandle> tables = schema(schema);
    if (!tables.isEmpty() && !cascade) {
      throw new SqlException(SqlException.Kind.NOT_EMPTY, "schema " + schema + " holds tables "
          + tables.keySet());
    }
    for (TableHandle table : tables.values()) {
      drop(table);
    }
    schemas.remove(schema);
    generation++;
  }

  @Override
  public synchronized void createTable(TableName name, Schema schema, String engine) {
    checkEngine(engine);
    TreeMap<String, TableHandle> tables = schema(name.schema());
    if (tables.containsKey(name.table())) {
      throw new SqlException(SqlException.Kind.ALREADY_EXISTS, "table " + name + " already exists");
    }
    tables.put(name.table(), log.create(location(name), schema));
    generation++;
  }

  @Override
  public synchronized Version createTableAs(TableName name, Schema schema, String engine,
      ArrowReader batches, byte[] sha256) {
    checkEngine(engine);
    TreeMap<String, TableHandle> tables = schema(name.schema());
    if (tables.containsKey(name.table())) {
      throw new SqlException(SqlException.Kind.ALREADY_EXISTS, "table " + name + " already exists");
    }
    TableHandle table = log.create(location(name), schema);
    Version version;
    try {
      version = table.append(operation(name, sha256), batches);
    } catch (RuntimeException e) {
      drop(table);
      throw e;
    }
    tables.put(name.table(), table);
    generation++;
    return version;
  }

  @Override
  public synchronized void dropTable(TableName name) {
    TableHandle table = schema(name.schema()).remove(name.table());
    if (table == null) {
      throw new SqlException(SqlException.Kind.TABLE_NOT_FOUND, "table " + name + " does not exist");
    }
    drop(table);
    generation++;
  }

  @Override
  public synchronized Version append(TableName name, TableLocation location, ArrowReader batches,
      byte[] sha256) {
    appends++;
    TableHandle table = openTable(name).filter(t -> t.location().equals(location))
        .orElseThrow(() -> new SqlException(SqlException.Kind.TABLE_NOT_FOUND, "table " + name
            + " was dropped"));
    return table.append(operation(name, sha256), batches);
  }

  @Override
  public synchronized void close() {
    schemas.values().forEach(tables -> tables.values().forEach(TableHandle::close));
    log.close();
  }

  private static AppendOperation operation(TableName name, byte[] sha256) {
    return AppendOperation.of("test", "lake." + name, UuidV7.generate(), sha256);
  }

  private TreeMap<String, TableHandle> schema(String schema) {
    TreeMap<String, TableHandle> tables = schemas.get(schema);
    if (tables == null) {
      throw new SqlException(SqlException.Kind.TABLE_NOT_FOUND, "schema " + schema + " does not exist");
    }
    return tables;
  }

  private static void checkEngine(String engine) {
    if (engine != null && !engine.equals("log")) {
      throw new SqlException(SqlException.Kind.INVALID, "unknown table engine '" + engine + "'");
    }
  }

  private TableLocation location(TableName name) {
    return TableLocation.of(root.resolve(name.schema()).resolve(name.table() + "-" + UUID.randomUUID()));
  }

  private void drop(TableHandle table) {
    TableLocation location = table.location();
    table.close();
    log.drop(location);
  }
}
