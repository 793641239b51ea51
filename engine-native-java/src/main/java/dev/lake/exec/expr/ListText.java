package dev.lake.exec.expr;

import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The text form of a list: read as DuckDB writes it ({@code [1, 2, NULL]}) or as PostgreSQL does
 * ({@code {1,2,NULL}}), elements separated by commas, optionally in double quotes (with {@code \}
 * escaping a character inside them); written as PostgreSQL writes it, {@code {1,2,NULL}}.
 */
final class ListText {
  private ListText() {}

  /** The elements' texts (null for an unquoted NULL). */
  static List<String> parse(String text) {
    String s = text.strip();
    if (s.length() < 2 || !(s.startsWith("[") && s.endsWith("]") || s.startsWith("{") && s.endsWith("}"))) {
      throw new ExecutionException("malformed list literal '" + shorten(text)
          + "': a list is written [1, 2, 3] or {1,2,3}");
    }
    List<String> out = new ArrayList<>();
    String body = s.substring(1, s.length() - 1);
    if (body.isBlank()) {
      return out;
    }
    int i = 0;
    while (true) {
      while (i < body.length() && Character.isWhitespace(body.charAt(i))) {
        i++;
      }
      String item;
      if (i < body.length() && body.charAt(i) == '"') {
        StringBuilder b = new StringBuilder();
        i++;
        while (i < body.length() && body.charAt(i) != '"') {
          if (body.charAt(i) == '\\' && i + 1 < body.length()) {
            i++;
          }
          b.append(body.charAt(i++));
        }
        if (i >= body.length()) {
          throw new ExecutionException("malformed list literal '" + shorten(text) + "': unterminated quote");
        }
        i++;
        item = b.toString();
        while (i < body.length() && Character.isWhitespace(body.charAt(i))) {
          i++;
        }
      } else {
        int start = i;
        while (i < body.length() && body.charAt(i) != ',') {
          if (body.charAt(i) == '[' || body.charAt(i) == '{' || body.charAt(i) == '"') {
            throw new ExecutionException("malformed list literal '" + shorten(text)
                + "': lists of lists are not supported");
          }
          i++;
        }
        String raw = body.substring(start, i).strip();
        if (raw.isEmpty()) {
          throw new ExecutionException("malformed list literal '" + shorten(text) + "': an empty element");
        }
        item = raw.toUpperCase(Locale.ROOT).equals("NULL") ? null : raw;
      }
      out.add(item);
      if (i >= body.length()) {
        return out;
      }
      if (body.charAt(i) != ',') {
        throw new ExecutionException("malformed list literal '" + shorten(text) + "': expected a comma at "
            + (i + 2));
      }
      i++;
    }
  }

  /** {@code {1,2,NULL}}; strings are quoted when they are empty or hold a separator, quote or space. */
  static String format(List<?> items, SqlType element) {
    StringBuilder out = new StringBuilder("{");
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      Object v = items.get(i);
      if (v == null) {
        out.append("NULL");
        continue;
      }
      String t = (String) CastKernel.castValue(v, element, SqlType.of(SqlType.Kind.UTF8, true));
      if (element.kind() == SqlType.Kind.UTF8 && (t.isEmpty() || t.equalsIgnoreCase("NULL")
          || t.chars().anyMatch(c -> c == ',' || c == '"' || c == '\\' || c == '{' || c == '}'
              || Character.isWhitespace(c)))) {
        out.append('"').append(t.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
      } else {
        out.append(t);
      }
    }
    return out.append('}').toString();
  }

  private static String shorten(String s) {
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
