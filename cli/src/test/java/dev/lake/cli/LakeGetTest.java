package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.cli.objects.GetCommand;
import dev.lake.engine.DataLocation;
import dev.lake.sdk.Credentials;
import dev.lake.sdk.FileUpload;
import dev.lake.sdk.LakeClient;
import dev.lake.sdk.QueryResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * {@code lake get} against a real lake server with its local stage: an object named by its
 * location or by a query comes back byte for byte; a download that fails verification leaves no
 * file (and an existing one untouched); careless command lines are refused naming the thing.
 */
class LakeGetTest {

  @TempDir static Path dataDir;
  @TempDir static Path work;
  static DevServer server;
  static String endpoint;
  static LakeClient lake;
  static byte[] bytes;
  static DataLocation location;

  record Run(int exit, String out, String err) {}

  @BeforeAll
  static void start() throws IOException {
    server = DevServer.start(dataDir, "127.0.0.1", 0);
    endpoint = "grpc://127.0.0.1:" + server.port();
    lake = LakeClient.connect(endpoint, Credentials.none());
    lake.execute("CREATE SCHEMA robots");
    lake.execute("CREATE TABLE robots.episodes (id BIGINT, video FILE)");
    bytes = new byte[2 * 1024 * 1024 + 5];
    new Random(7).nextBytes(bytes);
    Path source = Files.write(work.resolve("source.mp4"), bytes);
    lake.execute("INSERT INTO robots.episodes (id, video) VALUES (?, ?)", 42L,
        FileUpload.of(source, "video/mp4"));
    try (QueryResult result = lake.query("SELECT video FROM robots.episodes WHERE id = 42")) {
      location = result.rows().iterator().next().getLocation("video");
    }
  }

  @AfterAll
  static void stop() {
    lake.close();
    server.close();
  }

  static Run get(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new GetCommand());
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--endpoint", endpoint));
    int exit = command.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  /** The files of {@code dir}, temporary ones included. */
  static List<String> files(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void getByLocationWritesTheVerifiedBytes() throws IOException {
    Path dir = Files.createDirectory(work.resolve("by-location"));
    Path output = dir.resolve("run42.mp4");
    Run run = get(location.uri().toString(), "--size", String.valueOf(location.size()),
        "--sha256", location.sha256(), "-o", output.toString());
    assertEquals(0, run.exit(), run.err());
    assertArrayEquals(bytes, Files.readAllBytes(output));
    assertTrue(run.out().contains("wrote " + bytes.length + " bytes to " + output), run.out());
    assertEquals(List.of("run42.mp4"), files(dir));
  }

  @Test
  void getFromAQueryWritesTheVerifiedBytes() throws IOException {
    Path dir = Files.createDirectory(work.resolve("from-query"));
    Path output = dir.resolve("run42.mp4");
    Run run = get("--from", "SELECT video FROM robots.episodes WHERE id = 42", "-o",
        output.toString());
    assertEquals(0, run.exit(), run.err());
    assertArrayEquals(bytes, Files.readAllBytes(output));
  }

  @Test
  void aWrongDigestOrSizeFailsNamingTheObjectAndLeavesNoFile() throws IOException {
    Path dir = Files.createDirectory(work.resolve("wrong"));
    Path output = dir.resolve("run42.mp4");
    Run wrongSha = get(location.uri().toString(), "--size", String.valueOf(location.size()),
        "--sha256", "0".repeat(64), "-o", output.toString());
    assertEquals(1, wrongSha.exit(), wrongSha.err());
    assertTrue(wrongSha.err().contains(location.uri() + " failed verification"), wrongSha.err());
    assertEquals(List.of(), files(dir));
    Run wrongSize = get(location.uri().toString(), "--size", String.valueOf(location.size() - 1),
        "--sha256", location.sha256(), "-o", output.toString());
    assertEquals(1, wrongSize.exit(), wrongSize.err());
    assertTrue(wrongSize.err().contains(location.uri().toString()), wrongSize.err());
    assertEquals(List.of(), files(dir));
    // an existing file is replaced only by verified bytes
    Files.writeString(output, "kept");
    assertEquals(1, get(location.uri().toString(), "--size", String.valueOf(location.size()),
        "--sha256", "f".repeat(64), "-o", output.toString()).exit());
    assertEquals("kept", Files.readString(output));
    assertEquals(List.of("run42.mp4"), files(dir));
  }

  @Test
  void carelessCommandLinesAreRefusedNamingTheThing() throws IOException {
    Path dir = Files.createDirectory(work.resolve("careless"));
    String out = dir.resolve("x").toString();
    String uri = location.uri().toString();
    assertRefused(2, "needs --size and --sha256", get(uri, "-o", out));
    assertRefused(2, "either URI", get(uri, "--from", "SELECT video FROM robots.episodes", "-o", out));
    assertRefused(2, "either URI", get("-o", out));
    assertRefused(2, "sha256 must be 64 lowercase hex digits",
        get(uri, "--size", "1", "--sha256", "xyz", "-o", out));
    assertRefused(2, "--from must return one FILE column, got: id",
        get("--from", "SELECT id FROM robots.episodes", "-o", out));
    assertRefused(2, "returned none",
        get("--from", "SELECT video FROM robots.episodes WHERE id = -1", "-o", out));
    assertRefused(1, "robots.nope", get("--from", "SELECT video FROM robots.nope", "-o", out));
    Path passwd = Path.of("/etc/hostname");
    assertRefused(1, "is not an object of tenant", get(passwd.toUri().toString(), "--size", "1",
        "--sha256", "0".repeat(64), "-o", out));
    assertEquals(List.of(), files(dir));
    assertFalse(Files.exists(Path.of(out)));
  }

  @Test
  void helpNamesTheOptions() {
    StringWriter out = new StringWriter();
    CommandLine command = new CommandLine(new GetCommand());
    command.setOut(new PrintWriter(out, true));
    assertEquals(0, command.execute("--help"));
    for (String option : new String[] {"--output", "--size", "--sha256", "--from", "--endpoint",
        "Exit codes"}) {
      assertTrue(out.toString().contains(option), option + " in\n" + out);
    }
  }

  private static void assertRefused(int exit, String named, Run run) {
    assertEquals(exit, run.exit(), run.err());
    assertTrue(run.err().contains(named), "expected '" + named + "' in: " + run.err());
    assertEquals("", run.out());
  }
}
