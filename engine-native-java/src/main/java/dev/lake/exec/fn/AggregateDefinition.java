package dev.lake.exec.fn;

import dev.lake.exec.SqlType;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * An {@link AggregateFunction} assembled from its parts; the families ({@link
 * StatisticsAggregates}, {@link OrderedAggregates}, ...) define theirs with it.
 */
record AggregateDefinition(String name, List<String> aliases, List<Signature> signatures,
    Function<Binding, SqlType> result, boolean listResult, Ordering ordering, Consumer<Binding> checker,
    Function<AggregateSpec, GroupState> states) implements AggregateFunction {

  AggregateDefinition {
    aliases = List.copyOf(aliases);
    signatures = List.copyOf(signatures);
  }

  static AggregateDefinition of(String name, List<String> aliases, List<Signature> signatures,
      Function<Binding, SqlType> result, Ordering ordering, Function<AggregateSpec, GroupState> states) {
    return new AggregateDefinition(name, aliases, signatures, result, false, ordering, b -> {}, states);
  }

  @Override
  public SqlType resultType(Binding args) {
    return result.apply(args);
  }

  @Override
  public void check(Binding args) {
    checker.accept(args);
  }

  @Override
  public GroupState newState(AggregateSpec call) {
    return states.apply(call);
  }

  @Override
  public String toString() {
    return name;
  }

  static SqlType float64() {
    return SqlType.of(SqlType.Kind.FLOAT64, true);
  }
}
