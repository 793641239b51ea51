package dev.lake.sql;

import dev.lake.engine.Version;
import java.util.Map;
import java.util.Objects;

/**
 * Parses, binds, plans and prepares SQL statements against a {@link SqlCatalog}. Thread-safe.
 */
public final class SqlEngine {

  private final SqlCatalog catalog;

  public SqlEngine(SqlCatalog catalog) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  /**
   * Plans {@code sql} against the latest version of every table it names.
   *
   * @throws SqlException if the statement does not parse, names something unknown, or uses
   *     something unsupported
   */
  public PreparedQuery prepare(String sql) {
    return prepare(sql, Map.of());
  }

  /**
   * Plans {@code sql} reading each table in {@code pins} at exactly the pinned version (tables not
   * in the map at their latest). {@code FOR VERSION AS OF} in the text still wins for its table.
   */
  public PreparedQuery prepare(String sql, Map<TableName, Version> pins) {
    throw new UnsupportedOperationException("SqlEngine.prepare is being built");
  }
}
