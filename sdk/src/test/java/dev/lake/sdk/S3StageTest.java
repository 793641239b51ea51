package dev.lake.sdk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.DataLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

class S3StageTest {

  private static final String ROOT = "s3://stage/lake/tenants/acme/";
  private static final int PART = S3Stage.MIN_PART_SIZE;

  @TempDir static Path store;
  @TempDir Path dir;
  private static S3TestServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3TestServer.start(store, "stage");
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private S3Stage stage(IntConsumer afterPart) {
    return new S3Stage(server.descriptor(ROOT), S3TestServer.CREDENTIALS, dir.resolve("resume"),
        PART, afterPart);
  }

  private Path file(long seed, int size) throws IOException {
    return TestFiles.random(dir, seed, size);
  }

  @Test
  void multipartUploadPublishesUnderTheContentKeyAndReadsBackVerified() throws Exception {
    Path file = file(1, 4 * PART + 12345); // five parts
    AtomicInteger parts = new AtomicInteger();
    List<Long> progress = new ArrayList<>();
    try (S3Stage stage = stage(n -> parts.incrementAndGet())) {
      DataLocation loc = stage.put(file, "video/mp4", (done, total) -> progress.add(done));
      byte[] expected = Files.readAllBytes(file);
      String sha = HexSha.of(expected);
      assertEquals(URI.create(ROOT + "objects/" + sha.substring(0, 2) + "/" + sha), loc.uri());
      assertEquals(new DataLocation(loc.uri(), "video/mp4", expected.length, sha), loc);
      assertEquals(5, parts.get());
      assertEquals(expected.length, progress.getLast());
      assertArrayEquals(expected, TestFiles.readAll(stage.open(loc, 0, loc.size())));
      assertTrue(stage.owns(loc));
      try (Stream<Path> left = Files.list(dir.resolve("resume"))) {
        assertEquals(0, left.count(), "resume record removed after completion");
      }

      // the same content again: no upload at all
      assertEquals(loc, stage.put(file, "video/mp4", UploadProgress.none()));
      assertEquals(5, parts.get());
    }
  }

  @Test
  void smallAndEmptyFilesGoAsOnePut() throws Exception {
    try (S3Stage stage = stage(n -> {})) {
      Path small = file(2, 1000);
      DataLocation loc = stage.put(small, "text/plain", UploadProgress.none());
      assertArrayEquals(Files.readAllBytes(small), TestFiles.readAll(stage.open(loc, 0, 1000)));
      Path empty = Files.write(dir.resolve("empty"), new byte[0]);
      DataLocation none = stage.put(empty, "text/plain", UploadProgress.none());
      assertEquals(0, none.size());
      assertEquals(0, TestFiles.readAll(stage.open(none, 0, 0)).length);
    }
  }

  @Test
  void rangedReadsReturnExactlyTheRange() throws Exception {
    Path file = file(3, PART + 777);
    byte[] bytes = Files.readAllBytes(file);
    try (S3Stage stage = stage(n -> {})) {
      DataLocation loc = stage.put(file, "application/octet-stream", UploadProgress.none());
      int n = bytes.length;
      assertArrayEquals(new byte[] {bytes[0]}, TestFiles.readAll(stage.open(loc, 0, 1)));
      assertArrayEquals(Arrays.copyOfRange(bytes, 1000, PART + 5),
          TestFiles.readAll(stage.open(loc, 1000, PART + 5)));
      assertArrayEquals(new byte[] {bytes[n - 1]}, TestFiles.readAll(stage.open(loc, n - 1, n)));
      for (long[] bad : new long[][] {{5, 5}, {-1, 3}, {10, 2}, {0, n + 1L}, {n, n + 1L}}) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> stage.open(loc, bad[0], bad[1]));
        assertTrue(e.getMessage().contains(loc.uri().toString()), e.getMessage());
      }
    }
  }

  @Test
  void tamperedObjectFailsVerificationNamingIt() throws Exception {
    Path file = file(4, PART + 10);
    try (S3Stage stage = stage(n -> {}); S3Client plain = server.client()) {
      DataLocation loc = stage.put(file, "application/octet-stream", UploadProgress.none());
      String key = loc.uri().getPath().substring(1);
      byte[] changed = Files.readAllBytes(file);
      changed[PART / 2] ^= 1;
      plain.putObject(r -> r.bucket("stage").key(key), RequestBody.fromBytes(changed));
      ObjectVerificationException e = assertThrows(ObjectVerificationException.class,
          () -> TestFiles.readAll(stage.open(loc, 0, loc.size())));
      assertTrue(e.getMessage().contains(loc.uri().toString()), e.getMessage());

      plain.putObject(r -> r.bucket("stage").key(key), RequestBody.fromBytes(new byte[10]));
      IOException shorter = assertThrows(IOException.class,
          () -> TestFiles.readAll(stage.open(loc, 0, loc.size())));
      assertTrue(shorter.getMessage().contains(loc.uri().toString()), shorter.getMessage());

      plain.deleteObject(r -> r.bucket("stage").key(key));
      assertThrows(NoSuchFileException.class, () -> stage.open(loc, 0, loc.size()));
    }
  }

  @Test
  void presignedUrlReadsWithoutCredentialsUntilItExpires() throws Exception {
    Path file = file(5, 4096);
    byte[] bytes = Files.readAllBytes(file);
    HttpClient http = HttpClient.newHttpClient();
    try (S3Stage stage = stage(n -> {})) {
      DataLocation loc = stage.put(file, "application/octet-stream", UploadProgress.none());
      URI url = stage.presign(loc, Duration.ofMinutes(10));
      HttpResponse<byte[]> ok = http.send(HttpRequest.newBuilder(url).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertEquals(200, ok.statusCode());
      assertArrayEquals(bytes, ok.body());

      URI garbled = URI.create(url.toString().replaceAll("(X-Amz-Signature=)[0-9a-f]",
          url.toString().contains("X-Amz-Signature=0") ? "$11" : "$10"));
      assertEquals(403, http.send(HttpRequest.newBuilder(garbled).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode());

      Instant signed = Instant.now();
      URI brief = stage.presign(loc, Duration.ofSeconds(1));
      while (Instant.now().isBefore(signed.plusSeconds(3))) {
        Thread.sleep(100);
      }
      assertEquals(403, http.send(HttpRequest.newBuilder(brief).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode());

      for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofSeconds(-1),
          Duration.ofDays(8), Duration.ofMillis(10), null}) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> stage.presign(loc, bad));
        assertTrue(e.getMessage().contains("ttl"), e.getMessage());
      }
    } finally {
      http.close();
    }
  }

  @Test
  void interruptedUploadResumesWithTheRemainingPartsOnly() throws Exception {
    Path file = file(6, 9 * PART + 99); // ten parts
    AtomicInteger uploaded = new AtomicInteger();
    try (S3Stage failing = stage(n -> {
      uploaded.incrementAndGet();
      if (n == 2) {
        throw new UncheckedIOException(new IOException("injected failure after part 2"));
      }
    })) {
      UncheckedIOException e = assertThrows(UncheckedIOException.class,
          () -> failing.put(file, "application/octet-stream", UploadProgress.none()));
      assertTrue(e.getMessage().contains("injected"), e.getMessage());
    }
    assertEquals(2, uploaded.get(), "the hook runs in part order, on the calling thread");
    List<Integer> kept = new ArrayList<>();
    try (S3Client plain = server.client()) {
      var uploads = plain.listMultipartUploads(r -> r.bucket("stage")).uploads();
      assertEquals(1, uploads.size(), "the interrupted upload is kept for resuming");
      plain.listParts(r -> r.bucket("stage").key(uploads.getFirst().key())
          .uploadId(uploads.getFirst().uploadId())).parts().forEach(p -> kept.add(p.partNumber()));
    }
    // Parts go S3Stage.PARTS_IN_FLIGHT (4) at a time, in order: 1 and 2 were stored, 3 to 6 may
    // have been, 7 to 10 were never sent.
    assertTrue(kept.containsAll(List.of(1, 2)) && kept.stream().allMatch(n -> n <= 6),
        kept::toString);
    List<Integer> missing = new ArrayList<>(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    missing.removeAll(kept);
    List<Integer> resumed = new ArrayList<>();
    try (S3Stage stage = stage(resumed::add)) {
      DataLocation loc = stage.put(file, "application/octet-stream", UploadProgress.none());
      assertEquals(missing, resumed, "the resumed upload sends the missing parts only");
      assertArrayEquals(Files.readAllBytes(file), TestFiles.readAll(stage.open(loc, 0, loc.size())));
    }
    try (S3Client plain = server.client()) {
      assertEquals(0, plain.listMultipartUploads(r -> r.bucket("stage")).uploads().size());
    }
  }

  @Test
  void foreignLocationsAreRefusedBeforeAnyRequest() throws Exception {
    // a stage whose endpoint has no server: any request would fail with an I/O error instead
    StageDescriptor dead = new StageDescriptor("acme", URI.create(ROOT),
        URI.create("http://127.0.0.1:1"), "us-east-1", true);
    String sha = "ab".repeat(32);
    List<String> foreign = List.of(
        "s3://stage/lake/tenants/other/objects/ab/" + sha,
        "s3://elsewhere/lake/tenants/acme/objects/ab/" + sha,
        "s3://stage/lake/tenants/acme/../other/objects/ab/" + sha,
        "s3://stage/lake/tenants/acme/uploads/x",
        "s3://stage/lake/tenants/acme/objects/ab/" + sha + "?versionId=1",
        "file:///lake/tenants/acme/objects/ab/" + sha);
    try (S3Stage stage = new S3Stage(dead, S3TestServer.CREDENTIALS, null)) {
      for (String uri : foreign) {
        DataLocation loc = new DataLocation(URI.create(uri), "video/mp4", 10, sha);
        assertFalse(stage.owns(loc), uri);
        IllegalArgumentException open = assertThrows(IllegalArgumentException.class,
            () -> stage.open(loc, 0, 10));
        assertTrue(open.getMessage().contains(uri), open.getMessage());
        assertThrows(IllegalArgumentException.class, () -> stage.presign(loc, Duration.ofHours(1)));
      }
      assertTrue(stage.owns(new DataLocation(URI.create(ROOT + "objects/ab/" + sha), "video/mp4",
          10, sha)));
    }
  }

  @Test
  void badArgumentsAreRejectedClearly() throws Exception {
    try (S3Stage stage = stage(n -> {})) {
      Path missing = dir.resolve("missing.mcap");
      NoSuchFileException e = assertThrows(NoSuchFileException.class,
          () -> stage.put(missing, "video/mp4", UploadProgress.none()));
      assertTrue(e.getMessage().contains("missing.mcap"));
    }
    IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
        () -> new S3Stage(server.descriptor(ROOT), S3TestServer.CREDENTIALS, null, 1 << 20,
            n -> {}));
    assertTrue(small.getMessage().contains("part size"), small.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> new S3Stage(server.descriptor("file:///tmp/tenants/acme/"),
            S3TestServer.CREDENTIALS, null));
    assertThrows(IllegalArgumentException.class, () -> StageCredentials.of("id", null));
    assertFalse(StageCredentials.of("id", "secret").toString().contains("secret"));
  }
}
