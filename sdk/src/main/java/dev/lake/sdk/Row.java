package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import java.util.Map;

/**
 * One result row, its values copied out of the Arrow batch (it stays valid after the iteration
 * moves on). Getters take a column name and return {@code null} for a SQL NULL. Strings are
 * {@link String}, DATE a {@link java.time.LocalDate}, TIMESTAMP WITH TIME ZONE an
 * {@link java.time.Instant}, FILE a {@link DataLocation}; other types are what Arrow's {@code
 * getObject} returns.
 */
public final class Row {

  private final Map<String, Integer> columns;
  private final Object[] values;

  Row(Map<String, Integer> columns, Object[] values) {
    this.columns = columns;
    this.values = values;
  }

  /**
   * The value of {@code column}, or null.
   *
   * @throws IllegalArgumentException if the result has no column {@code column}
   */
  public Object getObject(String column) {
    Integer index = columns.get(column);
    if (index == null) {
      throw new IllegalArgumentException("no column '" + column + "' in the result; columns: "
          + columns.keySet());
    }
    return values[index];
  }

  /**
   * An integer column as a Long, or null.
   *
   * @throws IllegalArgumentException if there is no such column or it is not an integer type
   */
  public Long getLong(String column) {
    return switch (getObject(column)) {
      case null -> null;
      case Long l -> l;
      case Integer i -> i.longValue();
      case Short s -> s.longValue();
      case Byte b -> b.longValue();
      case Object other -> throw wrongType(column, "an integer", other);
    };
  }

  /**
   * A numeric column as a Double, or null.
   *
   * @throws IllegalArgumentException if there is no such column or it is not numeric
   */
  public Double getDouble(String column) {
    return switch (getObject(column)) {
      case null -> null;
      case Number n -> n.doubleValue();
      case Object other -> throw wrongType(column, "a number", other);
    };
  }

  /**
   * A VARCHAR column, or null.
   *
   * @throws IllegalArgumentException if there is no such column or it is not a string
   */
  public String getString(String column) {
    return switch (getObject(column)) {
      case null -> null;
      case String s -> s;
      case Object other -> throw wrongType(column, "a string", other);
    };
  }

  /**
   * A FILE column's location, or null; open it with {@link LakeClient#open}.
   *
   * @throws IllegalArgumentException if there is no such column or it is not a FILE column
   */
  public DataLocation getLocation(String column) {
    return switch (getObject(column)) {
      case null -> null;
      case DataLocation l -> l;
      case Object other -> throw wrongType(column, "a FILE column", other);
    };
  }

  private static IllegalArgumentException wrongType(String column, String wanted, Object value) {
    return new IllegalArgumentException("column '" + column + "' is not " + wanted + " (it holds "
        + value.getClass().getSimpleName() + ")");
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("Row{");
    columns.forEach((name, i) -> s.append(i == 0 ? "" : ", ").append(name).append('=')
        .append(values[i]));
    return s.append('}').toString();
  }
}
