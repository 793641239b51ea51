package dev.lake.engine.expr;

/** A top-level column of the scanned table, by name. */
public record ColumnRef(String name) implements Expression {
  public ColumnRef {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("column name must not be empty");
    }
  }
}
