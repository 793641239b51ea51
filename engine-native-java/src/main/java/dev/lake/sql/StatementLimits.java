package dev.lake.sql;

import java.util.Locale;
import java.util.Set;

/**
 * Stated limits on one SQL statement's text, checked by one linear scan of the text before
 * anything parses or recurses over it. The parser, the validator and the planner all
 * recurse over the statement, so a statement nested deeper than the thread's stack allows would
 * overflow it at a depth that depends on which code path meets it first; a select list of
 * millions of columns would plan for minutes. These limits refuse such statements at once with a
 * message naming the limit and where the statement crosses it.
 *
 * <p>What the scan measures (it tokenizes like SQL: string literals, quoted identifiers and
 * comments are skipped as units):
 *
 * <ul>
 *   <li><b>statement bytes</b>: the UTF-8 length of the text;
 *   <li><b>expression depth</b>: parentheses, brackets and {@code CASE ... END} each add one
 *       level, and each operator ({@code + - * / % || = < > AND OR NOT IS LIKE BETWEEN IN ...})
 *       adds one within its comma-separated item. A left-deep chain of n operators parses into a
 *       tree n deep, so this count is an upper bound on the depth of the parse tree; a
 *       1,000-term {@code OR} of comparisons counts about 2,000;
 *   <li><b>select-list width</b>: the items of one {@code SELECT} list;
 *   <li><b>list terms</b>: the items of any one comma-separated list (an {@code IN} list, a
 *       function's arguments, {@code VALUES} rows, a select list);
 *   <li><b>identifier length</b>: the characters of one identifier, quoted or not.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class StatementLimits {

  /**
   * The defaults: 1 MiB of text, expression depth 2,500 (a 1,000-term {@code OR} of comparisons
   * counts about 2,000; the worst shape measured, a left-deep arithmetic chain planned
   * relationally, needs under 40 MiB of stack at that depth), 10,000 select items, 100,000 list
   * terms, 128-character identifiers (the parser's own bound).
   */
  public static final StatementLimits DEFAULTS = new StatementLimits(1 << 20, 2_500, 10_000, 100_000, 128);

  private static final Set<String> OPERATOR_WORDS = Set.of("and", "or", "not", "is", "like",
      "ilike", "rlike", "similar", "between", "in", "escape", "when", "then", "else", "over",
      "filter", "within", "collate", "any", "some", "all", "exists", "unique", "distinct");
  private static final Set<String> SELECT_LIST_ENDS = Set.of("from", "where", "group", "having",
      "order", "limit", "offset", "fetch", "union", "intersect", "except", "minus", "window",
      "qualify", "into");
  private static final int EXCERPT = 32;

  private final int maxStatementBytes;
  private final int maxDepth;
  private final int maxSelectColumns;
  private final int maxListTerms;
  private final int maxIdentifierLength;

  /**
   * @throws IllegalArgumentException if a limit is not positive
   */
  public StatementLimits(int maxStatementBytes, int maxDepth, int maxSelectColumns,
      int maxListTerms, int maxIdentifierLength) {
    this.maxStatementBytes = positive(maxStatementBytes, "maxStatementBytes");
    this.maxDepth = positive(maxDepth, "maxDepth");
    this.maxSelectColumns = positive(maxSelectColumns, "maxSelectColumns");
    this.maxListTerms = positive(maxListTerms, "maxListTerms");
    this.maxIdentifierLength = positive(maxIdentifierLength, "maxIdentifierLength");
  }

  public int maxStatementBytes() {
    return maxStatementBytes;
  }

  public int maxDepth() {
    return maxDepth;
  }

  public int maxSelectColumns() {
    return maxSelectColumns;
  }

  public int maxListTerms() {
    return maxListTerms;
  }

  public int maxIdentifierLength() {
    return maxIdentifierLength;
  }

  public StatementLimits withMaxStatementBytes(int bytes) {
    return new StatementLimits(bytes, maxDepth, maxSelectColumns, maxListTerms, maxIdentifierLength);
  }

  public StatementLimits withMaxDepth(int depth) {
    return new StatementLimits(maxStatementBytes, depth, maxSelectColumns, maxListTerms, maxIdentifierLength);
  }

  public StatementLimits withMaxSelectColumns(int columns) {
    return new StatementLimits(maxStatementBytes, maxDepth, columns, maxListTerms, maxIdentifierLength);
  }

  public StatementLimits withMaxListTerms(int terms) {
    return new StatementLimits(maxStatementBytes, maxDepth, maxSelectColumns, terms, maxIdentifierLength);
  }

  public StatementLimits withMaxIdentifierLength(int length) {
    return new StatementLimits(maxStatementBytes, maxDepth, maxSelectColumns, maxListTerms, length);
  }

  /**
   * Checks {@code sql} against every limit in one pass over its characters, using no recursion
   * and memory proportional to its nesting only. Nothing else is checked: a statement within the
   * limits may still be invalid SQL.
   *
   * @throws SqlException RESOURCE_EXHAUSTED naming the limit when the text is too long, nests too
   *     deep, or has too many select items or list terms; INVALID for an identifier longer than
   *     the identifier limit (a name no table or column can have). Positions are 1-based lines
   *     and columns of the text.
   */
  public void check(String sql) {
    long bytes = utf8Length(sql);
    if (bytes > maxStatementBytes) {
      throw new SqlException(SqlException.Kind.RESOURCE_EXHAUSTED, String.format(Locale.ROOT,
          "the statement is %,d bytes long; the limit is %,d bytes (statement bytes)",
          bytes, maxStatementBytes));
    }
    new Scan(sql).run();
  }

  /** One group: the whole text, a parenthesis, a bracket or a CASE; its items are comma-separated. */
  private static final class Group {
    final boolean isCase;
    int operators;       // in the current item
    int deepestChild;    // deepest group closed in the current item
    int deepest;         // deepest item so far
    int terms = 1;
    boolean selectList;
    int columns;

    Group(boolean isCase) {
      this.isCase = isCase;
    }

    void endItem() {
      deepest = Math.max(deepest, operators + deepestChild);
      operators = 0;
      deepestChild = 0;
    }

    int depth() {
      endItem();
      return deepest + 1;
    }
  }

  private final class Scan {
    private final String sql;
    private final int n;
    private Group[] stack = new Group[16];
    private int size;
    private int i;

    Scan(String sql) {
      this.sql = sql;
      this.n = sql.length();
    }

    void run() {
      push(false, 0);
      while (i < n) {
        char c = sql.charAt(i);
        if (Character.isWhitespace(c)) {
          i++;
        } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
          int end = sql.indexOf('\n', i);
          i = end < 0 ? n : end + 1;
        } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
          int end = sql.indexOf("*/", i + 2);
          i = end < 0 ? n : end + 2;
        } else if (c == '\'') {
          i = skipQuoted(i, '\'', false);
        } else if (c == '"' || c == '`') {
          i = skipQuoted(i, c, true);
        } else if (Character.isLetter(c) || c == '_') {
          word();
        } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1)))) {
          number();
        } else if (c == '(' || c == '[') {
          push(false, i);
          i++;
        } else if (c == ')' || c == ']') {
          pop();
          i++;
        } else if (c == ',') {
          comma();
          i++;
        } else {
          symbol(c);
        }
      }
      while (size > 1) {
        pop();
      }
      checkDepth(top().depth(), n);
    }

    private Group top() {
      return stack[size - 1];
    }

    private void push(boolean isCase, int at) {
      if (size > maxDepth) {
        throw depth(size, at);
      }
      if (size == stack.length) {
        stack = java.util.Arrays.copyOf(stack, size * 2);
      }
      stack[size++] = new Group(isCase);
    }

    // An unbalanced close is left for the parser to report; it ends no group here.
    private void pop() {
      if (size <= 1) {
        return;
      }
      Group closed = stack[--size];
      int depth = closed.depth();
      checkDepth(depth, i);
      Group parent = top();
      parent.deepestChild = Math.max(parent.deepestChild, depth);
      checkDepth(parent.operators + parent.deepestChild + size, i);
    }

    private void checkDepth(int depth, int at) {
      if (depth > maxDepth) {
        throw depth(depth, at);
      }
    }

    private SqlException depth(int depth, int at) {
      return refusal(SqlException.Kind.RESOURCE_EXHAUSTED, String.format(Locale.ROOT,
          "the statement nests expressions more than %,d deep (parentheses, CASE and operators"
              + " counted); the limit is %,d (expression depth)", Math.min(depth, maxDepth), maxDepth),
          at);
    }

    private void operator() {
      Group g = top();
      g.operators++;
      // Checked as it grows, so an operator chain is refused at the operator that crosses the limit.
      if (g.operators + g.deepestChild + size > maxDepth) {
        throw depth(g.operators + g.deepestChild + size, i);
      }
    }

    private void comma() {
      Group g = top();
      g.endItem();
      g.terms++;
      if (g.terms > maxListTerms) {
        throw refusal(SqlException.Kind.RESOURCE_EXHAUSTED, String.format(Locale.ROOT,
            "a list in the statement has more than %,d terms; the limit is %,d (list terms)",
            maxListTerms, maxListTerms), i);
      }
      if (g.selectList) {
        g.columns++;
        if (g.columns > maxSelectColumns) {
          throw refusal(SqlException.Kind.RESOURCE_EXHAUSTED, String.format(Locale.ROOT,
              "the select list has more than %,d columns; the limit is %,d (select-list width)",
              maxSelectColumns, maxSelectColumns), i);
        }
      }
    }

    private void word() {
      int start = i;
      while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_'
          || sql.charAt(i) == '$')) {
        i++;
      }
      int length = i - start;
      if (length > maxIdentifierLength) {
        throw identifier(start, length, sql.substring(start, start + Math.min(length, EXCERPT)));
      }
      if (length > 10) {
        return;
      }
      String word = sql.substring(start, i).toLowerCase(Locale.ROOT);
      Group g = top();
      if (word.equals("select")) {
        g.selectList = true;
        g.columns = 1;
      } else if (SELECT_LIST_ENDS.contains(word)) {
        g.selectList = false;
      } else if (word.equals("case")) {
        push(true, start);
      } else if (word.equals("end") && g.isCase) {
        pop();
      } else if (OPERATOR_WORDS.contains(word)) {
        operator();
      }
    }

    private void number() {
      while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
        char c = sql.charAt(i++);
        if ((c == 'e' || c == 'E') && i < n && (sql.charAt(i) == '+' || sql.charAt(i) == '-')) {
          i++;
        }
      }
    }

    private void symbol(char c) {
      switch (c) {
        case '+', '-', '*', '/', '%', '=', '<', '>', '!', '|', '^', '&', '~', ':' -> {
          int start = i;
          i++;
          // A multi-character operator (<=, <>, ||, ::, !=) counts once.
          while (i < n && i - start < 3 && "=<>|:!".indexOf(sql.charAt(i)) >= 0) {
            i++;
          }
          operator();
        }
        default -> i++;
      }
    }

    /** Skips a quoted literal or identifier (doubled quotes escape); returns the index after it. */
    private int skipQuoted(int start, char quote, boolean identifier) {
      int j = start + 1;
      int chars = 0;
      while (j < n) {
        if (sql.charAt(j) == quote) {
          if (j + 1 < n && sql.charAt(j + 1) == quote) {
            j += 2;
            chars++;
            continue;
          }
          break;
        }
        j++;
        chars++;
      }
      if (identifier && chars > maxIdentifierLength) {
        throw identifier(start, chars, sql.substring(start + 1, Math.min(j, start + 1 + EXCERPT)));
      }
      return Math.min(j + 1, n);
    }

    private SqlException identifier(int at, int length, String excerpt) {
      return refusal(SqlException.Kind.INVALID, String.format(Locale.ROOT,
          "identifier '%s...' is %,d characters long; the limit is %,d characters (identifier length)",
          excerpt, length, maxIdentifierLength), at);
    }

    private SqlException refusal(SqlException.Kind kind, String message, int at) {
      int line = 1;
      int column = 1;
      for (int k = 0; k < at && k < n; k++) {
        if (sql.charAt(k) == '\n') {
          line++;
          column = 1;
        } else {
          column++;
        }
      }
      return new SqlException(kind, message + " at line " + line + ", column " + column,
          line, column, null);
    }
  }

  private static long utf8Length(String s) {
    long bytes = 0;
    for (int k = 0; k < s.length(); k++) {
      char c = s.charAt(k);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && k + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(k + 1))) {
        bytes += 4;
        k++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static int positive(int value, String what) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be > 0, got " + value);
    }
    return value;
  }

  @Override
  public String toString() {
    return "StatementLimits[bytes=" + maxStatementBytes + ", depth=" + maxDepth + ", selectColumns="
        + maxSelectColumns + ", listTerms=" + maxListTerms + ", identifier=" + maxIdentifierLength + "]";
  }
}
