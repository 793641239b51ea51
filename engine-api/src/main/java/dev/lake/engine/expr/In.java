package dev.lake.engine.expr;

import java.util.List;
import java.util.Objects;

/** {@code value IN (v1, v2, ...)} over literals. */
public record In(Expression value, List<Literal> list) implements Expression {
  public In {
    Objects.requireNonNull(value, "value");
    list = List.copyOf(list);
    if (list.isEmpty()) {
      throw new IllegalArgumentException("IN needs at least one value");
    }
  }
}
