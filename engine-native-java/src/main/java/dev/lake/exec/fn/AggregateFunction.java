package dev.lake.exec.fn;

import dev.lake.exec.SqlType;

/**
 * A function from a group of rows to one value, defined once: its names and signatures ({@link
 * RegisteredFunction}), its result type, whether it takes an ordering ({@code WITHIN GROUP (ORDER
 * BY ...)} or {@code ORDER BY} inside the call), and its state ({@link GroupState}): the step
 * adding a batch of rows, the merge of two partial states and the final value. NULL handling is
 * the state's: unless a function says otherwise, rows whose arguments are NULL are ignored and a
 * group without a value yields NULL. Implementations are immutable and shared by every query.
 */
public interface AggregateFunction extends RegisteredFunction {

  /** Whether a call may, must or must not carry an ordering of the rows it aggregates. */
  enum Ordering { FORBIDDEN, OPTIONAL, REQUIRED }

  /**
   * The type of the result, nullability included, for arguments already converted to a matched
   * signature's parameters; for a {@link #listResult()} function, the type of the list's elements.
   */
  SqlType resultType(Binding args);

  /** Whether the result is a list of {@link #resultType} values ({@code array_agg}). */
  default boolean listResult() {
    return false;
  }

  Ordering ordering();

  /**
   * Checks a call's constant arguments (a percentile's fraction) before it runs; a refusal is an
   * {@link IllegalArgumentException} whose message names the function and the value.
   */
  default void check(Binding args) {}

  /**
   * The engine's typed kernels, which update primitive arrays a batch at a time (and share counts
   * and sums between calls of one aggregation): {@link CoreAggregates}' functions run on them.
   */
  enum Kernel { COUNT, SUM, AVG, MIN, MAX }

  /** The typed kernel computing this function, or empty when its {@link #newState} state does. */
  default java.util.Optional<Kernel> kernel() {
    return java.util.Optional.empty();
  }

  /** How the partial results of each morsel of a parallel aggregation combine into the final value. */
  enum Split {
    /** Each morsel's {@link GroupState} is merged into the final one ({@link GroupState#merge}). */
    STATES,
    /** The partial results are aggregated again by the same function (sum, min, max). */
    SELF,
    /** The partial counts are summed; no partial at all is a count of 0. */
    COUNT,
    /** Each morsel keeps a sum and a count; the final value is their quotient (avg). */
    SUM_AND_COUNT
  }

  default Split split() {
    return Split.STATES;
  }

  /**
   * A state for every group of one aggregation, computing {@code call}; a function with a {@link
   * #kernel()} runs on that kernel instead and has no state.
   */
  GroupState newState(AggregateSpec call);
}
