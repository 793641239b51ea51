package dev.lake.sql;

import dev.lake.engine.Version;
import java.util.Map;
import java.util.Objects;
import org.apache.calcite.sql.SqlNode;

/**
 * Parses, binds, plans and prepares SQL statements against a {@link SqlCatalog}. Thread-safe.
 *
 * <p>The dialect: single-table {@code SELECT} (with {@code DISTINCT}, expressions and aliases,
 * {@code *}), {@code WHERE}, {@code GROUP BY} (expressions, output names or ordinals) with
 * {@code count(*)}, {@code count([DISTINCT] x)}, {@code sum}, {@code avg}, {@code min},
 * {@code max} (DISTINCT allowed on each), {@code HAVING}, {@code ORDER BY} (ASC/DESC, NULLS
 * FIRST/LAST; by default NULL sorts as the largest value, so last ascending and first descending,
 * as in PostgreSQL), {@code LIMIT}/{@code OFFSET}, and {@code SELECT} without {@code FROM}.
 * Tables are {@code [lake.]schema.table}, or a bare table name when exactly one schema has it;
 * {@code FOR VERSION AS OF n} after a table reads version {@code n}.
 *
 * <p>Semantics: SQL three-valued logic; aggregates ignore NULLs, and over no rows
 * {@code sum/avg/min/max} are NULL and {@code count} is 0; a global aggregate always returns one
 * row. Division (and modulo) by zero fails the query with "division by zero" (EXECUTION), as the
 * SQL standard requires, for integers, floats and decimals alike; integer arithmetic and
 * {@code sum} of integers fail on overflow instead of wrapping. Integer arithmetic yields at
 * least INTEGER; any float operand yields DOUBLE; {@code sum} of integers is BIGINT, {@code avg}
 * of integers or floats DOUBLE, of decimals DECIMAL(38, max(scale, 6)).
 *
 * <p>Result column names: the alias; else the column name for a bare column; else
 * {@code fn(col)}, {@code fn(distinct col)} or {@code count(*)} for an aggregate of a bare column;
 * else {@code expr$i} where {@code i} is the 0-based position in the select list.
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
   * Preparing reads only metadata (catalog, snapshot schema); no table data is read until
   * {@link PreparedQuery#execute}. Nothing needs releasing when it fails.
   *
   * @throws SqlException SYNTAX if the text does not parse (with line and column);
   *     TABLE_NOT_FOUND for an unknown or ambiguous table; VERSION_NOT_FOUND if a pinned or
   *     {@code FOR VERSION AS OF} version does not exist; INVALID for unknown columns or
   *     functions and type errors; UNSUPPORTED for valid SQL lake cannot run yet (JOIN,
   *     subqueries, UNION, window functions, ...)
   */
  public PreparedQuery prepare(String sql, Map<TableName, Version> pins) {
    Objects.requireNonNull(sql, "sql");
    Objects.requireNonNull(pins, "pins");
    SqlNode statement = SqlParsing.parse(sql);
    try {
      return new LakePreparedQuery(new Binder(catalog, pins).bind(statement));
    } catch (SqlException e) {
      throw SqlParsing.originalPosition(sql, e);
    }
  }
}
