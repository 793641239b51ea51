package dev.lake.engine.expr;

/**
 * The engine-neutral predicate language pushed down into scans. Small on purpose: an engine that
 * cannot use a node simply does not prune with it; the executor re-applies every predicate.
 */
public sealed interface Expression
    permits ColumnRef, Literal, Comparison, And, Or, Not, In, IsNull, Between {}
