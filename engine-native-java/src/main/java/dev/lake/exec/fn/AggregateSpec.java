package dev.lake.exec.fn;

import dev.lake.exec.SqlType;
import java.util.List;

/**
 * One planned call of an {@link AggregateFunction}: its arguments' types (and constants) after
 * conversion to the matched signature, its result type, whether it is {@code DISTINCT}, and the
 * ordering of its rows. The state is given the arguments' columns followed by one column per
 * ordering key, in this order.
 */
public record AggregateSpec(AggregateFunction function, Binding binding, SqlType result, boolean distinct,
    List<SortKey> order) {

  public AggregateSpec {
    order = List.copyOf(order);
  }

  /** One ORDER BY key of the call, of type {@code type}. */
  public record SortKey(SqlType type, boolean descending, boolean nullsFirst) {}

  /** The number of input columns the state reads: the arguments, then the ordering keys. */
  public int inputs() {
    return binding.size() + order.size();
  }

  /** How the call is spelled in a plan. */
  @Override
  public String toString() {
    return function.name() + (distinct ? "(DISTINCT " : "(") + binding + (order.isEmpty() ? "" : " ORDER BY " + order) + ")";
  }
}
