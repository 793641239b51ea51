package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.cli.sql.SqlCommand;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lake sql} against a real lake server (the one {@code lake dev} runs, in this JVM, on a
 * free port): one-shot statements in each format, scripts from standard input, failures and
 * their exit codes, and the interactive prompt driven through a JLine terminal over pipes.
 * Expected rows come from the generator that fills the demo table.
 */
class LakeSqlTest {

  private static final Pattern TIME = Pattern.compile("Time: \\d+\\.\\d{3} m?s");

  @TempDir static Path dataDir;
  static DevServer server;
  static String endpoint;
  /** episode_id, robot and reward (null or plain text) of the demo rows picked by {@link #PICKED}. */
  static List<String[]> picked = new ArrayList<>();
  static String pickedIds;

  record Run(int exit, String out, String err) {}

  @BeforeAll
  static void start() {
    server = DevServer.start(dataDir, "127.0.0.1", 0);
    endpoint = "grpc://127.0.0.1:" + server.port();
    // the first three episodes and the first one without a reward
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = DemoEpisodes.generate(allocator)) {
      VarCharVector robot = (VarCharVector) root.getVector("robot");
      DecimalVector reward = (DecimalVector) root.getVector("reward");
      int firstNull = -1;
      for (int i = 0; i < root.getRowCount() && firstNull < 0; i++) {
        if (reward.isNull(i) && i >= 3) {
          firstNull = i;
        }
      }
      List<String> ids = new ArrayList<>();
      for (int i : new int[] {0, 1, 2, firstNull}) {
        BigDecimal value = reward.isNull(i) ? null : reward.getObject(i);
        picked.add(new String[] {String.valueOf(i + 1), robot.getObject(i).toString(),
            value == null ? null : value.toPlainString()});
        ids.add(String.valueOf(i + 1));
      }
      pickedIds = String.join(", ", ids);
    }
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String pickedQuery() {
    return "SELECT episode_id, robot, reward FROM demo.episodes WHERE episode_id IN (" + pickedIds
        + ") ORDER BY episode_id";
  }

  private static Run sql(String stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new SqlCommand(
        new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), () -> false));
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));
    int exit = command.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void oneShotQueryPrintsAnAlignedTableWithRowCountAndTime() {
    Run run = sql("", "--endpoint", endpoint, pickedQuery());
    assertEquals(0, run.exit(), run.err());
    int robotWidth = Math.max(5, picked.stream().mapToInt(r -> r[1].length()).max().orElseThrow());
    int rewardWidth = Math.max(6, picked.stream().mapToInt(r -> r[2] == null ? 4 : r[2].length()).max().orElseThrow());
    List<String> expected = new ArrayList<>();
    expected.add(" episode_id | " + pad("robot", robotWidth) + " | " + left("reward", rewardWidth));
    expected.add("-".repeat(12) + "+" + "-".repeat(robotWidth + 2) + "+" + "-".repeat(rewardWidth + 2));
    for (String[] row : picked) {
      expected.add(" " + left(row[0], 10) + " | " + pad(row[1], robotWidth) + " | "
          + left(row[2] == null ? "NULL" : row[2], rewardWidth));
    }
    expected.add("(4 rows)");
    List<String> lines = run.out().lines().toList();
    assertEquals(expected, lines.subList(0, lines.size() - 1), run.out());
    assertTrue(TIME.matcher(lines.getLast()).matches(), lines.getLast());
    assertEquals("", run.err());
  }

  private static String pad(String text, int width) {
    return text + " ".repeat(width - text.length());
  }

  private static String left(String text, int width) {
    return " ".repeat(width - text.length()) + text;
  }

  @Test
  void oneShotQueryAsCsvHasAHeaderTheRowsAndNothingElse() {
    Run run = sql("", "--endpoint", endpoint, "--format", "csv", pickedQuery());
    assertEquals(0, run.exit(), run.err());
    StringBuilder expected = new StringBuilder("episode_id,robot,reward\n");
    for (String[] row : picked) {
      expected.append(row[0]).append(',').append(row[1]).append(',')
          .append(row[2] == null ? "" : row[2]).append('\n');
    }
    assertEquals(expected.toString(), run.out());
    assertEquals("", run.err());
  }

  @Test
  void oneShotQueryAsJsonWritesOneObjectPerRow() {
    Run run = sql("", "--endpoint", endpoint, "--format", "JSON", pickedQuery());
    assertEquals(0, run.exit(), run.err());
    StringBuilder expected = new StringBuilder();
    for (String[] row : picked) {
      expected.append("{\"episode_id\":").append(row[0]).append(",\"robot\":\"").append(row[1])
          .append("\",\"reward\":").append(row[2] == null ? "null" : row[2]).append("}\n");
    }
    assertEquals(expected.toString(), run.out());
  }

  @Test
  void aLargeResultStreamsEveryRow() {
    Run run = sql("", "--endpoint", endpoint, "--format", "csv",
        "SELECT episode_id FROM demo.episodes ORDER BY episode_id");
    assertEquals(0, run.exit(), run.err());
    List<String> lines = run.out().lines().toList();
    assertEquals(DemoEpisodes.ROWS + 1, lines.size());
    assertEquals("episode_id", lines.getFirst());
    for (int i = 1; i <= DemoEpisodes.ROWS; i++) {
      assertEquals(String.valueOf(i), lines.get(i));
    }
  }

  @Test
  void aFailingStatementPrintsTheStatusAndExitsWithTheStatementCode() {
    Run run = sql("", "--endpoint", endpoint, "SELECT no_such_column FROM demo.episodes");
    assertEquals(SqlCommand.STATEMENT_FAILED, run.exit());
    assertEquals("", run.out());
    assertTrue(run.err().startsWith("ERROR: INVALID_ARGUMENT: "), run.err());
    assertTrue(run.err().contains("no_such_column"), run.err());
    assertEquals(1, run.err().lines().count(), run.err());
  }

  @Test
  void aStatementTheServerDoesNotSupportIsReportedAsUnimplemented() {
    Run run = sql("", "--endpoint", endpoint, "DELETE FROM demo.episodes WHERE episode_id = 1");
    assertEquals(SqlCommand.STATEMENT_FAILED, run.exit());
    assertTrue(run.err().startsWith("ERROR: UNIMPLEMENTED: "), run.err());
    Run count = sql("", "--endpoint", endpoint, "--format", "csv", "SELECT count(*) AS n FROM demo.episodes");
    assertEquals("n\n" + DemoEpisodes.ROWS + "\n", count.out());
  }

  @Test
  void anUnreachableEndpointIsNamedAndHasItsOwnExitCode() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    Run run = sql("", "--endpoint", "grpc://127.0.0.1:" + closed, "SELECT 1");
    assertEquals(SqlCommand.UNREACHABLE, run.exit(), run.err());
    assertTrue(run.err().startsWith("ERROR: UNAVAILABLE: cannot reach grpc://127.0.0.1:" + closed + ": "), run.err());
    assertEquals(1, run.err().lines().count(), "one line, no stack trace: " + run.err());
    assertEquals("", run.out());
  }

  @Test
  void tlsToAPlaintextServerFailsAsUnreachableNamingTheEndpoint() {
    Run run = sql("", "--endpoint", "grpc+tls://127.0.0.1:" + server.port(), "SELECT 1");
    assertEquals(SqlCommand.UNREACHABLE, run.exit(), run.err());
    assertTrue(run.err().startsWith("ERROR: UNAVAILABLE: cannot reach grpc+tls://127.0.0.1:" + server.port()),
        run.err());
    assertEquals(1, run.err().lines().count(), run.err());
  }

  @Test
  void aScriptOnStandardInputRunsEveryStatementInOrder() {
    String script = """
        -- counts; then a literal holding a semicolon
        SELECT count(*) AS n FROM demo.episodes;
        SELECT 'a;b' AS s
          ;
        SELECT episode_id FROM demo.episodes
        WHERE episode_id = 2 /* no semicolon; at the end */
        """;
    Run run = sql(script, "--endpoint", endpoint, "--format", "csv");
    assertEquals(0, run.exit(), run.err());
    assertEquals("n\n" + DemoEpisodes.ROWS + "\ns\na;b\nepisode_id\n2\n", run.out());
  }

  @Test
  void aScriptStopsAtTheFirstFailingStatement() {
    Run run = sql("SELECT 1 AS first;\nSELECT nope FROM demo.episodes;\nSELECT 3 AS third;\n",
        "--endpoint", endpoint, "--format", "csv");
    assertEquals(SqlCommand.STATEMENT_FAILED, run.exit());
    assertEquals("first\n1\n", run.out(), run.err());
    assertTrue(run.err().startsWith("ERROR: "), run.err());
  }

  @Test
  void aScriptFileRunsLikeStandardInput(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("q.sql");
    Files.writeString(file, "SELECT 7 AS seven; SELECT 'x' AS x;");
    Run run = sql("", "--endpoint", endpoint, "--format", "csv", "-f", file.toString());
    assertEquals(0, run.exit(), run.err());
    assertEquals("seven\n7\nx\nx\n", run.out());
    Run missing = sql("", "--endpoint", endpoint, "-f", dir.resolve("missing.sql").toString());
    assertEquals(2, missing.exit());
    assertTrue(missing.err().contains("missing.sql"), missing.err());
  }

  @Test
  void badOptionsAreUsageErrorsNamingTheValue() {
    Run endpointRun = sql("", "--endpoint", "http://127.0.0.1:1", "SELECT 1");
    assertEquals(2, endpointRun.exit());
    assertTrue(endpointRun.err().contains("http://127.0.0.1:1"), endpointRun.err());
    Run formatRun = sql("", "--format", "xml", "SELECT 1");
    assertEquals(2, formatRun.exit());
    assertTrue(formatRun.err().contains("'xml' is not a format"), formatRun.err());
    Run both = sql("", "-f", "x.sql", "SELECT 1");
    assertEquals(2, both.exit());
  }

  @Test
  void lakeHelpListsTheSqlCommandAndItsOptions() {
    StringWriter out = new StringWriter();
    CommandLine lake = new CommandLine(new Lake()).setOut(new PrintWriter(out));
    assertEquals(0, lake.execute("sql", "--help"));
    for (String expected : new String[] {"--endpoint", "--token", "--format", "--file", "--history",
        "$LAKE_ENDPOINT", "$LAKE_TOKEN", "Exit codes"}) {
      assertTrue(out.toString().contains(expected), expected + " in " + out);
    }
  }

  @Test
  void interactivePromptRunsMultiLineStatementsKeepsGoingAfterAnErrorAndWritesTheHistory(
      @TempDir Path dir) throws Exception {
    Path history = dir.resolve("history");
    String keys = "SELECT episode_id,\n  robot\nFROM demo.episodes WHERE episode_id = 1;\n"
        + "SELECT nope FROM demo.episodes;\n"
        + "SELECT 'after the error' AS msg;\n"
        + "\\q\n";
    ByteArrayOutputStream screen = new ByteArrayOutputStream();
    int exit;
    // The pipe stays open while the prompt runs: a terminal whose input ended would end the session.
    PipedOutputStream typing = new PipedOutputStream();
    PipedInputStream keyboard = new PipedInputStream(typing, 1 << 16);
    typing.write(keys.getBytes(StandardCharsets.UTF_8));
    typing.flush();
    try (typing; Terminal terminal = TerminalBuilder.builder().system(false).provider("exec").type("dumb")
        .streams(keyboard, screen)
        .encoding(StandardCharsets.UTF_8).size(new Size(160, 40)).build()) {
      SqlCommand command = new SqlCommand();
      new CommandLine(command).parseArgs("--endpoint", endpoint, "--history", history.toString());
      exit = command.interactive(terminal);
    }
    String shown = screen.toString(StandardCharsets.UTF_8);
    assertEquals(0, exit, shown);
    assertTrue(shown.contains("lake sql on " + endpoint), shown);
    String robot = picked.getFirst()[1];
    assertTrue(shown.contains(" episode_id | robot"), shown);
    assertTrue(shown.contains("          1 | " + robot), shown);
    assertTrue(shown.contains("(1 row)"), shown);
    assertTrue(shown.contains("ERROR: INVALID_ARGUMENT: "), shown);
    assertTrue(shown.contains(" after the error"), shown);
    assertTrue(shown.indexOf("ERROR: INVALID_ARGUMENT") < shown.indexOf(" after the error"), shown);
    String saved = Files.readString(history);
    assertTrue(saved.contains("SELECT episode_id,"), saved);
    assertTrue(saved.contains("FROM demo.episodes WHERE episode_id = 1;"), saved);
    assertTrue(saved.contains("SELECT 'after the error' AS msg;"), saved);
    assertFalse(saved.isBlank());
  }
}
