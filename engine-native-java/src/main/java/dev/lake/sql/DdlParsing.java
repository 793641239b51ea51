package dev.lake.sql;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.calcite.sql.parser.babel.SimpleCharStream;
import org.apache.calcite.sql.parser.babel.SqlBabelParserImplConstants;
import org.apache.calcite.sql.parser.babel.SqlBabelParserImplTokenManager;
import org.apache.calcite.sql.parser.babel.Token;
import org.apache.calcite.sql.parser.babel.TokenMgrError;

/**
 * The statements and clauses lake's DDL adds to what Calcite's Babel parser reads, recognised
 * over Calcite's own tokens (so quoting, comments and case follow the SQL parser exactly):
 *
 * <ul>
 *   <li>{@code CREATE SCHEMA [IF NOT EXISTS] s}, {@code DROP SCHEMA [IF EXISTS] s [RESTRICT |
 *       CASCADE]} and {@code DROP TABLE [IF EXISTS] t}, which Babel has no grammar for: they are
 *       recognised here whole;
 *   <li>in {@code CREATE TABLE}, a {@code WITH (key = 'value', ...)} before {@code AS} or the
 *       end, blanked out of the text and returned as options;
 *   <li>in a {@code CREATE TABLE} column list, PostgreSQL's array brackets {@code FLOAT[512]} and
 *       {@code VARCHAR[]}, rewritten to Calcite's {@code FLOAT ARRAY}; every collection of the
 *       column list, written either way, is listed in text order with its fixed size (or -1);
 *   <li>in a {@code CREATE TABLE} column list, a column's inline {@code PRIMARY KEY} (rewritten
 *       to {@code NOT NULL}) and {@code UNIQUE} (taken out): lake declares no keys and enforces
 *       none; likewise table-level {@code [CONSTRAINT c] PRIMARY KEY (...)} and {@code UNIQUE
 *       (...)}, taken out, the primary key's columns returned.
 * </ul>
 *
 * Calcite's Babel parser then parses the rewritten {@code CREATE TABLE} and every other statement.
 */
final class DdlParsing {
  private DdlParsing() {}

  /** A statement of lake's DDL that Calcite has no node for. */
  sealed interface Ddl permits CreateSchema, DropSchema, DropTable {}

  record CreateSchema(String schema, boolean ifNotExists) implements Ddl {}

  record DropSchema(String schema, boolean ifExists, boolean cascade) implements Ddl {}

  /** {@code name}: one to three parts ({@code [lake.]schema.table} or {@code table}). */
  record DropTable(List<String> name, boolean ifExists) implements Ddl {}

  /** A {@code CREATE TABLE} text made parseable by Calcite, with what was taken out of it. */
  /**
   * A {@code CREATE TABLE} text made parseable by Calcite, with what was taken out of it; {@code
   * primaryKey} holds the columns a table-level {@code PRIMARY KEY (...)} names, as written.
   */
  record CreateTableText(String text, Map<String, String> options, List<Integer> arraySizes,
      List<String> primaryKey) {}

  /** Calcite's token kinds, by name, so this file reads as SQL. */
  private static final int EOF = SqlBabelParserImplConstants.EOF;
  private static final int CREATE = SqlBabelParserImplConstants.CREATE;
  private static final int DROP = SqlBabelParserImplConstants.DROP;
  private static final int SCHEMA = SqlBabelParserImplConstants.SCHEMA;
  private static final int TABLE = SqlBabelParserImplConstants.TABLE;
  private static final int IF = SqlBabelParserImplConstants.IF;
  private static final int NOT = SqlBabelParserImplConstants.NOT;
  private static final int EXISTS = SqlBabelParserImplConstants.EXISTS;
  private static final int CASCADE = SqlBabelParserImplConstants.CASCADE;
  private static final int RESTRICT = SqlBabelParserImplConstants.RESTRICT;
  private static final int WITH = SqlBabelParserImplConstants.WITH;
  private static final int PRIMARY = SqlBabelParserImplConstants.PRIMARY;
  private static final int KEY = SqlBabelParserImplConstants.KEY;
  private static final int UNIQUE = SqlBabelParserImplConstants.UNIQUE;
  private static final int CONSTRAINT = SqlBabelParserImplConstants.CONSTRAINT;
  private static final int NULL = SqlBabelParserImplConstants.NULL;
  private static final int AS = SqlBabelParserImplConstants.AS;
  private static final int ARRAY = SqlBabelParserImplConstants.ARRAY;
  private static final int MULTISET = SqlBabelParserImplConstants.MULTISET;
  private static final int LPAREN = SqlBabelParserImplConstants.LPAREN;
  private static final int RPAREN = SqlBabelParserImplConstants.RPAREN;
  private static final int LBRACKET = SqlBabelParserImplConstants.LBRACKET;
  private static final int RBRACKET = SqlBabelParserImplConstants.RBRACKET;
  private static final int COMMA = SqlBabelParserImplConstants.COMMA;
  private static final int DOT = SqlBabelParserImplConstants.DOT;
  private static final int EQ = SqlBabelParserImplConstants.EQ;
  private static final int SEMICOLON = SqlBabelParserImplConstants.SEMICOLON;
  private static final int QUOTED_STRING = SqlBabelParserImplConstants.QUOTED_STRING;
  private static final int UNSIGNED_INTEGER = SqlBabelParserImplConstants.UNSIGNED_INTEGER_LITERAL;
  private static final int IDENTIFIER = SqlBabelParserImplConstants.IDENTIFIER;
  private static final int QUOTED_IDENTIFIER = SqlBabelParserImplConstants.QUOTED_IDENTIFIER;

  /** One token and its character offsets in the text ({@code end} exclusive). */
  record Tok(int kind, String image, int start, int end, int line, int column) {}

  /**
   * The statement as one of lake's own DDL statements, if it starts like one.
   *
   * @throws SqlException SYNTAX naming the line and column when it starts like one but is not
   */
  static Optional<Ddl> recognize(String sql) {
    List<Tok> tokens = tokens(sql);
    if (tokens.size() < 2) {
      return Optional.empty();
    }
    int first = tokens.get(0).kind();
    int second = tokens.get(1).kind();
    if (first == CREATE && second == SCHEMA) {
      Cursor c = new Cursor(tokens, 2);
      boolean ifNotExists = c.accept(IF);
      if (ifNotExists) {
        c.expect(NOT, "NOT");
        c.expect(EXISTS, "EXISTS");
      }
      String schema = c.identifier("a schema name");
      c.end();
      return Optional.of(new CreateSchema(schema, ifNotExists));
    }
    if (first == DROP && second == SCHEMA) {
      Cursor c = new Cursor(tokens, 2);
      boolean ifExists = c.accept(IF);
      if (ifExists) {
        c.expect(EXISTS, "EXISTS");
      }
      String schema = c.identifier("a schema name");
      boolean cascade = c.accept(CASCADE);
      if (!cascade) {
        c.accept(RESTRICT);
      }
      c.end();
      return Optional.of(new DropSchema(schema, ifExists, cascade));
    }
    if (first == DROP && second == TABLE) {
      Cursor c = new Cursor(tokens, 2);
      boolean ifExists = c.accept(IF);
      if (ifExists) {
        c.expect(EXISTS, "EXISTS");
      }
      List<String> name = new ArrayList<>();
      name.add(c.identifier("a table name"));
      while (c.accept(DOT)) {
        name.add(c.identifier("a name after '.'"));
      }
      if (name.size() > 3) {
        throw c.error("a table name has at most three parts ([lake.]schema.table)");
      }
      c.end();
      return Optional.of(new DropTable(List.copyOf(name), ifExists));
    }
    return Optional.empty();
  }

  /** Whether the statement changes something (DDL or DML) rather than reads. */
  static boolean isUpdate(String sql) {
    int first = firstKind(sql);
    return first == CREATE || first == DROP || first == SqlBabelParserImplConstants.INSERT
        || first == SqlBabelParserImplConstants.DELETE || first == SqlBabelParserImplConstants.UPDATE
        || first == SqlBabelParserImplConstants.MERGE || first == SqlBabelParserImplConstants.UPSERT
        || first == SqlBabelParserImplConstants.ALTER || first == SqlBabelParserImplConstants.TRUNCATE;
  }

  /** Whether the statement is a {@code CREATE TABLE}. */
  static boolean isCreateTable(String sql) {
    List<Tok> tokens = tokens(sql);
    return tokens.size() >= 2 && tokens.get(0).kind() == CREATE && tokens.get(1).kind() == TABLE;
  }

  /**
   * Takes lake's additions out of a {@code CREATE TABLE} text: the {@code WITH (...)} options
   * (blanked, so positions of errors stay where the user wrote them) and the array brackets of
   * its column list.
   *
   * @throws SqlException SYNTAX for a malformed {@code WITH} list or bracket
   */
  static CreateTableText createTable(String sql) {
    List<Tok> tokens = tokens(sql);
    StringBuilder text = new StringBuilder(sql);
    Map<String, String> options = new LinkedHashMap<>();
    int depth = 0;
    int columnsStart = -1;
    int columnsEnd = -1;
    int withAt = -1;
    for (int i = 2; i < tokens.size(); i++) {
      Tok t = tokens.get(i);
      if (t.kind() == LPAREN) {
        if (depth == 0 && columnsStart < 0 && withAt < 0 && i > 2
            && tokens.get(i - 1).kind() != WITH) {
          columnsStart = i;
        }
        depth++;
      } else if (t.kind() == RPAREN) {
        depth--;
        if (depth == 0 && columnsStart >= 0 && columnsEnd < 0) {
          columnsEnd = i;
        }
      } else if (depth == 0 && t.kind() == AS) {
        break;
      } else if (depth == 0 && t.kind() == WITH && i + 1 < tokens.size()
          && tokens.get(i + 1).kind() == LPAREN) {
        withAt = i;
        break;
      }
    }
    if (withAt >= 0) {
      Cursor c = new Cursor(tokens, withAt + 1);
      c.expect(LPAREN, "'('");
      do {
        String key = c.identifier("an option name").toLowerCase(Locale.ROOT);
        c.expect(EQ, "'='");
        Tok value = c.next();
        String literal = switch (value.kind()) {
          case QUOTED_STRING -> unquote(value.image(), '\'');
          case IDENTIFIER, UNSIGNED_INTEGER -> value.image();
          default -> throw syntax("expected a value for option '" + key + "' but found '"
              + value.image() + "'", value);
        };
        if (options.put(key, literal) != null) {
          throw syntax("option '" + key + "' is given twice", value);
        }
      } while (c.accept(COMMA));
      Tok close = c.expect(RPAREN, "')'");
      for (int p = tokens.get(withAt).start(); p < close.end(); p++) {
        if (text.charAt(p) != '\n') {
          text.setCharAt(p, ' ');
        }
      }
    }
    List<Integer> sizes = new ArrayList<>();
    List<String> primaryKey = new ArrayList<>();
    if (columnsStart >= 0 && columnsEnd > columnsStart) {
      // Rewrite right to left so earlier offsets stay valid; sizes are collected left to right.
      List<Rewrite> rewrites = new ArrayList<>();
      int nesting = 0;
      for (int i = columnsStart + 1; i < columnsEnd; i++) {
        Tok t = tokens.get(i);
        int keyEnd = nesting == 0 && t.kind() == COMMA ? tableKeyEnd(tokens, i + 1, primaryKey) : -1;
        if (keyEnd >= 0) {
          // A table-level PRIMARY KEY (...) or UNIQUE (...), which Calcite's Babel parser has no
          // grammar for, is taken out with its comma.
          rewrites.add(new Rewrite(t.start(), tokens.get(keyEnd).end(), ""));
          i = keyEnd;
        } else if (t.kind() == LPAREN) {
          nesting++;
        } else if (t.kind() == RPAREN) {
          nesting--;
        } else if (nesting == 0 && t.kind() == PRIMARY && tokens.get(i + 1).kind() == KEY
            && tokens.get(i + 2).kind() != LPAREN) {
          // An inline PRIMARY KEY declares the column NOT NULL (as in PostgreSQL); the key is
          // not enforced.
          boolean notNull = tokens.get(i - 1).kind() == NULL && tokens.get(i - 2).kind() == NOT;
          rewrites.add(new Rewrite(t.start(), tokens.get(i + 1).end(), notNull ? "" : "NOT NULL"));
          i++;
        } else if (nesting == 0 && t.kind() == UNIQUE && tokens.get(i + 1).kind() != LPAREN) {
          rewrites.add(new Rewrite(t.start(), t.end(), ""));
        } else if (t.kind() == ARRAY || t.kind() == MULTISET) {
          sizes.add(-1);
        } else if (t.kind() == LBRACKET) {
          Tok next = tokens.get(i + 1);
          int size = -1;
          int close = i + 1;
          if (next.kind() == UNSIGNED_INTEGER) {
            try {
              size = Integer.parseInt(next.image());
            } catch (NumberFormatException e) {
              throw syntax("array size " + next.image() + " is too large", next);
            }
            if (size < 1) {
              throw syntax("an array's fixed size must be at least 1", next);
            }
            close = i + 2;
          }
          if (tokens.get(close).kind() != RBRACKET) {
            throw syntax("expected ']' or an array size but found '" + tokens.get(close).image()
                + "'", tokens.get(close));
          }
          sizes.add(size);
          rewrites.add(new Rewrite(t.start(), tokens.get(close).end(), " ARRAY"));
          i = close;
        }
      }
      for (int r = rewrites.size() - 1; r >= 0; r--) {
        Rewrite w = rewrites.get(r);
        int width = w.end() - w.start();
        text.replace(w.start(), w.end(), width > w.replacement().length()
            ? w.replacement() + " ".repeat(width - w.replacement().length()) : w.replacement());
      }
    }
    return new CreateTableText(text.toString(), Map.copyOf(options), List.copyOf(sizes), List.copyOf(primaryKey));
  }

  /**
   * The index of the closing parenthesis of the table-level {@code [CONSTRAINT name] PRIMARY KEY
   * (...)} or {@code UNIQUE (...)} at {@code at}, adding a primary key's columns to {@code
   * primaryKey}; -1 when there is none at {@code at}.
   */
  private static int tableKeyEnd(List<Tok> tokens, int at, List<String> primaryKey) {
    int i = at;
    if (tokens.get(i).kind() == CONSTRAINT) {
      i += 2;
    }
    boolean primary = tokens.get(i).kind() == PRIMARY && tokens.get(i + 1).kind() == KEY;
    if (primary) {
      i++;
    } else if (tokens.get(i).kind() != UNIQUE) {
      return -1;
    }
    if (tokens.get(++i).kind() != LPAREN) {
      return -1;
    }
    List<String> columns = new ArrayList<>();
    for (i++; tokens.get(i).kind() != RPAREN; i++) {
      Tok t = tokens.get(i);
      if (t.kind() == QUOTED_IDENTIFIER) {
        columns.add(unquote(t.image(), '"'));
      } else if (t.kind() == IDENTIFIER || Character.isLetter(t.image().charAt(0))) {
        // A plain name, or a non-reserved keyword used as one (c, value, ...).
        columns.add(t.image().toLowerCase(Locale.ROOT));
      } else if (t.kind() != COMMA) {
        return -1;
      }
    }
    if (primary && !primaryKey.isEmpty()) {
      throw new SqlException(SqlException.Kind.INVALID, "a table has at most one PRIMARY KEY, at line "
          + tokens.get(at).line() + ", column " + tokens.get(at).column(), tokens.get(at).line(),
          tokens.get(at).column(), null);
    }
    if (primary) {
      primaryKey.addAll(columns);
    }
    return i;
  }

  /** Text {@code [start, end)} of a statement replaced by {@code replacement} (padded to its width). */
  private record Rewrite(int start, int end, String replacement) {}

  private static final class Cursor {
    private final List<Tok> tokens;
    private int at;

    Cursor(List<Tok> tokens, int at) {
      this.tokens = tokens;
      this.at = at;
    }

    Tok peek() {
      return tokens.get(Math.min(at, tokens.size() - 1));
    }

    Tok next() {
      Tok t = peek();
      if (at < tokens.size() - 1) {
        at++;
      }
      return t;
    }

    boolean accept(int kind) {
      if (peek().kind() == kind) {
        next();
        return true;
      }
      return false;
    }

    Tok expect(int kind, String what) {
      Tok t = peek();
      if (t.kind() != kind) {
        throw syntax("expected " + what + " but found " + describe(t), t);
      }
      return next();
    }

    /** An identifier: unquoted (folded to lower case, keywords allowed) or quoted (as written). */
    String identifier(String what) {
      Tok t = peek();
      if (t.kind() == QUOTED_IDENTIFIER) {
        next();
        String name = unquote(t.image(), '"');
        if (name.isEmpty()) {
          throw syntax("an empty quoted identifier is not a name", t);
        }
        return name;
      }
      if (t.kind() == IDENTIFIER || (t.kind() != EOF && isWord(t.image()))) {
        next();
        return t.image().toLowerCase(Locale.ROOT);
      }
      throw syntax("expected " + what + " but found " + describe(t), t);
    }

    void end() {
      accept(SEMICOLON);
      Tok t = peek();
      if (t.kind() != EOF) {
        throw syntax("unexpected " + describe(t) + " at the end of the statement", t);
      }
    }

    SqlException error(String message) {
      return syntax(message, peek());
    }
  }

  private static boolean isWord(String image) {
    if (image.isEmpty() || !(Character.isLetter(image.charAt(0)) || image.charAt(0) == '_')) {
      return false;
    }
    for (int i = 1; i < image.length(); i++) {
      char ch = image.charAt(i);
      if (!(Character.isLetterOrDigit(ch) || ch == '_' || ch == '$')) {
        return false;
      }
    }
    return true;
  }

  private static String describe(Tok t) {
    return t.kind() == EOF ? "the end of the statement" : "'" + t.image() + "'";
  }

  private static String unquote(String image, char quote) {
    String inner = image.substring(1, image.length() - 1);
    return inner.replace(String.valueOf(quote) + quote, String.valueOf(quote));
  }

  private static SqlException syntax(String message, Tok at) {
    return new SqlException(SqlException.Kind.SYNTAX, "syntax error: " + message + " at line "
        + at.line() + ", column " + at.column(), at.line(), at.column(), null);
  }

  /**
   * Calcite's tokens of {@code sql} (comments skipped), ending with EOF. Text that does not even
   * tokenize yields the tokens before the problem and EOF: the parser reports it precisely.
   */
  static List<Tok> tokens(String sql) {
    // Tabs as spaces: the same offsets, and one column per character.
    SimpleCharStream stream = new SimpleCharStream(new StringReader(sql.replace('\t', ' ')), 1, 1);
    SqlBabelParserImplTokenManager manager = new SqlBabelParserImplTokenManager(stream);
    manager.SwitchTo(SqlBabelParserImplConstants.DQID);
    int[] lineStarts = lineStarts(sql);
    List<Tok> tokens = new ArrayList<>();
    while (true) {
      Token t;
      try {
        t = manager.getNextToken();
      } catch (TokenMgrError e) {
        tokens.add(new Tok(EOF, "", sql.length(), sql.length(), 0, 0));
        return tokens;
      }
      if (t.kind == EOF) {
        tokens.add(new Tok(EOF, "", sql.length(), sql.length(), t.beginLine, t.beginColumn));
        return tokens;
      }
      int start = offset(lineStarts, t.beginLine, t.beginColumn);
      int end = offset(lineStarts, t.endLine, t.endColumn) + 1;
      tokens.add(new Tok(t.kind, t.image, start, end, t.beginLine, t.beginColumn));
    }
  }

  /** The kind of the statement's first token (comments skipped), without reading further. */
  private static int firstKind(String sql) {
    SqlBabelParserImplTokenManager manager = new SqlBabelParserImplTokenManager(
        new SimpleCharStream(new StringReader(sql), 1, 1));
    manager.SwitchTo(SqlBabelParserImplConstants.DQID);
    try {
      return manager.getNextToken().kind;
    } catch (TokenMgrError e) {
      return EOF;
    }
  }

  private static int[] lineStarts(String sql) {
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    for (int i = 0; i < sql.length(); i++) {
      if (sql.charAt(i) == '\n') {
        starts.add(i + 1);
      }
    }
    return starts.stream().mapToInt(Integer::intValue).toArray();
  }

  private static int offset(int[] lineStarts, int line, int column) {
    return lineStarts[Math.max(0, Math.min(line, lineStarts.length) - 1)] + column - 1;
  }
}
