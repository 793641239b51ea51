package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code lake dev}'s per-query limits: how they are written, refused, and applied. */
class LakeDevOptionsTest {

  @TempDir Path dir;

  private static QueryLimits parse(String... args) {
    CommandLine lake = new CommandLine(new Lake());
    CommandLine.ParseResult parsed = lake.parseArgs(args);
    Lake.Dev dev = (Lake.Dev) parsed.subcommand().commandSpec().userObject();
    return dev.limits();
  }

  @Test
  void limitsAreReadInShortAndIsoForms() {
    QueryLimits limits = parse("dev", "--query-timeout", "30s", "--query-memory", "512m", "--query-threads", "2");
    assertEquals(Duration.ofSeconds(30), limits.timeout());
    assertEquals(512L << 20, limits.memoryBytes());
    assertEquals(2, limits.threads());
    assertEquals(Duration.ofMillis(1500), parse("dev", "--query-timeout", "PT1.5S").timeout());
    assertEquals(Duration.ofMillis(250), parse("dev", "--query-timeout", "250ms").timeout());
    assertEquals(2L << 30, parse("dev", "--query-memory", "2GiB").memoryBytes());
    QueryLimits defaults = parse("dev");
    assertNull(defaults.timeout());
    assertEquals(Long.MAX_VALUE, defaults.memoryBytes());
    assertEquals(Runtime.getRuntime().availableProcessors(), defaults.threads());
  }

  @Test
  void badLimitsAreRefusedNamingTheOptionAndTheForm() {
    assertRefused("--query-timeout", "soon", "not a duration");
    assertRefused("--query-timeout", "0s", "longer than zero");
    assertRefused("--query-timeout", "-5s", "not a duration");
    assertRefused("--query-memory", "lots", "not a size");
    assertRefused("--query-memory", "0", "more than zero");
    assertRefused("--query-memory", "99999999t", "too large");
    assertRefused("--query-threads", "0", "at least 1");
    assertRefused("--lance-rest-port", "70000", "0..65535");
    assertRefused("--lance-rest-port", "-1", "0..65535");
  }

  @Test
  void admissionOptionsAreShownInHelpAndBadOnesRefusedNamingTheOption() {
    for (String command : new String[] {"dev", "query"}) {
      String help = new CommandLine(new Lake()).getSubcommands().get(command).getUsageMessage()
          .replaceAll("\\s+", " ");
      for (String option : new String[] {"--max-concurrent-queries", "--max-queries-per-tenant",
          "--max-queued-queries", "--max-queue-wait"}) {
        assertTrue(help.contains(option), command + " --help lacks " + option + ": " + help);
      }
      assertTrue(help.contains("(default: 64)") && help.contains("(default: 16)"), help);
    }
    assertRefused("--max-concurrent-queries", "0", "at least 1");
    assertRefused("--max-queries-per-tenant", "0", "at least 1");
    assertRefused("--max-queued-queries", "-1", "at least 0");
    assertRefused("--max-queue-wait", "0s", "longer than zero");
    assertRefused("--max-queue-wait", "soon", "not a duration");
  }

  @Test
  void otlpEndpointIsShownInHelpOfEveryServerAndACarelessOneRefused() {
    for (String command : new String[] {"dev", "query", "metasrv"}) {
      String help = new CommandLine(new Lake()).getSubcommands().get(command).getUsageMessage();
      assertTrue(help.contains("--otlp-endpoint"), command + " --help lacks --otlp-endpoint");
    }
    assertRefused("--otlp-endpoint", "ftp://collector:4318", "http:// or https://");
    assertRefused("--otlp-endpoint", "collector:4318", "collector:4318");
  }

  private static void assertRefused(String option, String value, String why) {
    StringWriter err = new StringWriter();
    CommandLine lake = new CommandLine(new Lake()).setErr(new PrintWriter(err));
    int exit = lake.execute("dev", option, value, "--port", "0");
    assertEquals(2, exit, option + " " + value + ": " + err);
    assertTrue(err.toString().contains(option), err.toString());
    assertTrue(err.toString().contains(why), err.toString());
  }

  /** A query running past --query-timeout is stopped with DEADLINE_EXCEEDED; the server goes on. */
  @Test
  void queryTimeoutStopsALongQueryAndTheServerStaysUp() throws Exception {
    // The timeout bounds planning too, so it must leave the follow-up query room on a loaded
    // machine; the three-way join on task never finishes within any such bound.
    QueryLimits limits = new QueryLimits(Duration.ofSeconds(5), Long.MAX_VALUE, 2);
    try (DevServer server = DevServer.start(dir, "127.0.0.1", 0, limits);
        Connection c = DriverManager.getConnection(server.jdbcUrl("127.0.0.1"));
        Statement s = c.createStatement()) {
      long start = System.nanoTime();
      SQLException e = assertThrows(SQLException.class, () -> {
        try (ResultSet r = s.executeQuery("SELECT count(*) FROM demo.episodes a"
            + " JOIN demo.episodes b ON a.task = b.task JOIN demo.episodes c ON b.task = c.task")) {
          r.next();
        }
      });
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertTrue(String.valueOf(e.getMessage()).toLowerCase().contains("deadline")
          || String.valueOf(e.getMessage()).toLowerCase().contains("timed out"), e.getMessage());
      assertTrue(millis < 120_000, "stopped after " + millis + " ms");
      try (ResultSet r = s.executeQuery("SELECT count(*) FROM demo.episodes")) {
        r.next();
        assertEquals(DemoEpisodes.ROWS, r.getLong(1));
      }
    }
  }
}
