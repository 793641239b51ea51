package dev.lake.engine.expr;

import java.util.Objects;

public record IsNull(Expression value) implements Expression {
  public IsNull {
    Objects.requireNonNull(value, "value");
  }
}
