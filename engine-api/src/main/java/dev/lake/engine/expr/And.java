package dev.lake.engine.expr;

import java.util.List;

public record And(List<Expression> terms) implements Expression {
  public And {
    terms = List.copyOf(terms);
    if (terms.size() < 2) {
      throw new IllegalArgumentException("AND needs at least two terms");
    }
  }
}
