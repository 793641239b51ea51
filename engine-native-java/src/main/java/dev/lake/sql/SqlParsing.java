package dev.lake.sql;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.parser.babel.SqlBabelParserImpl;
import org.apache.calcite.sql.validate.SqlConformanceEnum;

/**
 * Turns SQL text into Calcite's syntax tree with Calcite's Babel parser: Calcite's grammar with
 * {@code CREATE TABLE} and most keywords usable as names ({@code day}, {@code value},
 * {@code year}, {@code type}, {@code name}, ... as PostgreSQL allows). Unquoted identifiers fold
 * to lower case, quoted ones keep their case; LIMIT/OFFSET are accepted (lenient conformance).
 * What lake's DDL adds beyond Babel is read by {@link DdlParsing}.
 *
 * <p>Calcite has no {@code FOR VERSION AS OF n}; the text is rewritten to {@code FOR SYSTEM_TIME
 * AS OF n} (outside string literals, quoted identifiers and comments) before parsing, and the
 * binder reads the integer as a version. The rewrite makes the text longer, so positions of
 * errors are mapped back to the text the user wrote ({@link #originalPosition}).
 */
final class SqlParsing {
  private SqlParsing() {}

  private static final SqlParser.Config CONFIG = SqlParser.config()
      .withUnquotedCasing(Casing.TO_LOWER)
      .withQuotedCasing(Casing.UNCHANGED)
      .withCaseSensitive(true)
      .withConformance(SqlConformanceEnum.LENIENT)
      .withParserFactory(SqlBabelParserImpl.FACTORY);

  private static final Pattern FOR_VERSION =
      Pattern.compile("(?i)FOR\\s+VERSION\\s+AS\\s+OF\\b");
  private static final Pattern FOR_TIMESTAMP =
      Pattern.compile("(?i)FOR\\s+TIMESTAMP\\s+AS\\s+OF\\b");

  /**
   * Parses one query.
   *
   * @throws SqlException SYNTAX with Calcite's line and column when the text does not parse
   */
  static SqlNode parse(String sql) {
    String text = SelectListUnnest.mark(ListTypeText.rewrite(rewriteTimeTravel(sql)));
    try {
      return parseRewritten(text);
    } catch (SqlException e) {
      throw originalPosition(sql, e);
    }
  }

  private static final String REPLACEMENT = "FOR SYSTEM_TIME AS OF";

  /**
   * The same error with its line/column (and the position in its message) moved from the
   * rewritten text back to {@code sql}.
   */
  static SqlException originalPosition(String sql, SqlException e) {
    if (e.line() <= 0) {
      return e;
    }
    String[] lines = sql.split("\n", -1);
    if (e.line() > lines.length) {
      return e;
    }
    String line = lines[e.line() - 1];
    int column = e.column();
    Matcher m = FOR_VERSION.matcher(line);
    int shift = 0;
    while (m.find()) {
      int start = m.start() + 1 + shift;
      int grown = REPLACEMENT.length() - (m.end() - m.start());
      if (column >= start + REPLACEMENT.length()) {
        column -= grown;
      } else if (column > start) {
        column = start;
      }
      shift += grown;
    }
    if (column == e.column()) {
      return e;
    }
    String message = e.getMessage()
        .replace("line " + e.line() + ", column " + e.column(), "line " + e.line() + ", column " + column);
    return new SqlException(e.kind(), message, e.line(), column, e.getCause());
  }

  private static SqlNode parseRewritten(String text) {
    try {
      return SqlParser.create(text, CONFIG).parseStmt();
    } catch (SqlParseException e) {
      SqlParserPos pos = e.getPos();
      String message = firstLine(e.getMessage());
      return throwSyntax(message, pos);
    } catch (RuntimeException e) {
      throw new SqlException(SqlException.Kind.SYNTAX, firstLine(String.valueOf(e.getMessage())), 0, 0, e);
    }
  }

  private static SqlNode throwSyntax(String message, SqlParserPos pos) {
    int line = pos == null ? 0 : pos.getLineNum();
    int column = pos == null ? 0 : pos.getColumnNum();
    throw new SqlException(SqlException.Kind.SYNTAX, "syntax error: " + message, line, column, null);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unparseable statement";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).trim();
  }

  /** Rewrites {@code FOR VERSION AS OF} outside literals, quoted names and comments. */
  static String rewriteTimeTravel(String sql) {
    StringBuilder out = new StringBuilder(sql.length() + 8);
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      int skipped = skipQuotedOrComment(sql, i);
      if (skipped > i) {
        out.append(sql, i, skipped);
        i = skipped;
      } else if ((c == 'f' || c == 'F') && (i == 0 || !isWordChar(sql.charAt(i - 1)))) {
        Matcher version = FOR_VERSION.matcher(sql).region(i, n);
        if (version.lookingAt()) {
          out.append("FOR SYSTEM_TIME AS OF");
          i = version.end();
          continue;
        }
        Matcher timestamp = FOR_TIMESTAMP.matcher(sql).region(i, n);
        if (timestamp.lookingAt()) {
          int[] lineCol = lineColumn(sql, i);
          throw new SqlException(SqlException.Kind.UNSUPPORTED,
              "FOR TIMESTAMP AS OF is not supported yet; use FOR VERSION AS OF",
              lineCol[0], lineCol[1], null);
        }
        out.append(c);
        i++;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /**
   * Where the string literal, quoted name or comment starting at {@code i} of {@code sql} ends
   * (past its closing quote, doubled quotes inside it included), or {@code i} when none starts there.
   */
  static int skipQuotedOrComment(String sql, int i) {
    int n = sql.length();
    char c = sql.charAt(i);
    if (c == '\'' || c == '"' || c == '`') {
      int end = i + 1;
      while (end < n) {
        if (sql.charAt(end) == c) {
          if (end + 1 < n && sql.charAt(end + 1) == c) {
            end += 2;
            continue;
          }
          break;
        }
        end++;
      }
      return Math.min(end + 1, n);
    }
    if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
      int end = sql.indexOf('\n', i);
      return end < 0 ? n : end;
    }
    if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
      int end = sql.indexOf("*/", i + 2);
      return end < 0 ? n : end + 2;
    }
    return i;
  }

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }

  private static int[] lineColumn(String sql, int offset) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < offset; i++) {
      if (sql.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new int[] {line, column};
  }

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
