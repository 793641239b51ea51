package dev.lake.exec.op;

import dev.lake.exec.SqlType;
import java.util.List;

/**
 * One function computed over a window: its kind, its arguments (each a column of the window's
 * input or a constant), and the type of its result.
 *
 * @param args per argument, the input column it reads, or -1 for the constant at the same index
 *     of {@code constants} (in the engine's representation of the argument's type)
 * @param ignoreNulls {@code IGNORE NULLS} (lag, lead, first_value, last_value, nth_value): rows
 *     whose value (argument 0) is NULL are skipped when counting rows to the one returned
 */
public record WindowFunction(Kind kind, int[] args, List<Object> constants, SqlType type, boolean ignoreNulls) {

  /** The functions the window operator computes; aggregates use the frame, ranking ones the peers. */
  public enum Kind {
    ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD,
    FIRST_VALUE, LAST_VALUE, NTH_VALUE,
    /** count(*) when it has no argument. */
    COUNT,
    SUM,
    /** SUM that is 0, not NULL, over a frame without values. */
    SUM0,
    AVG, MIN, MAX;

    /** Whether the function takes {@code IGNORE NULLS}: it returns a value of another row. */
    public boolean skipsNulls() {
      return switch (this) {
        case LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE -> true;
        default -> false;
      };
    }

    /** Whether the result depends on the frame (else on the partition and the peers only). */
    public boolean usesFrame() {
      return switch (this) {
        case FIRST_VALUE, LAST_VALUE, NTH_VALUE, COUNT, SUM, SUM0, AVG, MIN, MAX -> true;
        default -> false;
      };
    }
  }

  /** A function that respects NULLs (the default). */
  public WindowFunction(Kind kind, int[] args, List<Object> constants, SqlType type) {
    this(kind, args, constants, type, false);
  }

  public WindowFunction {
    if (ignoreNulls && !kind.skipsNulls()) {
      throw new IllegalArgumentException(kind + " does not take IGNORE NULLS");
    }
    args = args.clone();
    constants = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(constants));
    if (constants.size() != args.length) {
      throw new IllegalArgumentException("one constant slot per argument");
    }
  }

  @Override
  public int[] args() {
    return args.clone();
  }
}
