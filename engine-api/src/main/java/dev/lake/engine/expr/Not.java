package dev.lake.engine.expr;

import java.util.Objects;

public record Not(Expression term) implements Expression {
  public Not {
    Objects.requireNonNull(term, "term");
  }
}
