package dev.lake.sql;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.parser.babel.SqlBabelParserImplConstants;

/**
 * Lets {@code date}, {@code time}, {@code timestamp} and {@code interval} be names, as in
 * PostgreSQL: Calcite's grammar reserves them (they start literals and types), so before parsing each one that stands
 * where a name does is quoted ({@code date} becomes {@code "date"}, the same name once unquoted
 * names fold to lower case). One is kept as the keyword when it starts a literal ({@code DATE
 * '2024-01-01'}), is a type (after {@code AS} inside {@code CAST(...)}, after {@code ::}, after a
 * column's name in {@code CREATE TABLE}, with a precision {@code TIMESTAMP(3)}), or is part of
 * {@code WITH [LOCAL] TIME ZONE} / {@code AT TIME ZONE}.
 */
final class DateTimeNames {
  private DateTimeNames() {}

  private static final int DATE = SqlBabelParserImplConstants.DATE;
  private static final int TIME = SqlBabelParserImplConstants.TIME;
  private static final int TIMESTAMP = SqlBabelParserImplConstants.TIMESTAMP;
  private static final int INTERVAL = SqlBabelParserImplConstants.INTERVAL;
  private static final int LPAREN = SqlBabelParserImplConstants.LPAREN;
  private static final int RPAREN = SqlBabelParserImplConstants.RPAREN;
  private static final int COMMA = SqlBabelParserImplConstants.COMMA;
  private static final int AS = SqlBabelParserImplConstants.AS;
  private static final int CAST = SqlBabelParserImplConstants.CAST;
  private static final int CREATE = SqlBabelParserImplConstants.CREATE;
  private static final int TABLE = SqlBabelParserImplConstants.TABLE;

  /** {@code sql} with the four words quoted where they are names; the same text when none is. */
  static String quote(String sql) {
    String lower = sql.toLowerCase(Locale.ROOT);
    if (!lower.contains("date") && !lower.contains("time") && !lower.contains("interval")) {
      return sql;
    }
    List<DdlParsing.Tok> tokens = DdlParsing.tokens(sql);
    boolean createTable = tokens.size() > 2 && tokens.get(0).kind() == CREATE && tokens.get(1).kind() == TABLE;
    Deque<Boolean> castParens = new ArrayDeque<>();
    StringBuilder out = null;
    int copied = 0;
    for (int i = 0; i < tokens.size(); i++) {
      DdlParsing.Tok t = tokens.get(i);
      DdlParsing.Tok prev = i > 0 ? tokens.get(i - 1) : null;
      if (t.kind() == LPAREN) {
        castParens.push(prev != null && (prev.kind() == CAST || prev.image().equalsIgnoreCase("try_cast")
            || prev.image().equalsIgnoreCase("safe_cast")));
        continue;
      }
      if (t.kind() == RPAREN) {
        if (!castParens.isEmpty()) {
          castParens.pop();
        }
        continue;
      }
      if (t.kind() != DATE && t.kind() != TIME && t.kind() != TIMESTAMP && t.kind() != INTERVAL) {
        continue;
      }
      DdlParsing.Tok next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
      boolean inCast = !castParens.isEmpty() && castParens.peek();
      boolean columnList = createTable && castParens.size() == 1;
      if (!isName(prev, next, inCast, columnList)) {
        continue;
      }
      if (out == null) {
        out = new StringBuilder(sql.length() + 8);
      }
      out.append(sql, copied, t.start()).append('"').append(t.image().toLowerCase(Locale.ROOT)).append('"');
      copied = t.end();
    }
    return out == null ? sql : out.append(sql, copied, sql.length()).toString();
  }

  private static boolean isName(DdlParsing.Tok prev, DdlParsing.Tok next, boolean inCast, boolean columnList) {
    if (next != null && (next.image().startsWith("'") || next.kind() == LPAREN)) {
      return false; // a literal, or a type with a precision
    }
    if (next != null && (is(next, "with") || is(next, "without") || is(next, "zone"))) {
      return false; // TIMESTAMP WITH TIME ZONE, TIME ZONE
    }
    if (prev == null) {
      return true;
    }
    if (is(prev, "::") || is(prev, "with") || is(prev, "without") || is(prev, "local") || is(prev, "at")) {
      return false;
    }
    if (prev.kind() == AS && inCast) {
      return false;
    }
    // In CREATE TABLE's column list a name follows "(" or ","; the word after a name is its type.
    return !columnList || prev.kind() == LPAREN || prev.kind() == COMMA;
  }

  private static boolean is(DdlParsing.Tok t, String image) {
    return t.image().equalsIgnoreCase(image);
  }
}
