package dev.lake.cli.sql;

import java.util.List;
import java.util.Locale;
import org.jline.reader.CompletingParsedLine;
import org.jline.reader.EOFError;
import org.jline.reader.ParsedLine;
import org.jline.reader.Parser;

/**
 * Tells JLine when the typed text is a whole input: statements ended by {@code ;} (a semicolon
 * in a literal or a comment does not count), or a shell command ({@code \q}, {@code quit},
 * ...). Until then Enter continues the statement on a new line, under the secondary prompt, and
 * the history keeps the whole statement as one entry.
 */
final class SqlLineParser implements Parser {

  @Override
  public ParsedLine parse(String line, int cursor, ParseContext context) {
    if (context == ParseContext.ACCEPT_LINE && !isShellCommand(line)
        && !StatementSplitter.complete(line)) {
      throw new EOFError(-1, -1, "statement not ended by ;", ";");
    }
    return new Whole(line, cursor);
  }

  /** {@code \q}, {@code \?} and other backslash commands, {@code quit}, {@code exit}, {@code help}. */
  static boolean isShellCommand(String line) {
    String text = line.strip();
    if (text.startsWith("\\")) {
      return true;
    }
    if (text.endsWith(";")) {
      text = text.substring(0, text.length() - 1).strip();
    }
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "quit", "exit", "help" -> true;
      default -> false;
    };
  }

  @Override
  public boolean isEscapeChar(char ch) {
    return false;
  }

  /** The whole input as one word: lake sql completes nothing. */
  private record Whole(String line, int cursor) implements CompletingParsedLine {
    @Override
    public CharSequence escape(CharSequence candidate, boolean complete) {
      return candidate;
    }

    @Override
    public int rawWordCursor() {
      return cursor;
    }

    @Override
    public int rawWordLength() {
      return line.length();
    }

    @Override
    public String word() {
      return line;
    }

    @Override
    public int wordCursor() {
      return cursor;
    }

    @Override
    public int wordIndex() {
      return 0;
    }

    @Override
    public List<String> words() {
      return List.of(line);
    }
  }
}
