package dev.lake.sdk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.DataLocation;
import dev.lake.flight.LakeFlightServer;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** FILE inserts and object reads through LakeClient against a real server with a local stage. */
class LakeClientFileTest {

  static final String INSERT = "INSERT INTO robots.episodes (id, video) VALUES (?, ?)";

  @TempDir Path directory;
  private Path stageDir;
  private LakeTestServer server;
  private LakeClient lake;

  @BeforeEach
  void start() {
    stageDir = directory.resolve("stage");
    server = new LakeTestServer(directory, LakeFlightServer.builder()
        .stage(URI.create(directory.toUri() + "stage/"), null, null, false));
    lake = LakeClient.connect(server.uri(), Credentials.none());
    lake.execute("CREATE SCHEMA robots");
    lake.execute("CREATE TABLE robots.episodes (id BIGINT NOT NULL, video FILE)");
  }

  @AfterEach
  void stop() {
    lake.close();
    server.close();
  }

  private Path file(long seed, int size) throws IOException {
    return TestFiles.random(directory, seed, size);
  }

  private long version() {
    return server.version("robots", "episodes");
  }

  /** The objects published in the stage (any tenant). */
  static List<Path> objects(Path stageDir) throws IOException {
    if (!Files.exists(stageDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(stageDir)) {
      return files.filter(Files::isRegularFile)
          .filter(p -> p.getParent().getParent().getFileName().toString().equals("objects"))
          .toList();
    }
  }

  private List<DataLocation> locations() {
    List<DataLocation> out = new ArrayList<>();
    try (QueryResult result = lake.query("SELECT id, video FROM robots.episodes ORDER BY id")) {
      for (Row row : result) {
        out.add(row.getLocation("video"));
      }
    }
    return out;
  }

  @Test
  void fileInsertUploadsTheFileAndAppendsOneRowPointingAtIt() throws Exception {
    Path file = file(1, 3 << 20);
    byte[] bytes = Files.readAllBytes(file);
    String sha = HexSha.of(bytes);
    long before = version();
    assertEquals(1, lake.execute(INSERT, 7, FileUpload.of(file, "video/mp4")));
    assertEquals(before + 1, version());

    DataLocation expected = new DataLocation(URI.create(directory.toUri()
        + "stage/tenants/default/objects/" + sha.substring(0, 2) + "/" + sha), "video/mp4",
        bytes.length, sha);
    assertEquals(List.of(expected), locations());
    assertEquals(List.of(Path.of(expected.uri())), objects(stageDir));
    assertArrayEquals(bytes, TestFiles.readAll(lake.open(expected)));
    assertArrayEquals(Arrays.copyOfRange(bytes, 100, 200_000),
        TestFiles.readAll(lake.openRange(expected, 100, 200_000)));
    UnsupportedOperationException presign = assertThrows(UnsupportedOperationException.class,
        () -> lake.presign(expected, Duration.ofMinutes(5)));
    assertTrue(presign.getMessage().contains(expected.uri().toString()), presign.getMessage());
  }

  @Test
  void aFileInsertReportsTheVersionTheTableShowsAndDdlNone() throws Exception {
    assertEquals(1, lake.execute(INSERT, 1, FileUpload.of(file(11, 1000))));
    ExecuteResult inserted = lake.executeWithVersion(INSERT, 2, FileUpload.of(file(12, 50_000)));
    assertEquals(1, inserted.count());
    assertEquals(java.util.OptionalLong.of(version()), inserted.version());
    assertEquals(2, inserted.version().getAsLong(), "the second insert's version");
    ExecuteResult plain = lake.executeWithVersion("INSERT INTO robots.episodes (id) VALUES (3)");
    assertEquals(new ExecuteResult(1, java.util.OptionalLong.of(3)), plain);
    assertEquals(new ExecuteResult(0, java.util.OptionalLong.empty()),
        lake.executeWithVersion("CREATE TABLE robots.other (id BIGINT)"));
    assertEquals(3, version());
  }

  @Test
  void withProgressReportsTheBytesStoredThenTheLocationOfTheRow() throws Exception {
    Path file = file(2, (1 << 20) + 5);
    long size = Files.size(file);
    List<Long> done = new ArrayList<>();
    List<DataLocation> stored = new ArrayList<>();
    UploadProgress listener = new UploadProgress() {
      @Override
      public void onProgress(long bytes, long total) {
        assertEquals(size, total);
        assertTrue(stored.isEmpty(), "progress after onStored");
        done.add(bytes);
      }

      @Override
      public void onStored(DataLocation location) {
        stored.add(location);
      }
    };
    assertEquals(1, lake.execute(INSERT, 8, FileUpload.of(file, "video/mp4").withProgress(listener)));
    assertEquals(size, done.getLast());
    for (int i = 1; i < done.size(); i++) {
      assertTrue(done.get(i) >= done.get(i - 1), done.toString());
    }
    assertEquals(locations(), stored);
    assertEquals(FileUpload.of(file, "video/mp4"), new FileUpload(file, "video/mp4"));
    assertThrows(NullPointerException.class, () -> FileUpload.of(file).withProgress(null));
  }

  @Test
  void manyFilesInOneStatementAppendOneVersionAndALocationIsBoundAsIs() throws Exception {
    Path a = file(2, 100_000);
    Path b = file(3, 200_000);
    long before = version();
    assertEquals(2, lake.execute("INSERT INTO robots.episodes (id, video) VALUES (?, ?), (?, ?)",
        1, FileUpload.of(a), 2L, FileUpload.of(b)));
    assertEquals(before + 1, version(), "one statement, one version");
    List<DataLocation> stored = locations();
    assertEquals(List.of(HexSha.of(Files.readAllBytes(a)), HexSha.of(Files.readAllBytes(b))),
        stored.stream().map(DataLocation::sha256).toList());
    assertEquals(FileUpload.DEFAULT_MIME_TYPE, stored.getFirst().mimeType());
    assertEquals(2, objects(stageDir).size());

    assertEquals(1, lake.execute(INSERT, 3, stored.get(1)));
    assertEquals(1, lake.execute(INSERT, 4, null));
    List<DataLocation> all = locations();
    assertEquals(stored.get(1), all.get(2));
    assertNull(all.get(3));
    assertEquals(2, objects(stageDir).size(), "a bound location uploads nothing");
  }

  /** Runs {@code call}, which must fail with {@code type}, having uploaded and changed nothing. */
  private <T extends Throwable> T refused(Class<T> type, Executable call, String... names)
      throws IOException {
    long before = version();
    T e = assertThrows(type, call);
    for (String name : names) {
      assertTrue(e.getMessage().contains(name), "'" + name + "' in: " + e.getMessage());
    }
    assertEquals(List.of(), objects(stageDir), "no object was uploaded");
    assertEquals(before, version(), "no table version");
    return e;
  }

  @Test
  void badFileInsertsAreRefusedBeforeAnyUpload() throws Exception {
    Path file = file(4, 50_000);
    FileUpload upload = FileUpload.of(file);
    refused(LakeException.InvalidArgument.class, () -> lake.execute(INSERT, 7, upload, 8),
        "2 parameters", "3 values");
    refused(LakeException.InvalidArgument.class, () -> lake.execute(INSERT, upload), "2 parameters");
    refused(LakeException.class, () -> lake.execute(
        "INSERT INTO robots.episodes (id, movie) VALUES (?, ?)", 7, upload), "movie");
    refused(LakeException.NotFound.class, () -> lake.execute(
        "INSERT INTO robots.nothing (id, video) VALUES (?, ?)", 7, upload), "nothing");
    refused(LakeException.InvalidArgument.class, () -> lake.execute(INSERT, upload, upload),
        "parameter 1 (column id", "is not a FILE column", "FileUpload");
    refused(LakeException.InvalidArgument.class, () -> lake.execute(INSERT, 7, 42),
        "parameter 2 (column video, FILE)", "Integer");
    refused(LakeException.InvalidArgument.class, () -> lake.execute(INSERT, 7, "s3://x/y"),
        "parameter 2 (column video, FILE)", "String");
    refused(LakeException.InvalidArgument.class, () -> lake.execute(INSERT, "seven", upload),
        "parameter 1", "String");
    Path absent = directory.resolve("absent.mp4");
    LakeException.InvalidArgument missing = refused(LakeException.InvalidArgument.class,
        () -> lake.execute(INSERT, 7, FileUpload.of(absent)), absent.toString(), "does not exist");
    assertInstanceOf(NoSuchFileException.class, missing.getCause());
    refused(LakeException.InvalidArgument.class,
        () -> lake.execute(INSERT, 7, FileUpload.of(directory)), "is not a regular file");
    // two files, the second missing: the first is not uploaded either
    refused(LakeException.InvalidArgument.class, () -> lake.execute(
        "INSERT INTO robots.episodes (id, video) VALUES (?, ?), (?, ?)", 1, upload, 2,
        FileUpload.of(absent)), "parameter 4", absent.toString());
    refused(LakeException.InvalidArgument.class, () -> lake.query(
        "SELECT id FROM robots.episodes WHERE id = ?", upload), "FileUpload");

    String sha = "ab".repeat(32);
    DataLocation foreign = new DataLocation(URI.create(directory.toUri()
        + "stage/tenants/other/objects/ab/" + sha), "video/mp4", 10, sha);
    refused(LakeException.PermissionDenied.class, () -> lake.execute(
        "INSERT INTO robots.episodes (id, video) VALUES (?, ?), (?, ?)", 1, upload, 2, foreign),
        "parameter 4", foreign.uri().toString(), "tenant default");
    refused(LakeException.PermissionDenied.class, () -> lake.open(foreign),
        foreign.uri().toString());
    refused(LakeException.PermissionDenied.class, () -> lake.openRange(foreign, 0, 1),
        foreign.uri().toString());

    assertEquals(1, lake.execute(INSERT, 7, upload), "the server still serves");
  }

  @Test
  void anUnreadableFileIsRefusedBeforeAnyUpload() throws Exception {
    Path file = file(5, 1000);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("---------"));
    if (!Files.isReadable(file)) {
      refused(LakeException.InvalidArgument.class,
          () -> lake.execute(INSERT, 7, FileUpload.of(file)), file.toString(), "not readable");
      return;
    }
    // Running as root (as CI does), this JVM reads every file. The same FILE insert runs in a
    // child JVM of the same user without the capabilities that bypass file permissions
    // (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): the file's mode applies to it, while the class
    // path, owned by that user, stays readable.
    long before = version();
    String dropped = "-dac_override,-dac_read_search";
    ChildJvm child = ChildJvm.start(directory, "unreadable",
        List.of("setpriv", "--bounding-set=" + dropped, "--inh-caps=" + dropped), List.of(),
        UploadMain.class, List.of(server.uri(), file.toString(),
            directory.resolve("resume").toString()));
    assertEquals(UploadMain.FAILED, child.await(), child::output);
    String output = child.output();
    assertTrue(output.contains("failed " + LakeException.InvalidArgument.class.getName() + " ")
        && output.contains(file.toString()) && output.contains("not readable"), output);
    assertEquals(List.of(), objects(stageDir), "no object was uploaded");
    assertEquals(before, version(), "no table version");
  }

  @Test
  void aFailedUploadRunsNothingAndARetryAfterItSucceeds() throws Exception {
    Path file = file(6, 10_000);
    // incoming/ cannot be created: every upload to the stage fails
    Path incoming = stageDir.resolve("tenants/default/incoming");
    Files.createDirectories(incoming.getParent());
    Files.writeString(incoming, "in the way");
    LakeException.StageFailed e = refused(LakeException.StageFailed.class,
        () -> lake.execute(INSERT, 7, FileUpload.of(file)), "parameter 2", file.toString());
    assertTrue(e.retrySafe());
    Files.delete(incoming);
    long before = version();
    assertEquals(1, lake.execute(INSERT, 7, FileUpload.of(file)));
    assertEquals(before + 1, version());
  }
}
