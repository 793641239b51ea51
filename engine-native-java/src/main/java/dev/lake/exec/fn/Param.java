package dev.lake.exec.fn;

import dev.lake.exec.SqlType;

/**
 * What one parameter of a {@link Signature} accepts, and the type an argument is converted to
 * before the kernel sees it. Conversions are the implicit ones PostgreSQL applies to a function's
 * arguments: any integer widens to BIGINT, any number to DOUBLE, NULL to anything.
 */
public enum Param {
  /** VARCHAR. */
  STRING("VARCHAR"),
  /** Any value, converted to its text (PostgreSQL's {@code concat} and {@code ||} take "any"). */
  TEXT("ANY"),
  /** Any integer, as BIGINT. */
  BIGINT("BIGINT"),
  /** Any number, as DOUBLE. */
  DOUBLE("DOUBLE"),
  /** Any number, kept as it is (integer, float or decimal): abs, round, ceil, ... */
  NUMBER("NUMERIC"),
  /** BOOLEAN. */
  BOOLEAN("BOOLEAN"),
  /** A TIMESTAMP, or a DATE as the TIMESTAMP of its midnight (PostgreSQL's implicit cast). */
  TIMESTAMP("TIMESTAMP"),
  /**
   * A value of the type every {@code SAME} argument of the call is converted to (their common
   * type): greatest, least.
   */
  SAME("ANYCOMPATIBLE"),
  /** A list of any element type, kept as it is. */
  LIST("ANYARRAY"),
  /** A list of numbers (an embedding), kept as it is: the kernel reads its elements where they lie. */
  VECTOR("DOUBLE[]"),
  /**
   * A value comparable with the elements of the call's {@link #LIST} argument, converted to the
   * type they are compared in (array_position, array_contains).
   */
  ELEMENT("ANYELEMENT");

  /** How a signature in a message spells the parameter. */
  public final String spelling;

  Param(String spelling) {
    this.spelling = spelling;
  }

  /**
   * The type an argument of type {@code arg} is converted to, or null when this parameter does
   * not take it. {@link #SAME} answers {@code arg} itself (the registry unifies them).
   */
  SqlType accept(SqlType arg) {
    boolean isNull = arg.kind() == SqlType.Kind.NULL;
    boolean nullable = arg.nullable();
    boolean list = arg.kind() == SqlType.Kind.LIST;
    if (list != (this == LIST || this == VECTOR) && !(isNull && (this == LIST || this == VECTOR))) {
      return null;
    }
    return switch (this) {
      case STRING -> isNull || arg.kind() == SqlType.Kind.UTF8 ? utf8(nullable) : null;
      case TEXT -> utf8(nullable);
      case BIGINT -> isNull || arg.isInteger() ? SqlType.of(SqlType.Kind.INT64, nullable) : null;
      case DOUBLE -> isNull || arg.isNumeric() ? SqlType.of(SqlType.Kind.FLOAT64, nullable) : null;
      case NUMBER -> isNull ? SqlType.of(SqlType.Kind.FLOAT64, nullable) : arg.isNumeric() ? arg : null;
      case BOOLEAN -> isNull || arg.kind() == SqlType.Kind.BOOL ? SqlType.of(SqlType.Kind.BOOL, nullable) : null;
      case TIMESTAMP -> isNull || arg.kind() == SqlType.Kind.DATE || arg.kind() == SqlType.Kind.TIMESTAMP
          ? SqlType.of(SqlType.Kind.TIMESTAMP, nullable) : null;
      case SAME, ELEMENT -> arg;
      case LIST -> isNull ? SqlType.list(utf8(true), true) : arg;
      case VECTOR -> isNull ? SqlType.list(SqlType.of(SqlType.Kind.FLOAT64, true), true)
          : arg.element().isNumeric() ? arg : null;
    };
  }

  private static SqlType utf8(boolean nullable) {
    return SqlType.of(SqlType.Kind.UTF8, nullable);
  }
}
