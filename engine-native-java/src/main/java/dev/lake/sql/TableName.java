package dev.lake.sql;

import java.util.Objects;

/**
 * A table: catalog ({@value SqlCatalog#LAKE} unless federated, see {@link
 * SqlCatalog#federated()}), schema (namespace) and table name, case as stored. Pins of
 * {@code lake.ops.t} and {@code iceberg.ops.t} are different keys.
 */
public record TableName(String catalog, String schema, String table) {
  public TableName {
    Objects.requireNonNull(catalog, "catalog");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(table, "table");
  }

  /** A table of the {@value SqlCatalog#LAKE} catalog. */
  public TableName(String schema, String table) {
    this(SqlCatalog.LAKE, schema, table);
  }

  /** Whether the table is one of the native catalog {@value SqlCatalog#LAKE}. */
  public boolean isLake() {
    return SqlCatalog.LAKE.equals(catalog);
  }

  /** {@code catalog.schema.table}. */
  public String qualified() {
    return catalog + "." + schema + "." + table;
  }

  /** {@code schema.table} for a lake table (messages prefix {@code lake.}), else qualified. */
  @Override
  public String toString() {
    return isLake() ? schema + "." + table : qualified();
  }
}
