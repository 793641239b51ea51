package dev.lake.sql;

import java.util.Objects;

/** A table of the {@code lake} catalog: schema (namespace) and table name, case as stored. */
public record TableName(String schema, String table) {
  public TableName {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(table, "table");
  }

  @Override
  public String toString() {
    return schema + "." + table;
  }
}
