package dev.lake.cli.sql;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;

/**
 * The interactive prompt of {@code lake sql}: line editing and a history kept in a file (JLine),
 * statements over several lines ended by {@code ;}, {@code \q}, {@code quit} or Ctrl-D to leave.
 * Ctrl-C while a statement runs cancels its Flight call and returns to the prompt; at the prompt
 * it discards the line being typed. A failing statement is reported and the session goes on.
 */
public final class SqlShell {

  static final String PROMPT = "lake> ";
  static final String CONTINUATION = "   -> ";

  private final SqlSession session;
  private final ResultFormat format;
  private final Terminal terminal;
  private final Path historyFile;

  public SqlShell(SqlSession session, ResultFormat format, Terminal terminal, Path historyFile) {
    this.session = session;
    this.format = format;
    this.terminal = terminal;
    this.historyFile = historyFile;
  }

  /** Runs until the user leaves; returns the exit code, 0. */
  public int run() {
    LineReader reader = LineReaderBuilder.builder()
        .terminal(terminal)
        .appName("lake sql")
        .parser(new SqlLineParser())
        .variable(LineReader.HISTORY_FILE, historyFile)
        .variable(LineReader.SECONDARY_PROMPT_PATTERN, CONTINUATION)
        .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true) // '!' is SQL, not history
        .option(LineReader.Option.HISTORY_IGNORE_SPACE, false)
        .build();
    PrintWriter out = terminal.writer();
    Cancellation cancellation = new Cancellation();
    StatementRunner runner = new StatementRunner(session, format, true, out, out, cancellation);
    Terminal.SignalHandler previous = terminal.handle(Terminal.Signal.INT, s -> cancellation.cancel());
    try {
      out.println("lake sql on " + session.endpoint()
          + ". End statements with ;  leave with \\q or Ctrl-D;  \\? for help.");
      out.flush();
      while (true) {
        String input;
        try {
          input = reader.readLine(PROMPT);
        } catch (UserInterruptException e) {
          continue; // Ctrl-C at the prompt drops what was typed
        } catch (EndOfFileException e) {
          break;
        }
        if (SqlLineParser.isShellCommand(input)) {
          if (!shellCommand(input.strip(), out)) {
            break;
          }
          continue;
        }
        for (String statement : StatementSplitter.split(input)) {
          runner.run(statement);
        }
      }
    } finally {
      terminal.handle(Terminal.Signal.INT, previous);
      try {
        reader.getHistory().save();
      } catch (java.io.IOException e) {
        out.println("lake sql: could not save the history to " + historyFile + ": " + e.getMessage());
      }
      out.flush();
    }
    return 0;
  }

  /** Runs a shell command; returns false when it asks to leave. */
  private static boolean shellCommand(String command, PrintWriter out) {
    String word = command.endsWith(";") ? command.substring(0, command.length() - 1).strip() : command;
    switch (word.toLowerCase(Locale.ROOT)) {
      case "\\q", "quit", "exit" -> {
        return false;
      }
      case "\\?", "\\h", "help" -> out.println("""
          Type SQL statements ended by ; (they may span lines). Ctrl-C cancels a running statement.
            \\q, quit, exit, Ctrl-D   leave
            \\?, help                 this help
          Up and down arrows walk the history; Ctrl-R searches it.""");
      default -> out.println("unknown command " + word + "; \\? lists the commands");
    }
    out.flush();
    return true;
  }
}
