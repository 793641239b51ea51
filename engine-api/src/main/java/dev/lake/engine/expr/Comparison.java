package dev.lake.engine.expr;

import java.util.Objects;

/** {@code left op right} with SQL semantics: a comparison with NULL is unknown (no match). */
public record Comparison(Op op, Expression left, Expression right) implements Expression {

  public enum Op { EQ, NE, LT, LE, GT, GE }

  public Comparison {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(left, "left");
    Objects.requireNonNull(right, "right");
  }
}
