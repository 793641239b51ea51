package dev.lake.engine.expr;

import java.util.List;

public record Or(List<Expression> terms) implements Expression {
  public Or {
    terms = List.copyOf(terms);
    if (terms.size() < 2) {
      throw new IllegalArgumentException("OR needs at least two terms");
    }
  }
}
