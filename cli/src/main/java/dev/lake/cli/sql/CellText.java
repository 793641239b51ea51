package dev.lake.cli.sql;

import java.math.BigDecimal;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Text of the values {@link Values} produces. {@link #plain} is what the table and CSV show:
 * text as it is, numbers in plain notation, binary as {@code \x} and hex digits (PostgreSQL's
 * form), nested values in JSON notation with spaces after separators. {@link #json} writes RFC
 * 8259 JSON: numbers as numbers (NaN and the infinities, which JSON lacks, as strings), binary as
 * base64 strings, lists as arrays, structs and maps as objects.
 */
final class CellText {

  private static final HexFormat HEX = HexFormat.of();

  private CellText() {}

  /** A value's text for the table and CSV; {@code null} for SQL NULL. */
  static String plain(Object value) {
    return switch (value) {
      case null -> null;
      case String s -> s;
      case byte[] bytes -> "\\x" + HEX.formatHex(bytes);
      case List<?> list -> nested(list);
      case Map<?, ?> map -> nested(map);
      default -> scalar(value);
    };
  }

  private static String nested(Object value) {
    StringBuilder out = new StringBuilder();
    json(value, out, true);
    return out.toString();
  }

  private static String scalar(Object value) {
    return switch (value) {
      case BigDecimal d -> d.toPlainString();
      default -> value.toString();
    };
  }

  /** Appends {@code value} as JSON; {@code spaced} puts a space after each {@code ,} and {@code :}. */
  static void json(Object value, StringBuilder out, boolean spaced) {
    switch (value) {
      case null -> out.append("null");
      case String s -> string(s, out);
      case Boolean b -> out.append(b);
      case Double d when d.isNaN() || d.isInfinite() -> string(d.toString(), out);
      case Float f when f.isNaN() || f.isInfinite() -> string(f.toString(), out);
      case Number n -> out.append(scalar(n));
      case byte[] bytes -> string(spaced ? "\\x" + HEX.formatHex(bytes)
          : Base64.getEncoder().encodeToString(bytes), out);
      case List<?> list -> {
        out.append('[');
        for (int i = 0; i < list.size(); i++) {
          if (i > 0) {
            out.append(spaced ? ", " : ",");
          }
          json(list.get(i), out, spaced);
        }
        out.append(']');
      }
      case Map<?, ?> map -> {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          if (!first) {
            out.append(spaced ? ", " : ",");
          }
          first = false;
          string(String.valueOf(e.getKey()), out);
          out.append(spaced ? ": " : ":");
          json(e.getValue(), out, spaced);
        }
        out.append('}');
      }
      default -> string(value.toString(), out);
    }
  }

  /** A JSON string literal: quote, backslash and control characters escaped. */
  static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
