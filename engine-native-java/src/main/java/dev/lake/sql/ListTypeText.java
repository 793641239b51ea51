package dev.lake.sql;

import java.util.Locale;

/**
 * PostgreSQL's spelling of a list type in expressions, {@code T[]} ({@code '[1, 2]'::FLOAT[]},
 * {@code CAST(? AS REAL[])}), rewritten before parsing to Calcite's {@code T ARRAY}: an empty
 * {@code []} right after a word (other than {@code ARRAY}) outside literals, quoted names and
 * comments. Positions after it on the same line move by the four characters added.
 */
final class ListTypeText {
  private ListTypeText() {}

  static String rewrite(String sql) {
    if (!sql.contains("]")) {
      return sql;
    }
    StringBuilder out = new StringBuilder(sql.length() + 8);
    int n = sql.length();
    int i = 0;
    int wordStart = -1;
    int wordEnd = -1;
    while (i < n) {
      char c = sql.charAt(i);
      int skipped = SqlParsing.skipQuotedOrComment(sql, i);
      if (skipped > i) {
        out.append(sql, i, skipped);
        i = skipped;
        wordEnd = -1;
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
          i++;
        }
        out.append(sql, start, i);
        boolean letter = Character.isLetter(sql.charAt(start)) || sql.charAt(start) == '_';
        wordStart = letter ? start : -1;
        wordEnd = letter ? i : -1;
      } else if (c == '[' && wordEnd >= 0 && !sql.substring(wordStart, wordEnd).toUpperCase(Locale.ROOT).equals("ARRAY")) {
        int close = i + 1;
        while (close < n && Character.isWhitespace(sql.charAt(close))) {
          close++;
        }
        if (close < n && sql.charAt(close) == ']') {
          out.append(" ARRAY");
          i = close + 1;
        } else {
          out.append(c);
          i++;
        }
        wordEnd = -1;
      } else {
        out.append(c);
        i++;
        if (!Character.isWhitespace(c)) {
          wordEnd = -1;
        }
      }
    }
    return out.toString();
  }
}
