package dev.lake.sql;

import dev.lake.engine.Snapshot;
import dev.lake.engine.Version;
import dev.lake.engine.expr.Expression;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.op.SortOperator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A bound and optimised single-table query, ready to be turned into operators. Immutable, so
 * one prepared query can be executed many times. Expressions before the aggregate index the
 * scanned columns ({@code scan.columns}); those after it index the aggregate's output (keys,
 * then aggregates).
 *
 * @param scan the table read, or empty for {@code SELECT} without {@code FROM}
 * @param where the full WHERE predicate (re-applied even when pushed down), or null
 * @param aggregate the grouping, or empty when the query does not aggregate
 * @param having HAVING over the aggregate's output, or null
 * @param projections the select list, then hidden ORDER BY expressions
 * @param projectSchema one field per projection
 * @param distinct SELECT DISTINCT
 * @param orderBy sort keys over the projections
 * @param output the result schema: the first fields of {@code projectSchema}
 */
record BoundQuery(
    Optional<Scan> scan,
    Expr where,
    Optional<Aggregate> aggregate,
    Expr having,
    List<Expr> projections,
    Schema projectSchema,
    boolean distinct,
    List<SortOperator.Key> orderBy,
    long offset,
    long limit,
    Schema output) {

  /** What to read: a pinned snapshot, the columns needed, the pushed filter and limit hint. */
  record Scan(TableName table, Version version, Snapshot snapshot, List<String> columns,
      Optional<Expression> filter, OptionalLong limitHint) {}

  /** GROUP BY keys and aggregate calls over the scanned columns; {@code schema} is its output. */
  record Aggregate(List<Expr> keys, List<Expr.Agg> calls, Schema schema) {}
}
