package dev.lake.sql;

import dev.lake.engine.Version;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.calcite.sql.SqlNode;

/**
 * Parses, validates, plans and prepares SQL statements against a {@link SqlCatalog}, every query
 * through one path (validator, {@link RelPlanner}, {@link RelTranslator}). Thread-safe.
 *
 * <p>The dialect: single-table {@code SELECT} (with {@code DISTINCT}, expressions and aliases,
 * {@code *}), {@code WHERE}, {@code GROUP BY} (expressions, output names or ordinals) with
 * {@code count(*)}, {@code count([DISTINCT] x)}, {@code sum}, {@code avg}, {@code min},
 * {@code max} (DISTINCT allowed on each), {@code HAVING}, {@code ORDER BY} (ASC/DESC, NULLS
 * FIRST/LAST; by default NULL sorts as the largest value, so last ascending and first descending,
 * as in PostgreSQL), {@code LIMIT}/{@code OFFSET}, and {@code SELECT} without {@code FROM}.
 * Tables are {@code [lake.]schema.table}, or a bare table name: in the default schema when one is
 * given ({@link #prepare(String, Map, String)}), else when exactly one schema has it;
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

  private static final java.util.regex.Pattern EXPLAIN =
      java.util.regex.Pattern.compile("(?is)\\s*EXPLAIN\\s+(?!PLAN\\b)");

  /** Plans kept by default: statements a server sees repeatedly, a few KB of plan each. */
  public static final int DEFAULT_PLAN_CACHE_ENTRIES = 256;

  private final Execution execution;
  private final int threads;
  private final PlanCache plans;

  public SqlEngine(SqlCatalog catalog) {
    this(catalog, Long.MAX_VALUE);
  }

  public SqlEngine(SqlCatalog catalog, long queryBudget) {
    this(catalog, queryBudget, Runtime.getRuntime().availableProcessors());
  }

  public SqlEngine(SqlCatalog catalog, long queryBudget, int threads) {
    this(catalog, queryBudget, threads, null);
  }

  /**
   * @param threads workers of a parallel plan (scans, filters, projections, hash join builds and
   *     probes, partial aggregates over morsels), by default one per processor
   * @param queryBudget the most memory one execution may hold, in bytes: its Arrow buffers and the
   *     heap of its hash tables; the allocator passed to {@link PreparedQuery#execute} bounds the
   *     process. A query over either fails with {@link SqlException.Kind#RESOURCE_EXHAUSTED}
   *     naming the budget, and releases all it held.
   * @param queryTimeout the longest one execution may run, from {@link PreparedQuery#execute}
   *     to its last batch, or null for no limit; past it the query fails with {@link
   *     SqlException.Kind#TIMED_OUT} and its workers stop
   * @throws IllegalArgumentException if threads, budget or timeout is not positive
   */
  public SqlEngine(SqlCatalog catalog, long queryBudget, int threads, java.time.Duration queryTimeout) {
    this(catalog, queryBudget, threads, queryTimeout, DEFAULT_PLAN_CACHE_ENTRIES);
  }

  /**
   * As {@link #SqlEngine(SqlCatalog, long, int, java.time.Duration)}, keeping the plans of up to
   * {@code planCacheEntries} recent statements (0: plan every statement afresh). A kept plan is
   * reused only while it is exactly right: the catalog's directory generation, and the location
   * and version of every table it reads, unchanged (see {@link SqlCatalog#directoryGeneration}).
   *
   * @throws IllegalArgumentException if threads, budget or timeout is not positive, or
   *     planCacheEntries is negative
   */
  public SqlEngine(SqlCatalog catalog, long queryBudget, int threads, java.time.Duration queryTimeout,
      int planCacheEntries) {
    this.plans = new PlanCache(planCacheEntries);
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1: " + threads);
    }
    this.threads = threads;
    this.execution = new Execution(queryBudget, queryTimeout);
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

  /** The read-only catalogs federated beside {@value SqlCatalog#LAKE} ({@link SqlCatalog#federated()}). */
  public Map<String, SqlCatalog> federatedCatalogs() {
    return catalog.federated();
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
    return prepare(sql, pins, (String) null);
  }

  /** Whether literals of comparisons are made parameters for the plan cache ({@link AutoParameters}). */
  boolean autoParameterize = !"false".equals(System.getProperty("lake.sql.autoParameterize"));

  /** Normalized texts whose plan cannot take their literals (planning or typing failed). */
  private final java.util.Set<String> unparameterizable = java.util.concurrent.ConcurrentHashMap.newKeySet();

  // The plan of sql: its literals bound to the kept plan of its normalized text when that keeps
  // their meaning, else the plan of the text as written.
  private PreparedQuery planCached(String sql, Map<TableName, Version> pins, String defaultSchema) {
    Objects.requireNonNull(sql, "sql");
    Objects.requireNonNull(pins, "pins");
    if (autoParameterize) {
      AutoParameters.Normalized normalized = AutoParameters.of(sql);
      if (normalized != null && !unparameterizable.contains(normalized.text())) {
        PreparedQuery bound = bindLiterals(normalized, pins, defaultSchema);
        if (bound != null) {
          return bound;
        }
      }
    }
    return planText(sql, pins, defaultSchema);
  }

  private PreparedQuery planText(String sql, Map<TableName, Version> pins, String defaultSchema) {
    if (defaultSchema == null) {
      return plans.plan(sql, pins, catalog, c -> plan(sql, pins, c));
    }
    return plans.plan(sql, pins, defaultSchema, catalog,
        c -> plan(sql, pins, new DefaultSchemaCatalog(c, defaultSchema)));
  }

  private PreparedQuery bindLiterals(AutoParameters.Normalized normalized,
      Map<TableName, Version> pins, String defaultSchema) {
    PreparedQuery planned;
    try {
      planned = planText(normalized.text(), pins, defaultSchema);
    } catch (SqlException e) {
      switch (e.kind()) {
        case CANCELLED, TIMED_OUT, RESOURCE_EXHAUSTED -> throw e;
        // The literal text plans (or fails) on its own terms.
        case INVALID, UNSUPPORTED, SYNTAX -> unparameterize(normalized.text());
        default -> { }
      }
      return null;
    }
    if (!(planned instanceof ParameterizedQuery query) || query.bindsVersions()
        || query.types().size() != normalized.values().size()) {
      unparameterize(normalized.text());
      return null;
    }
    for (int i = 0; i < query.types().size(); i++) {
      if (!AutoParameters.keepsMeaning(normalized.values().get(i), query.types().get(i))) {
        return null;
      }
    }
    try {
      return query.bind(normalized.values());
    } catch (SqlException e) {
      // A value its parameter's type cannot hold (2.5 for an INTEGER): the literal text decides.
      return null;
    }
  }

  private void unparameterize(String text) {
    if (unparameterizable.size() > 4096) {
      unparameterizable.clear();
    }
    unparameterizable.add(text);
  }

  /**
   * Whether {@code sql} is an update statement (DDL, {@code INSERT}, or a refused {@code
   * DELETE}/{@code UPDATE}/{@code MERGE}) rather than a query: prepare it with {@link
   * #prepareUpdate}, not {@link #prepare}. Reads only the statement's first word.
   */
  public boolean isUpdate(String sql) {
    Objects.requireNonNull(sql, "sql");
    return Updates.isUpdate(sql);
  }

  /**
   * Validates an update statement against the catalog: {@code CREATE SCHEMA}, {@code DROP
   * SCHEMA}, {@code CREATE TABLE [AS]}, {@code DROP TABLE} or {@code INSERT} (see docs/sql.md).
   * Nothing changes until {@link PreparedUpdate#execute}.
   *
   * @throws SqlException SYNTAX, INVALID, TABLE_NOT_FOUND as for queries; UNSUPPORTED for
   *     {@code DELETE}, {@code UPDATE} and {@code MERGE} (tables are append-only), naming the
   *     statement, and for any update when the catalog is not a {@link WritableSqlCatalog}
   */
  public PreparedUpdate prepareUpdate(String sql) {
    Objects.requireNonNull(sql, "sql");
    if (!(catalog instanceof WritableSqlCatalog writable)) {
      throw new SqlException(SqlException.Kind.UNSUPPORTED, "this catalog is read-only:"
          + " update statements are not supported");
    }
    return Updates.prepare(sql, writable, this);
  }

  /**
   * As {@link #prepareUpdate(String)}, with a default schema (a client session's; null: none):
   * {@code CREATE TABLE t} and {@code CREATE TABLE t AS ...} create {@code defaultSchema.t};
   * {@code DROP TABLE t} and {@code INSERT INTO t} mean {@code defaultSchema.t} when that table
   * exists and otherwise resolve as without a default; the queries inside {@code INSERT ...
   * SELECT} and {@code CREATE TABLE AS} resolve as {@link #prepare(String, Map, String)} does.
   * Qualified names are unaffected.
   */
  public PreparedUpdate prepareUpdate(String sql, String defaultSchema) {
    if (defaultSchema == null) {
      return prepareUpdate(sql);
    }
    Objects.requireNonNull(sql, "sql");
    if (!(catalog instanceof WritableSqlCatalog writable)) {
      return prepareUpdate(sql);
    }
    return Updates.prepare(sql, new DefaultSchemaWritableCatalog(writable, defaultSchema), this);
  }

  /**
   * Prepares and runs an update statement without parameters.
   *
   * @return the update count: rows inserted, 0 for DDL
   * @throws SqlException as {@link #prepareUpdate} and {@link PreparedUpdate#execute}
   */
  public long executeUpdate(String sql, BufferAllocator allocator) {
    return prepareUpdate(sql).execute(allocator).count();
  }

  /** Plans a query's syntax tree relationally, against this engine's catalog. */
  PreparedQuery planQuery(SqlNode query, Map<TableName, Version> pins) {
    return planRelational(query, pins, catalog);
  }

  /** As {@link #planQuery(SqlNode, Map)}, against {@code over} (this engine's catalog, maybe with a default schema). */
  PreparedQuery planQuery(SqlNode query, Map<TableName, Version> pins, SqlCatalog over) {
    return planRelational(query, pins, over);
  }

  /** The physical plan of a logical one (built per execution when it reads the statement clock). */
  PreparedQuery translate(RelPlanner.Planned planned) {
    return ClockedQuery.readsClock(planned.rel()) ? new ClockedQuery(() -> physical(planned)) : physical(planned);
  }

  private PreparedQuery physical(RelPlanner.Planned planned) {
    var rel = planned.rel();
    RelTranslator translator = new RelTranslator(rel.getCluster().getRexBuilder(),
        rel.getCluster().getMetadataQuery(), threads);
    RelTranslator.Node plan = translator.gather(translator.translate(rel));
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < plan.fields().size(); i++) {
      Field f = plan.fields().get(i);
      fields.add(new Field(planned.names().get(i), f.getFieldType(), f.getChildren()));
    }
    Map<TableName, Version> read = new LinkedHashMap<>();
    planned.tables().values().forEach(t -> read.put(t.name, t.version));
    return new RelPreparedQuery(plan, new Schema(fields), read, execution, ColumnOrigin.of(rel));
  }

  /** An allocator for the rows an update holds before it commits: the per-query budget. */
  BufferAllocator updateAllocator(BufferAllocator parent, String name) {
    return parent.newChildAllocator(name, 0, execution.budget());
  }

  /**
   * As {@link #prepare(String, Map)}, stopping when {@code control} does: planning checks it at
   * every step whose count the statement decides (rule attempts, join-order search), so a caller
   * that cancels or whose deadline passes gets its thread back within one step.
   *
   * @throws dev.lake.exec.QueryStoppedException CANCELLED or TIMED_OUT when {@code control}
   *     stopped planning; nothing is kept and nothing needs releasing
   * @throws SqlException as {@link #prepare(String, Map)}
   */
  public PreparedQuery prepare(String sql, Map<TableName, Version> pins,
      dev.lake.exec.QueryControl control) {
    return PlanningControl.during(control, () -> {
      control.check();
      return prepare(sql, pins);
    });
  }

  /**
   * As {@link #prepare(String, Map)}, looking a bare table name up in {@code defaultSchema} first
   * (a client session's default schema): {@code episodes} is {@code defaultSchema.episodes} when
   * that table exists, and otherwise resolves as without a default (the one schema that has it).
   * Qualified names are unaffected. A null {@code defaultSchema} is no default.
   *
   * @throws SqlException as {@link #prepare(String, Map)}
   */
  public PreparedQuery prepare(String sql, Map<TableName, Version> pins, String defaultSchema) {
    return planCached(sql, pins, defaultSchema);
  }

  /**
   * Plans {@code sql} as {@link #prepare(String, Map)} does and binds {@code parameters} to its
   * {@code ?}, in order: the result executes with those values. The statement is validated and
   * optimised once per text (and kept in the plan cache); each call with new values only turns
   * the kept plan into a physical one with the values as constants. {@code FOR VERSION AS OF ?}
   * picks the snapshot, so such a statement is planned again with its versions at every call.
   * Values are Java objects of the parameter's type or one that converts without loss (see
   * {@link PreparedQuery#parameterSchema}): {@code Boolean}, {@code Byte}/{@code Short}/{@code
   * Integer}/{@code Long}/{@code BigInteger}, {@code Float}/{@code Double}, {@code BigDecimal},
   * {@code String}, {@code LocalDate}, {@code Instant}/{@code LocalDateTime} (UTC) or null.
   * Nothing is read or executed; nothing needs releasing when it fails.
   *
   * @throws SqlException as {@link #prepare(String, Map)}; INVALID when the number of values is
   *     not the number of parameters, or a value does not convert to its parameter's type (the
   *     message names the parameter's 1-based position and its type)
   */
  public PreparedQuery prepare(String sql, Map<TableName, Version> pins, List<?> parameters) {
    return prepare(sql, pins, null, parameters);
  }

  /**
   * As {@link #prepare(String, Map, List)}, bare table names looked up in {@code defaultSchema}
   * (null: none) first, as {@link #prepare(String, Map, String)} does.
   */
  public PreparedQuery prepare(String sql, Map<TableName, Version> pins, String defaultSchema,
      List<?> parameters) {
    Objects.requireNonNull(parameters, "parameters");
    PreparedQuery query = prepare(sql, pins, defaultSchema);
    if (!(query instanceof ParameterizedQuery statement)) {
      if (!parameters.isEmpty()) {
        throw new SqlException(SqlException.Kind.INVALID, "the statement has no parameters, but "
            + parameters.size() + (parameters.size() == 1 ? " value was" : " values were") + " bound");
      }
      return query;
    }
    if (!statement.bindsVersions()) {
      return statement.bind(parameters);
    }
    // Refuse bad values before planning again with the versions bound.
    Parameters.convert(statement.types(), parameters);
    SqlNode tree = SqlParsing.parse(sql);
    try {
      java.util.Set<Integer> versions = Parameters.bindVersions(tree, parameters);
      RelPlanner planner = new RelPlanner(
          defaultSchema == null ? catalog : new DefaultSchemaCatalog(catalog, defaultSchema), pins);
      RelPlanner.Planned planned = planner.plan(tree);
      return new ParameterizedQuery(planned, planner.parameterTypes(), versions, threads, execution)
          .bind(parameters);
    } catch (SqlException e) {
      throw SqlParsing.originalPosition(sql, e);
    }
  }

  /** Statements answered by a kept plan and planned afresh: {@code [hits, misses]}. */
  long[] planCacheCounts() {
    return new long[] {plans.hits(), plans.misses()};
  }

  /** Plans kept now. */
  int planCacheSize() {
    return plans.size();
  }

  private PreparedQuery plan(String sql, Map<TableName, Version> pins, SqlCatalog catalog) {
    if (Updates.isUpdate(sql)) {
      throw new SqlException(SqlException.Kind.INVALID, "this is an update statement, not a"
          + " query: run it as an update (SqlEngine.prepareUpdate; Flight SQL"
          + " CommandStatementUpdate or a prepared update)");
    }
    java.util.regex.Matcher explainPrefix = EXPLAIN.matcher(sql);
    if (explainPrefix.lookingAt()) {
      // Blank the keyword out so positions in errors still point into the text as written.
      String query = " ".repeat(explainPrefix.end()) + sql.substring(explainPrefix.end());
      return explain(prepare(query, SqlParsing.parse(query), pins, catalog));
    }
    SqlNode statement = SqlParsing.parse(sql);
    if (statement instanceof org.apache.calcite.sql.SqlExplain explain) {
      return explain(prepare(sql, explain.getExplicandum(), pins, catalog));
    }
    return prepare(sql, statement, pins, catalog);
  }

  /** {@code EXPLAIN q}: one VARCHAR column {@code plan}, one row per line of q's physical plan. */
  private PreparedQuery explain(PreparedQuery query) {
    List<String> lines = query.explain();
    dev.lake.exec.SqlType text = dev.lake.exec.SqlType.of(dev.lake.exec.SqlType.Kind.UTF8, false);
    List<Field> fields = List.of(text.field("plan"));
    List<List<Object>> rows = lines.stream().<List<Object>>map(List::of).toList();
    RelTranslator.Node values = new RelTranslator.Node(fields, List.of(text),
        a -> new dev.lake.exec.op.ValuesOperator(new Schema(fields), List.of(text), rows, a),
        "Values", List.of());
    return new RelPreparedQuery(values, new Schema(fields), query.pins(), execution);
  }

  private PreparedQuery prepare(String sql, SqlNode statement, Map<TableName, Version> pins,
      SqlCatalog catalog) {
    try {
      return planRelational(statement, pins, catalog);
    } catch (SqlException e) {
      throw SqlParsing.originalPosition(sql, e);
    }
  }

  private PreparedQuery planRelational(SqlNode statement, Map<TableName, Version> pins,
      SqlCatalog catalog) {
    // FOR VERSION AS OF ? is typed at the table's pinned or current version.
    java.util.Set<Integer> versions = Parameters.bindVersions(statement, null);
    RelPlanner planner = new RelPlanner(catalog, pins);
    RelPlanner.Planned planned = planner.plan(statement);
    if (!versions.isEmpty() || !planner.parameterTypes().isEmpty()) {
      return new ParameterizedQuery(planned, planner.parameterTypes(), versions, threads, execution);
    }
    return translate(planned);
  }
}
