package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.cli.objects.PutCommand;
import dev.lake.engine.DataLocation;
import dev.lake.sdk.Credentials;
import dev.lake.sdk.LakeClient;
import dev.lake.sdk.LakeException;
import dev.lake.sdk.QueryResult;
import dev.lake.sdk.Row;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lake put} against a real lake server (the one {@code lake dev} runs, in this JVM, with
 * its local stage): the row and its object, read back through the SDK; careless command lines
 * each refused naming the offending thing, with no object stored and no row inserted.
 */
class LakePutTest {

  @TempDir static Path dataDir;
  @TempDir static Path work;
  static DevServer server;
  static String endpoint;
  static LakeClient lake;

  record Run(int exit, String out, String err) {}

  @BeforeAll
  static void start() {
    server = DevServer.start(dataDir, "127.0.0.1", 0);
    endpoint = "grpc://127.0.0.1:" + server.port();
    lake = LakeClient.connect(endpoint, Credentials.none());
    lake.execute("CREATE SCHEMA robots");
    lake.execute("CREATE TABLE robots.episodes (id BIGINT, robot VARCHAR, frames INTEGER,"
        + " reward DOUBLE, ok BOOLEAN, day DATE, at TIMESTAMP, video FILE)");
    lake.execute("CREATE TABLE robots.plain (id BIGINT, robot VARCHAR)");
    lake.execute("CREATE TABLE robots.two (id BIGINT, left_cam FILE, right_cam FILE)");
  }

  @AfterAll
  static void stop() {
    lake.close();
    server.close();
  }

  static Run put(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new PutCommand(() -> false));
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--endpoint", endpoint, "--resume-dir", work.resolve("resume").toString()));
    int exit = command.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  static Path file(String name, int size) throws IOException {
    byte[] bytes = new byte[size];
    new Random(size).nextBytes(bytes);
    return Files.write(work.resolve(name), bytes);
  }

  static long rows(String table) {
    try (QueryResult result = lake.query("SELECT count(*) AS n FROM " + table)) {
      return result.rows().iterator().next().getLong("n");
    }
  }

  static long storedObjects() throws IOException {
    Path stage = dataDir.resolve("stage");
    if (!Files.exists(stage)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(stage)) {
      return files.filter(Files::isRegularFile).count();
    }
  }

  @Test
  void putStoresTheFileAndInsertsOneRowWithTheSetValuesConverted() throws IOException {
    Path video = file("run42.mp4", 3 * 1024 * 1024 + 17);
    long before = rows("robots.episodes");
    Run run = put("robots.episodes", "--file", video.toString(), "--set", "id=42",
        "--set", "robot=ur5", "--set", "frames=120", "--set", "reward=0.5", "--set", "ok=true",
        "--set", "day=2026-01-05", "--set", "at=2026-01-05T08:00:00Z", "--mime", "video/mp4");
    assertEquals(0, run.exit(), run.err());
    assertEquals(before + 1, rows("robots.episodes"));
    try (QueryResult result = lake.query("SELECT * FROM robots.episodes WHERE id = 42")) {
      Row row = result.rows().iterator().next();
      assertEquals("ur5", row.getString("robot"));
      assertEquals(120L, row.getLong("frames"));
      assertEquals(0.5, row.getDouble("reward"));
      assertEquals(Boolean.TRUE, row.getObject("ok"));
      assertEquals(LocalDate.parse("2026-01-05"), toLocalDate(row.getObject("day")));
      assertTrue(row.getObject("at").toString().startsWith("2026-01-05"), row.toString());
      DataLocation location = row.getLocation("video");
      assertEquals(Files.size(video), location.size());
      assertEquals("video/mp4", location.mimeType());
      assertTrue(run.out().contains("inserted 1 row into robots.episodes"), run.out());
      assertTrue(run.out().contains("uri:    " + location.uri()), run.out());
      // The version printed is the one that first holds the row, and the table's latest.
      java.util.regex.Matcher committed =
          java.util.regex.Pattern.compile("(?m)^committed version (\\d+)$").matcher(run.out());
      assertTrue(committed.find(), run.out());
      long version = Long.parseLong(committed.group(1));
      assertEquals(1, rowsOf42(version));
      assertEquals(0, rowsOf42(version - 1));
      LakeException.NotFound later = org.junit.jupiter.api.Assertions.assertThrows(
          LakeException.NotFound.class, () -> rowsOf42(version + 1));
      assertTrue(later.getMessage().contains(Long.toString(version + 1)), later.getMessage());
      assertTrue(run.out().contains("sha256: " + location.sha256()), run.out());
      assertTrue(run.out().contains("size:   " + location.size()), run.out());
      try (InputStream in = lake.open(location)) {
        assertArrayEquals(Files.readAllBytes(video), in.readAllBytes());
      }
    }
    // not a terminal: plain progress lines, the last one complete
    List<String> progress = run.err().lines().toList();
    assertTrue(progress.getLast().startsWith("run42.mp4: 3.0 MiB / 3.0 MiB (100%)"), run.err());
    assertTrue(progress.getLast().contains("done in"), run.err());
  }

  private static long rowsOf42(long version) {
    try (QueryResult result = lake.query("SELECT count(*) AS n FROM robots.episodes FOR VERSION"
        + " AS OF " + version + " WHERE id = 42")) {
      return result.rows().iterator().next().getLong("n");
    }
  }

  private static LocalDate toLocalDate(Object value) {
    return value instanceof LocalDate d ? d : LocalDate.parse(value.toString().substring(0, 10));
  }

  @Test
  void quietDrawsNoProgressAndColumnNamesTheFileColumnOfSeveral() throws IOException {
    Path left = file("left.bin", 1000);
    Run run = put("robots.two", "--file", left.toString(), "--column", "left_cam", "--set",
        "id=1", "--quiet");
    assertEquals(0, run.exit(), run.err());
    assertEquals("", run.err());
    try (QueryResult result = lake.query("SELECT left_cam, right_cam FROM robots.two WHERE id = 1")) {
      Row row = result.rows().iterator().next();
      assertEquals(1000L, row.getLocation("left_cam").size());
      assertEquals(null, row.getObject("right_cam"));
    }
  }

  @Test
  void carelessCommandLinesAreRefusedNamingTheThingAndStoreNothing() throws IOException {
    Path file = file("careless.bin", 4096 + 3);
    long episodes = rows("robots.episodes");
    long plain = rows("robots.plain");
    long two = rows("robots.two");
    long objects = storedObjects();
    String f = file.toString();
    assertRefused(1, "robots.nope", put("robots.nope", "--file", f, "--set", "id=1"));
    assertRefused(2, "'colour' is not a column of robots.episodes",
        put("robots.episodes", "--file", f, "--set", "colour=red"));
    assertRefused(2, "--set id=forty-two: 'forty-two' is not a BIGINT",
        put("robots.episodes", "--file", f, "--set", "id=forty-two"));
    assertRefused(2, "'9999999999' is not an INTEGER",
        put("robots.episodes", "--file", f, "--set", "frames=9999999999"));
    assertRefused(2, "'maybe' is not a BOOLEAN",
        put("robots.episodes", "--file", f, "--set", "ok=maybe"));
    assertRefused(2, "'yesterday' is not a DATE",
        put("robots.episodes", "--file", f, "--set", "day=yesterday"));
    assertRefused(2, "column 'video' is a FILE column",
        put("robots.episodes", "--file", f, "--set", "video=x"));
    assertRefused(2, work.resolve("missing.bin") + " does not exist",
        put("robots.episodes", "--file", work.resolve("missing.bin").toString()));
    assertRefused(2, work + " is not a regular file", put("robots.episodes", "--file", work.toString()));
    assertRefused(2, "robots.plain has no FILE column (columns: id, robot)",
        put("robots.plain", "--file", f, "--set", "id=1"));
    assertRefused(2, "several FILE columns: left_cam, right_cam; name one with --column",
        put("robots.two", "--file", f, "--set", "id=1"));
    assertRefused(2, "column 'id' is not a FILE column; FILE columns of robots.two: left_cam, right_cam",
        put("robots.two", "--file", f, "--column", "id"));
    assertRefused(2, "invalid media type 'video'",
        put("robots.episodes", "--file", f, "--mime", "video"));
    assertRefused(2, "'robots.episodes; DROP TABLE robots.plain' is not a table name",
        put("robots.episodes; DROP TABLE robots.plain", "--file", f));
    assertRefused(2, "Missing required option: '--file=FILE'", put("robots.episodes"));
    assertEquals(episodes, rows("robots.episodes"));
    assertEquals(plain, rows("robots.plain"));
    assertEquals(two, rows("robots.two"));
    assertEquals(objects, storedObjects());
  }

  @Test
  void anUnreachableEndpointExitsThree() throws IOException {
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new PutCommand(() -> false));
    command.setErr(new PrintWriter(err, true));
    int exit;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      int port = free.getLocalPort();
      free.close();
      exit = command.execute("robots.episodes", "--file", file("x.bin", 10).toString(),
          "--endpoint", "grpc://127.0.0.1:" + port);
    }
    assertEquals(3, exit, err.toString());
  }

  @Test
  void helpNamesTheOptions() {
    StringWriter out = new StringWriter();
    CommandLine command = new CommandLine(new PutCommand(() -> false));
    command.setOut(new PrintWriter(out, true));
    assertEquals(0, command.execute("--help"));
    for (String option : new String[] {"--file", "--set", "--column", "--mime", "--endpoint",
        "--token", "--resume-dir", "--quiet", "Exit codes"}) {
      assertTrue(out.toString().contains(option), option + " in\n" + out);
    }
  }

  @Test
  void lakeListsPutAndGet() {
    StringWriter out = new StringWriter();
    CommandLine lakeCommand = new CommandLine(new Lake());
    lakeCommand.setOut(new PrintWriter(out, true));
    assertEquals(0, lakeCommand.execute("--help"));
    assertTrue(out.toString().contains("  put "), out.toString());
    assertTrue(out.toString().contains("  get "), out.toString());
    StringWriter help = new StringWriter();
    lakeCommand.getSubcommands().get("get").setOut(new PrintWriter(help, true));
    assertEquals(0, lakeCommand.execute("get", "--help"));
    assertTrue(help.toString().contains("--from"), help.toString());
  }

  private static void assertRefused(int exit, String named, Run run) {
    assertEquals(exit, run.exit(), run.err());
    assertTrue(run.err().contains(named), "expected '" + named + "' in: " + run.err());
    assertEquals("", run.out());
  }
}
