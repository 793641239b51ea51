package dev.lake.cli.sql;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lake sql}: a terminal client for any Flight SQL endpoint. */
@Command(
    name = "sql",
    description = {
      "Runs SQL against a lake Flight SQL endpoint (or any Flight SQL server).",
      "",
      "With a statement, runs it and exits. With -f FILE, or with statements piped to standard"
          + " input, runs them one after the other (separated by ;) and stops at the first that"
          + " fails. Otherwise opens an interactive prompt with line editing and history:"
          + " statements end with ; and may span lines; \\q, quit or Ctrl-D leaves; Ctrl-C"
          + " cancels the running statement.",
      "",
      "Examples:",
      "  lake sql",
      "  lake sql \"SELECT robot, count(*) FROM demo.episodes GROUP BY robot\"",
      "  lake sql --format csv -f report.sql > report.csv",
      "  echo \"SELECT * FROM demo.episodes LIMIT 5;\" | lake sql --format json",
      ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every statement succeeded",
      "1:a statement failed (its error is on standard error)",
      "2:bad command line",
      "3:the endpoint could not be reached"
    })
public final class SqlCommand implements Callable<Integer> {

  public static final int STATEMENT_FAILED = 1;
  public static final int UNREACHABLE = 3;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Shows this help and exits.")
  boolean help;

  @CommandLine.Mixin ConnectionOptions connection;

  @Option(names = "--tls-ca", defaultValue = "${env:LAKE_TLS_CA}", paramLabel = "FILE",
      description = "PEM CA certificate(s) to trust for a grpc+tls endpoint, e.g. the tls_ca of"
          + " `lake cluster --secure` (default: $LAKE_TLS_CA, else the JVM's trust store).")
  Path tlsCa;

  @Option(names = "--format", converter = ResultFormat.Converter.class, defaultValue = "table",
      paramLabel = "table|csv|json",
      description = "table: aligned, with row counts and timings (default); csv: RFC 4180 with a"
          + " header line; json: one JSON object per row. csv and json write nothing else to"
          + " standard output.")
  ResultFormat format;

  @Option(names = {"-f", "--file"}, paramLabel = "FILE",
      description = "Runs the statements in FILE (- for standard input).")
  String file;

  @Option(names = "--history", paramLabel = "FILE",
      defaultValue = "${env:LAKE_SQL_HISTORY:-${sys:user.home}/.lake_sql_history}",
      description = "History file of the interactive prompt (default: $LAKE_SQL_HISTORY or"
          + " ${DEFAULT-VALUE}).")
  Path history;

  @Parameters(arity = "0..1", paramLabel = "STATEMENT",
      description = "SQL to run (several statements may be separated by ;).")
  String statement;

  private final InputStream stdin;
  private final BooleanSupplier interactiveTerminal;

  /** Reads standard input, and prompts when it and standard output are a terminal. */
  public SqlCommand() {
    this(System.in, SqlCommand::onTerminal);
  }

  /** For tests and embedding: {@code stdin} in place of standard input; {@code interactive} decides whether to prompt. */
  public SqlCommand(InputStream stdin, BooleanSupplier interactive) {
    this.stdin = stdin;
    this.interactiveTerminal = interactive;
  }

  @Override
  public Integer call() {
    if (statement != null && file != null) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "give either a STATEMENT or -f FILE, not both");
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (SqlSession session = open()) {
      if (statement != null) {
        return script(session, new StringReader(statement), out, err);
      }
      if (file != null) {
        try (Reader script = openScript()) {
          return script(session, script, out, err);
        }
      }
      if (interactiveTerminal.getAsBoolean()) {
        try (Terminal terminal = TerminalBuilder.builder().system(true).nativeSignals(true).build()) {
          return interactive(session, terminal);
        }
      }
      return script(session, new InputStreamReader(stdin, StandardCharsets.UTF_8), out, err);
    } catch (IOException e) {
      err.println("lake sql: " + (file == null ? "standard input" : file) + ": " + e);
      err.flush();
      return STATEMENT_FAILED;
    }
  }

  /** The interactive prompt on {@code terminal}, with this command's options. */
  public int interactive(Terminal terminal) {
    try (SqlSession session = open()) {
      return interactive(session, terminal);
    }
  }

  private int interactive(SqlSession session, Terminal terminal) {
    Path historyFile = history.toAbsolutePath();
    return new SqlShell(session, format, terminal, historyFile).run();
  }

  private SqlSession open() {
    if (tlsCa != null && !java.nio.file.Files.isReadable(tlsCa)) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--tls-ca: cannot read " + tlsCa);
    }
    try {
      return SqlSession.open(connection.endpoint, connection.token, tlsCa);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--token: " + e.getMessage());
    }
  }

  private Reader openScript() {
    if (file.equals("-")) {
      return new InputStreamReader(stdin, StandardCharsets.UTF_8);
    }
    try {
      return Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "-f: cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
    }
  }

  /** Runs the statements as they are read; stops at the first that fails and returns its code. */
  private int script(SqlSession session, Reader text, PrintWriter out, PrintWriter err)
      throws IOException {
    StatementRunner runner = new StatementRunner(session, format, false, out, err, new Cancellation());
    StatementSplitter splitter = new StatementSplitter();
    BufferedReader lines = new BufferedReader(text);
    String line;
    while ((line = lines.readLine()) != null) {
      for (String next : splitter.feed(line + "\n")) {
        int code = exitCode(runner.run(next));
        if (code != 0) {
          return code;
        }
      }
    }
    String last = splitter.remainder();
    return last.isEmpty() ? 0 : exitCode(runner.run(last));
  }

  private static int exitCode(StatementRunner.Result result) {
    return switch (result) {
      case OK -> 0;
      case FAILED -> STATEMENT_FAILED;
      case UNREACHABLE -> UNREACHABLE;
    };
  }

  private static boolean onTerminal() {
    java.io.Console console = System.console();
    return console != null && console.isTerminal();
  }
}
