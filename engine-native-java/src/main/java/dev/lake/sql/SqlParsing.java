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
 * <p>Calcite has no {@code FOR VERSION AS OF n} or {@code FOR TIMESTAMP AS OF t}; the text is
 * rewritten to {@code FOR SYSTEM_TIME AS OF n} (outside string literals, quoted identifiers and
 * comments) before parsing; the planner reads an integer as a version and a time as the version
 * committed then ({@link TimeTravel}). The rewrite makes the text longer, so positions of
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
  /** Either time-travel spelling, for mapping positions back. */
  private static final Pattern FOR_VERSION_OR_TIMESTAMP =
      Pattern.compile("(?i)FOR\\s+(VERSION|TIMESTAMP)\\s+AS\\s+OF\\b");
  private static final Pattern FOR_TIMESTAMP =
      Pattern.compile("(?i)FOR\\s+TIMESTAMP\\s+AS\\s+OF\\b");

  /**
   * Parses one query.
   *
   * @throws SqlException SYNTAX with Calcite's line and column when the text does not parse
   */
  static SqlNode parse(String sql) {
    String text = DateTimeNames.quote(SelectListUnnest.mark(ListTypeText.rewrite(rewriteTimeTravel(sql))));
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
    Matcher m = FOR_VERSION_OR_TIMESTAMP.matcher(line);
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
          // The time after it tells the planner to read by commit time (TimeTravel).
          out.append("FOR SYSTEM_TIME AS OF");
          i = timestamp.end();
          continue;
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

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }

  /** UNSUPPORTED: "{@code what} is not supported yet", at {@code at}'s position in the text. */
  static SqlException unsupported(String what, SqlNode at) {
    org.apache.calcite.sql.parser.SqlParserPos pos =
        at == null ? org.apache.calcite.sql.parser.SqlParserPos.ZERO : at.getParserPosition();
    String where = pos.getLineNum() > 0
        ? " (line " + pos.getLineNum() + ", column " + pos.getColumnNum() + ")" : "";
    return new SqlException(SqlException.Kind.UNSUPPORTED, what + " is not supported yet" + where,
        pos.getLineNum(), pos.getColumnNum(), null);
  }
}
