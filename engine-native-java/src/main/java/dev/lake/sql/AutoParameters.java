package dev.lake.sql;

import dev.lake.exec.SqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Set;

/**
 * Simple auto-parameterization, as SQL Server's: a query's literals that only stand as the
 * right-hand operand of a comparison with a name ({@code id = 17}, {@code t.score >= -2.5},
 * {@code name <> 'it''s'}) become {@code ?} in the text the plan cache keys by, so statements
 * that differ only in them share one validated, optimised plan, each binding its values as the
 * constants of its physical plan (block pruning and pushdown see them as literals).
 *
 * <p>One lexical pass, no parse. Conservative by construction: only unsigned or negative
 * integer and decimal literals (no exponent) and plain string literals (no prefix), only right
 * after {@code = <> != < > <= >=} whose left neighbour is a name, and only when the literal is
 * followed by the end, {@code )}, {@code ;} or a clause keyword (AND, OR, ORDER, GROUP, ...), so
 * no literal inside arithmetic, a function call, LIKE, IN, BETWEEN, LIMIT, an ordinal or the
 * select list is touched. A value compared more than once stays a literal everywhere, so the
 * optimiser still sees the comparisons are equal (it factors them out of an OR). Only statements that begin with SELECT or WITH and have no {@code ?}
 * of their own. A value is bound only when its parameter's validated type keeps the literal's
 * meaning ({@link #keepsMeaning}); otherwise the caller plans the literal text.
 */
final class AutoParameters {
  private AutoParameters() {}

  /** The text with {@code ?} for its literals and their values, in order. */
  record Normalized(String text, List<Object> values) {}

  private static final Set<String> FOLLOWERS = Set.of("AND", "OR", "ORDER", "GROUP", "LIMIT",
      "OFFSET", "UNION", "EXCEPT", "INTERSECT", "HAVING", "FETCH", "WINDOW", "MINUS", "WHERE",
      "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS");
  private static final Set<String> NOT_NAMES = Set.of("AND", "OR", "NOT", "WHEN", "THEN", "ELSE",
      "CASE", "END", "SELECT", "WHERE", "ON", "HAVING", "BY", "AS", "IS", "NULL", "TRUE", "FALSE",
      "ALL", "ANY", "SOME", "DISTINCT", "FROM", "JOIN", "IN", "LIKE", "BETWEEN", "DATE", "TIME",
      "TIMESTAMP", "INTERVAL");
  private static final BigInteger TWO_TO_53 = BigInteger.ONE.shiftLeft(53);

  /**
   * The normalized form of {@code sql}, or null when no literal qualifies (or the statement is
   * not a plain query, or holds a {@code ?}).
   */
  static Normalized of(String sql) {
    List<Token> tokens = tokens(sql);
    if (tokens == null || tokens.isEmpty()) {
      return null;
    }
    String first = tokens.getFirst().upper();
    if (!first.equals("SELECT") && !first.equals("WITH")) {
      return null;
    }
    List<Candidate> candidates = new ArrayList<>();
    for (int i = 2; i < tokens.size(); i++) {
      Token t = tokens.get(i);
      Token op = tokens.get(i - 1);
      int valueStart = t.start;
      Object value;
      int literal = i;
      if (t.kind == Kind.NUMBER || t.kind == Kind.STRING) {
        value = t.kind == Kind.NUMBER ? number(t.text(sql)) : string(t.text(sql));
      } else if (t.kind == Kind.SYMBOL && t.text(sql).equals("-") && i + 1 < tokens.size()
          && tokens.get(i + 1).kind == Kind.NUMBER && tokens.get(i + 1).start == t.end) {
        literal = i + 1;
        value = number(tokens.get(i + 1).text(sql));
        value = value == null ? null : value instanceof BigInteger b ? b.negate() : ((BigDecimal) value).negate();
      } else {
        continue;
      }
      if (value == null || op.kind != Kind.SYMBOL || !isComparison(op.text(sql))
          || !isName(tokens.get(i - 2), sql)
          || !followerOk(literal + 1 < tokens.size() ? tokens.get(literal + 1) : null, sql)) {
        continue;
      }
      candidates.add(new Candidate(valueStart, tokens.get(literal).end, value));
      i = literal;
    }
    // A value compared more than once stays a literal: the optimiser sees the comparisons are
    // equal (TPC-H Q19's l_shipinstruct = 'DELIVER IN PERSON' in each OR branch factors out of
    // the OR and into the scan, Q7's nation names become one IN list), which distinct ? hide.
    Map<Object, Integer> uses = new HashMap<>();
    candidates.forEach(c -> uses.merge(c.value, 1, Integer::sum));
    StringBuilder out = null;
    List<Object> values = new ArrayList<>();
    int copied = 0;
    for (Candidate c : candidates) {
      if (uses.get(c.value) > 1) {
        continue;
      }
      if (out == null) {
        out = new StringBuilder(sql.length());
      }
      out.append(sql, copied, c.start).append('?');
      copied = c.end;
      values.add(c.value);
    }
    if (out == null) {
      return null;
    }
    out.append(sql, copied, sql.length());
    return new Normalized(out.toString(), List.copyOf(values));
  }

  private record Candidate(int start, int end, Object value) {}

  /**
   * Whether binding {@code value} (a literal of the text) to a parameter of {@code type} compares
   * exactly as the literal does: integers and decimals with integer, decimal and DOUBLE
   * operands (a DOUBLE only for values it holds exactly), strings with VARCHAR.
   */
  static boolean keepsMeaning(Object value, SqlType type) {
    return switch (type.kind()) {
      case INT8, INT16, INT32, INT64, DECIMAL -> value instanceof BigInteger || value instanceof BigDecimal;
      case FLOAT64 -> value instanceof BigInteger b ? b.abs().compareTo(TWO_TO_53) <= 0
          : value instanceof BigDecimal d && d.unscaledValue().abs().compareTo(TWO_TO_53) <= 0
              && d.scale() == 0;
      case UTF8 -> value instanceof String;
      default -> false;
    };
  }

  private static boolean isComparison(String op) {
    return switch (op) {
      case "=", "<>", "!=", "<", ">", "<=", ">=" -> true;
      default -> false;
    };
  }

  private static boolean isName(Token t, String sql) {
    return t.kind == Kind.QUOTED_NAME || t.kind == Kind.WORD && !NOT_NAMES.contains(t.upper());
  }

  private static boolean followerOk(Token t, String sql) {
    if (t == null) {
      return true;
    }
    return switch (t.kind) {
      case SYMBOL -> t.text(sql).equals(")") || t.text(sql).equals(";");
      case WORD -> FOLLOWERS.contains(t.upper());
      default -> false;
    };
  }

  // An integer (BigInteger) or a decimal without exponent (BigDecimal); null for anything else.
  private static Object number(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= '0' && c <= '9' || c == '.')) {
        return null;
      }
    }
    if (text.indexOf('.') < 0) {
      return new BigInteger(text);
    }
    if (text.indexOf('.') != text.lastIndexOf('.') || text.equals(".")) {
      return null;
    }
    return new BigDecimal(text);
  }

  private static String string(String text) {
    return text.substring(1, text.length() - 1).replace("''", "'");
  }

  private enum Kind { WORD, QUOTED_NAME, NUMBER, STRING, SYMBOL, PARAMETER }

  private record Token(Kind kind, int start, int end, String upper) {
    String text(String sql) {
      return sql.substring(start, end);
    }
  }

  // The tokens of sql without comments and whitespace; null if it holds a ? or something the
  // pass does not lex with certainty (an unterminated quote or comment, a prefixed string).
  private static List<Token> tokens(String sql) {
    List<Token> tokens = new ArrayList<>();
    int n = sql.length();
    int i = 0;
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        int eol = sql.indexOf('\n', i);
        i = eol < 0 ? n : eol + 1;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int close = sql.indexOf("*/", i + 2);
        if (close < 0) {
          return null;
        }
        i = close + 2;
      } else if (c == '\'' || c == '"') {
        int j = i + 1;
        while (true) {
          if (j >= n) {
            return null;
          }
          if (sql.charAt(j) == c) {
            if (j + 1 < n && sql.charAt(j + 1) == c) {
              j += 2;
              continue;
            }
            break;
          }
          j++;
        }
        if (c == '\'' && !tokens.isEmpty() && tokens.getLast().end == i
            && tokens.getLast().kind == Kind.WORD) {
          return null;
        }
        tokens.add(new Token(c == '\'' ? Kind.STRING : Kind.QUOTED_NAME, i, j + 1, ""));
        i = j + 1;
      } else if (c >= '0' && c <= '9' || c == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1))) {
        int j = i;
        while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '.'
            || sql.charAt(j) == '_')) {
          j++;
        }
        tokens.add(new Token(Kind.NUMBER, i, j, ""));
        i = j;
      } else if (Character.isLetter(c) || c == '_' || c == '$') {
        int j = i;
        while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_'
            || sql.charAt(j) == '$')) {
          j++;
        }
        tokens.add(new Token(Kind.WORD, i, j, sql.substring(i, j).toUpperCase(Locale.ROOT)));
        i = j;
      } else if (c == '?') {
        return null;
      } else {
        int j = i + 1;
        if (j < n && (c == '<' && (sql.charAt(j) == '>' || sql.charAt(j) == '=')
            || c == '>' && sql.charAt(j) == '=' || c == '!' && sql.charAt(j) == '='
            || c == '|' && sql.charAt(j) == '|')) {
          j++;
        }
        tokens.add(new Token(Kind.SYMBOL, i, j, ""));
        i = j;
      }
    }
    return tokens;
  }
}
