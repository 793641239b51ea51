package dev.lake.exec.fn;

import dev.lake.exec.Col;
import org.apache.arrow.vector.FieldVector;

/**
 * The running state of one aggregate call for every group of an aggregation, indexed by dense
 * group id. A state is used by one thread; partial states built on several threads are combined
 * with {@link #merge}, so a parallel aggregation needs nothing but this interface from any
 * function.
 */
public abstract class GroupState {

  /**
   * Adds rows {@code 0..count)}: row {@code i} belongs to group {@code groups[i]} ({@code <
   * groupCount}) and its inputs are {@code inputs[j].get(i)} (the call's arguments, then its
   * ordering keys; see {@link AggregateSpec}). Rows a FILTER dropped are never passed.
   */
  public abstract void add(int[] groups, int count, Col[] inputs, int groupCount);

  /**
   * Merges {@code other} (a state of the same call) into this one: its group {@code g} joins this
   * state's group {@code into[g]}, for {@code g < into.length}; groups mapped to a negative number
   * are skipped. {@code other} is only read, so several states may merge parts of it at once.
   */
  public abstract void merge(GroupState other, int[] into, int groupCount);

  /** Writes the final value of groups {@code 0..groupCount)} into {@code out}, replacing its contents. */
  public abstract void write(int groupCount, FieldVector out);

  /** About how many heap bytes the state holds now (charged to the query's budget). */
  public abstract long heapBytes();

  /**
   * {@code v} as SQL equality identifies values (GROUP BY keys, DISTINCT): -0.0 is 0.0, and
   * decimals compare by value (1.50 is 1.5).
   */
  public static Object sqlIdentity(Object v) {
    if (v instanceof Double d && d == 0.0) {
      return 0.0;
    }
    if (v instanceof java.math.BigDecimal d) {
      return d.signum() == 0 ? java.math.BigDecimal.ZERO : d.stripTrailingZeros();
    }
    return v;
  }
}
