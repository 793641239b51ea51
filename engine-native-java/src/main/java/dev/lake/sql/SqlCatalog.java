package dev.lake.sql;

import dev.lake.engine.TableHandle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the SQL front end needs to know about the tables of the catalog {@value #LAKE}: which
 * schemas and tables exist and how to open one. Implemented over the registry by the server.
 */
public interface SqlCatalog {

  /** The name of the native catalog in three-part names ({@code lake.demo.episodes}). */
  String LAKE = "lake";

  List<String> schemaNames();

  /**
   * Whether a schema exists. A catalog whose listing may lag behind another writer (a Query
   * replica's cache) resolves a name its listing lacks here, as {@link #openTable} does for a
   * table; planning asks this for every schema a statement names that {@link #schemaNames()}
   * does not hold.
   */
  default boolean schemaExists(String schema) {
    return schemaNames().contains(schema);
  }

  /** Table names of {@code schema}; empty if the schema does not exist. */
  List<String> tableNames(String schema);

  /**
   * Opens a table at its latest version. The returned handle stays owned by the catalog: callers
   * must not close it.
   */
  Optional<TableHandle> openTable(TableName name);

  /**
   * A number that changes whenever a table is created, dropped or replaced anywhere in this
   * catalog, that is whenever a name may come to resolve differently; empty if the catalog cannot
   * tell. {@link SqlEngine} reuses a statement's plan only over a catalog that can, and only while
   * this number, and the location and version of every table the plan reads, are unchanged.
   */
  default OptionalLong directoryGeneration() {
    return OptionalLong.empty();
  }

  /**
   * The schema a bare table name is looked up in first (a client's session default), or empty:
   * then a bare name must be held by exactly one schema. See {@link SqlEngine#prepare(String,
   * Map, String)}.
   */
  default Optional<String> defaultSchema() {
    return Optional.empty();
  }

  /**
   * Read-only catalogs federated beside this one, by the catalog name three-part names use
   * ({@code iceberg.ops.robots}); their tables are opened with {@link #openTable} of that catalog
   * and {@link TableName}s naming it. Writes and DDL naming them are refused. Empty by default.
   */
  default Map<String, SqlCatalog> federated() {
    return Map.of();
  }
}
