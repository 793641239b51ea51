package dev.lake.exec.fn;

import dev.lake.exec.SqlType;
import java.util.Arrays;
import java.util.List;

/**
 * The arguments of one call as its function sees them when it is planned: each argument's type
 * after conversion to the matched {@link Signature}, and the value of each argument written as a
 * constant in the statement (a literal), so that a result type may depend on it ({@code
 * round(price, 2)} is a DECIMAL of scale 2).
 */
public final class Binding {
  private static final Object NOT_CONSTANT = new Object();

  private final List<SqlType> types;
  private final Object[] constants;

  private Binding(List<SqlType> types, Object[] constants) {
    this.types = List.copyOf(types);
    this.constants = constants;
  }

  /** Arguments none of which is a constant. */
  public static Binding of(List<SqlType> types) {
    Object[] constants = new Object[types.size()];
    Arrays.fill(constants, NOT_CONSTANT);
    return new Binding(types, constants);
  }

  /** The same arguments with argument {@code i} known to be the constant {@code value} (null: NULL). */
  public Binding withConstant(int i, Object value) {
    Object[] c = constants.clone();
    c[i] = value;
    return new Binding(types, c);
  }

  /** The same constants over other argument types (the converted ones). */
  Binding withTypes(List<SqlType> converted) {
    return new Binding(converted, constants);
  }

  public int size() {
    return types.size();
  }

  public SqlType type(int i) {
    return types.get(i);
  }

  public List<SqlType> types() {
    return types;
  }

  /** Whether argument {@code i} is written as a constant. */
  public boolean isConstant(int i) {
    return constants[i] != NOT_CONSTANT;
  }

  /**
   * The constant value of argument {@code i} ({@link Long}, {@link Double}, {@link
   * java.math.BigDecimal}, {@link String}, {@link Boolean}, or null for NULL).
   *
   * @throws IllegalStateException if the argument is not a constant
   */
  public Object constant(int i) {
    if (!isConstant(i)) {
      throw new IllegalStateException("argument " + i + " is not a constant");
    }
    return constants[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Binding b && types.equals(b.types) && Arrays.equals(constants, b.constants);
  }

  @Override
  public int hashCode() {
    return types.hashCode() * 31 + Arrays.hashCode(constants);
  }

  @Override
  public String toString() {
    return types.toString();
  }

  /** Whether any argument may be NULL. */
  public boolean anyNullable() {
    return types.stream().anyMatch(SqlType::nullable);
  }
}
