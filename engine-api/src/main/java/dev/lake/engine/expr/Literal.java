package dev.lake.engine.expr;

import java.math.BigDecimal;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A constant of an Arrow type. Values are normalised so engines compare them without guessing:
 * every integer type, {@code Date(DAY)} (days since epoch) and {@code Timestamp(MICROSECOND)}
 * (microseconds since epoch) hold a {@link Long}; floating point a {@link Double}; {@code Bool} a
 * {@link Boolean}; {@code Utf8} a {@link String}; {@code Decimal} a {@link BigDecimal}. A null
 * value is SQL NULL.
 */
public record Literal(ArrowType type, Object value) implements Expression {
  public Literal {
    Objects.requireNonNull(type, "type");
    if (value != null) {
      Class<?> expected = switch (type.getTypeID()) {
        case Int, Date, Timestamp -> Long.class;
        case FloatingPoint -> Double.class;
        case Bool -> Boolean.class;
        case Utf8 -> String.class;
        case Decimal -> BigDecimal.class;
        default -> throw new IllegalArgumentException("no literal of type " + type);
      };
      if (!expected.isInstance(value)) {
        throw new IllegalArgumentException(
            "a literal of " + type + " holds a " + expected.getSimpleName() + ", got "
                + value.getClass().getSimpleName());
      }
    }
  }
}
