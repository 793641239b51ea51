package dev.lake.cli.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into statements at semicolons, fed piece by piece (a script as it is read, the
 * lines of an interactive statement as they are typed). A semicolon inside a string literal
 * ({@code '...'}, with {@code ''} for a quote), a quoted identifier ({@code "..."}), a line
 * comment ({@code -- ...}) or a block comment ({@code /* ... *}{@code /}, nested as PostgreSQL
 * nests them) does not end a statement. Statements holding nothing but white space and comments
 * are dropped.
 */
public final class StatementSplitter {

  private enum State { CODE, STRING, IDENTIFIER, LINE_COMMENT, BLOCK_COMMENT }

  private final StringBuilder current = new StringBuilder();
  private State state = State.CODE;
  private int commentDepth;
  /** The previous character inside a block comment, 0 right after an opener or a closer. */
  private char commentPrev;
  private boolean hasCode;
  /** A character held back because it may begin a two-character token ({@code --}, a comment). */
  private char held;

  /** Feeds more text; returns the statements it completed, trimmed, without their semicolons. */
  public List<String> feed(CharSequence text) {
    List<String> done = new ArrayList<>();
    for (int i = 0; i < text.length(); i++) {
      accept(text.charAt(i), done);
    }
    return done;
  }

  /**
   * The statement begun but not ended by a semicolon, trimmed, or empty when nothing but white
   * space and comments is pending. A script's last statement may omit its semicolon.
   */
  public String remainder() {
    String pending = current.toString() + (held == 0 ? "" : String.valueOf(held));
    return hasCode || (held != 0 && !Character.isWhitespace(held)) ? pending.strip() : "";
  }

  /** Whether a statement has begun and not yet ended (or a literal or comment is still open). */
  public boolean pending() {
    return !remainder().isEmpty() || state == State.STRING || state == State.IDENTIFIER
        || state == State.BLOCK_COMMENT;
  }

  /** Whether {@code text} holds only whole statements, each ended by a semicolon. */
  public static boolean complete(CharSequence text) {
    StatementSplitter splitter = new StatementSplitter();
    splitter.feed(text);
    return !splitter.pending();
  }

  /** Splits a whole script; its last statement may omit the semicolon. */
  public static List<String> split(CharSequence script) {
    StatementSplitter splitter = new StatementSplitter();
    List<String> statements = new ArrayList<>(splitter.feed(script));
    String last = splitter.remainder();
    if (!last.isEmpty()) {
      statements.add(last);
    }
    return statements;
  }

  private void accept(char c, List<String> done) {
    if (held != 0) {
      char first = held;
      held = 0;
      if (first == '-' && c == '-') {
        current.append("--");
        state = State.LINE_COMMENT;
        return;
      }
      if (first == '/' && c == '*') {
        current.append("/*");
        state = State.BLOCK_COMMENT;
        commentDepth = 1;
        commentPrev = 0;
        return;
      }
      code(first, done);
    }
    switch (state) {
      case CODE -> {
        if (c == '-' || c == '/') {
          held = c;
        } else {
          code(c, done);
        }
      }
      case STRING -> {
        current.append(c);
        if (c == '\'') {
          state = State.CODE; // a doubled quote re-enters STRING at the next character
        }
      }
      case IDENTIFIER -> {
        current.append(c);
        if (c == '"') {
          state = State.CODE;
        }
      }
      case LINE_COMMENT -> {
        current.append(c);
        if (c == '\n') {
          state = State.CODE;
        }
      }
      case BLOCK_COMMENT -> {
        current.append(c);
        if (commentPrev == '*' && c == '/') {
          commentPrev = 0;
          if (--commentDepth == 0) {
            state = State.CODE;
          }
        } else if (commentPrev == '/' && c == '*') {
          commentPrev = 0;
          commentDepth++;
        } else {
          commentPrev = c;
        }
      }
    }
  }

  private void code(char c, List<String> done) {
    if (c == ';') {
      if (hasCode) {
        done.add(current.toString().strip());
      }
      current.setLength(0);
      hasCode = false;
      return;
    }
    current.append(c);
    if (c == '\'') {
      state = State.STRING;
    } else if (c == '"') {
      state = State.IDENTIFIER;
    }
    if (!Character.isWhitespace(c)) {
      hasCode = true;
    }
  }
}
