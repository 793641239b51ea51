package dev.lake.engine.expr;

import java.util.Objects;

/** {@code value BETWEEN low AND high}, both bounds inclusive. */
public record Between(Expression value, Expression low, Expression high) implements Expression {
  public Between {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(low, "low");
    Objects.requireNonNull(high, "high");
  }
}
