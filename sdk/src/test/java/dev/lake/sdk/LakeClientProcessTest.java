package dev.lake.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.DataLocation;
import dev.lake.flight.LakeFlightServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.Part;

/**
 * The SDK in a child JVM ({@link UploadMain}) doing a FILE insert into a lake server with an S3
 * stage on S3Proxy, both in this JVM: killed in the middle of its multipart upload (held there by
 * the store's {@link PartGate}, so no timing is involved), its file changed in the middle, and its
 * heap measured while it uploads a large file with a small {@code -Xmx}.
 *
 * <p>The memory test uploads {@code -Dlake.sdk.memoryTestBytes} bytes (512 MiB by default; the
 * full proof is {@code -Dlake.sdk.memoryTestBytes=2147483648}) with {@code -Xmx96m}.
 */
class LakeClientProcessTest {

  private static final long MEMORY_BYTES = Long.getLong("lake.sdk.memoryTestBytes", 512L << 20);
  /** The child's heap in the memory test. */
  private static final String CHILD_HEAP = "-Xmx96m";
  /**
   * The heap in use after any collection (live data) stays below this, whatever the size: the
   * SDK's code and connections take about 25 MiB before the upload, the upload one 16 MiB part
   * buffer more.
   */
  private static final long LIVE_HEAP_BOUND = 64L << 20;
  /** Four parts of S3Stage's 16 MiB. */
  private static final long FOUR_PARTS = 4L * S3Stage.DEFAULT_PART_SIZE;
  private static final String BUCKET = "lake-stage";
  /** The child's heap in the other tests. */
  private static final String SMALL_HEAP = "-Xmx256m";

  @TempDir Path directory;
  private S3TestServer s3;
  private LakeTestServer server;
  private S3Client store;

  @BeforeEach
  void start() throws Exception {
    s3 = S3TestServer.start(Files.createDirectories(directory.resolve("s3")), BUCKET);
    server = new LakeTestServer(directory.resolve("server"), LakeFlightServer.builder()
        .stage(URI.create("s3://" + BUCKET + "/prod/"), s3.endpoint, "us-east-1", true));
    store = s3.client();
    try (LakeClient lake = client()) {
      lake.execute("CREATE SCHEMA robots");
      lake.execute("CREATE TABLE robots.episodes (id BIGINT NOT NULL, video FILE)");
    }
  }

  @AfterEach
  void stop() throws Exception {
    try (S3TestServer closing = s3; LakeTestServer closingServer = server) {
      store.close();
    }
  }

  @Test
  void aKilledUploadPublishesNoVersionAndRunningItAgainResumesItToOneRow() throws Exception {
    Held held = startHeldAtPartThree("killed", 7);
    ChildJvm killed = held.child();
    String sha = held.sha();
    killed.process().destroyForcibly(); // SIGKILL while part 3 is in flight
    assertTrue(killed.process().waitFor(5, TimeUnit.MINUTES), "the killed child did not end");
    held.hold().release(false); // the held part is not stored

    assertNothingPublished(held.version(), sha);
    List<String> uploads = s3.parts.uploadIds();
    assertEquals(1, uploads.size());
    // Parts go S3Stage.PARTS_IN_FLIGHT at a time: 1, 2 and 4 may have been stored, 3 was held.
    List<Integer> kept = partNumbers(contentKey(sha), uploads.getFirst());
    assertTrue(!kept.contains(3), () -> "the interrupted multipart upload keeps the parts"
        + " stored before the kill, not the held one: " + kept);

    int storedBefore = s3.parts.stored().size();
    ChildJvm again = ChildJvm.upload(directory, "again", List.of(SMALL_HEAP), server.uri(), held.file(),
        directory.resolve("resume"));
    assertEquals(0, again.await(), again::output);
    assertTrue(again.output().contains("inserted 1"), again::output);

    assertEquals(held.version() + 1, server.version("robots", "episodes"));
    List<DataLocation> rows = rows();
    assertEquals(1, rows.size());
    assertEquals(FOUR_PARTS, rows.getFirst().size());
    assertEquals(sha, rows.getFirst().sha256());
    assertEquals(FOUR_PARTS, store.headObject(r -> r.bucket(BUCKET).key(contentKey(sha)))
        .contentLength());
    assertEquals(List.of(uploads.getFirst()), s3.parts.uploadIds(),
        "the run again resumed the same multipart upload");
    List<Integer> stored = s3.parts.stored();
    List<Integer> resumed = stored.subList(storedBefore, stored.size());
    // A part may be stored twice if a store's reply is lost and the S3 client retries it.
    List<Integer> missing = new ArrayList<>(List.of(1, 2, 3, 4));
    missing.removeAll(kept);
    assertEquals(missing, resumed.stream().distinct().sorted().toList(),
        () -> "the run again uploads the parts missing only (" + missing + "); it stored "
            + resumed);
    assertNoResumeRecord("the resume record is removed once the upload completed");
  }

  @Test
  void aFileChangedDuringItsUploadFailsNamingItAndPublishesNothing() throws Exception {
    // Eight parts: while part 3 is held, at most parts 1 to 6 were sent (S3Stage.PARTS_IN_FLIGHT
    // at a time, in order); part 8's bytes change before they are read, and what is sent must be
    // what was digested.
    Held held = startHeldAtPartThree("changed", 8, 2 * FOUR_PARTS);
    ChildJvm child = held.child();
    String sha = held.sha();
    try (FileChannel channel = FileChannel.open(held.file(), StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(new byte[4096]), 7L * S3Stage.DEFAULT_PART_SIZE + 1_000);
    }
    held.hold().release(true);
    assertEquals(UploadMain.FAILED, child.await(), child::output);

    String output = child.output();
    assertTrue(output.contains("failed dev.lake.sdk.LakeException$StageFailed"), output);
    assertTrue(output.contains(held.file() + " changed during upload (content)"), output);
    assertNothingPublished(held.version(), sha);
    String changed = HexSha.of(held.file());
    assertThrows(NoSuchKeyException.class, () -> store.headObject(r -> r.bucket(BUCKET)
        .key(contentKey(changed))), "nor under the changed file's key");
    List<String> uploads = s3.parts.uploadIds();
    assertEquals(1, uploads.size());
    assertEquals(uploads, s3.parts.aborted(), "the multipart upload of a changed file is aborted");
    assertEquals(List.of(), partNumbers(contentKey(sha), uploads.getFirst()),
        "no part of it is left in the store");
    assertNoResumeRecord("no resume record for an aborted upload");
  }

  @Test
  void aFileDeletedDuringItsUploadStillStoresTheBytesItDigested() throws Exception {
    Held held = startHeldAtPartThree("deleted", 10);
    Files.delete(held.file()); // POSIX: the upload reads on through its open descriptor
    held.hold().release(true);
    assertEquals(0, held.child().await(), held.child()::output);

    assertEquals(held.version() + 1, server.version("robots", "episodes"));
    List<DataLocation> rows = rows();
    assertEquals(1, rows.size());
    assertEquals(held.sha(), rows.getFirst().sha256());
    assertEquals(FOUR_PARTS, store.headObject(r -> r.bucket(BUCKET)
        .key(contentKey(held.sha()))).contentLength());
    assertNoResumeRecord("the resume record is removed once the upload completed");
  }

  @Test
  void theHeapStaysBoundedWhileALargeFileUploads() throws Exception {
    Path file = file(9, MEMORY_BYTES);
    String sha = HexSha.of(file);
    ChildJvm child = ChildJvm.upload(directory, "memory", List.of(CHILD_HEAP), server.uri(), file,
        directory.resolve("resume"), "--heap");
    assertEquals(0, child.await(), child::output);
    String output = child.output();
    Matcher heap = Pattern.compile("heap before=(\\d+) sampled=(\\d+) afterGc=(\\d+)"
        + " poolPeaks=(\\d+) max=(\\d+) allocated=(\\d+)").matcher(output);
    assertTrue(heap.find(), output);
    long afterGc = Long.parseLong(heap.group(3));
    System.out.printf("memory test: %d MiB uploaded with %s: live heap before the upload %.1f"
            + " MiB, live after GC peak %.1f MiB, heap sampled peak %.1f MiB, sum of pool peaks"
            + " %.1f MiB, max heap %.1f MiB, allocated during the upload %.1f MiB%n",
        MEMORY_BYTES >> 20, CHILD_HEAP, mib(heap.group(1)), mib(heap.group(3)),
        mib(heap.group(2)), mib(heap.group(4)), mib(heap.group(5)), mib(heap.group(6)));
    assertTrue(afterGc > 0, () -> "no collection ran during the upload: " + output);
    assertTrue(afterGc < LIVE_HEAP_BOUND, () -> "live heap after GC " + afterGc
        + " bytes, bound " + LIVE_HEAP_BOUND + ": " + output);

    List<DataLocation> rows = rows();
    assertEquals(1, rows.size());
    assertEquals(MEMORY_BYTES, rows.getFirst().size());
    assertEquals(sha, rows.getFirst().sha256());
  }

  private Path file(long seed, long size) throws IOException {
    return TestFiles.random(Files.createDirectories(directory.resolve("files")), seed, size);
  }

  /** A child's upload of a four-part file, held at part 3, and what was before it. */
  private record Held(Path file, String sha, long version, PartGate.Hold hold, ChildJvm child) {}

  /** A child uploading a new four-part file, once its upload of part 3 is held. */
  private Held startHeldAtPartThree(String name, long seed) throws Exception {
    return startHeldAtPartThree(name, seed, FOUR_PARTS);
  }

  /** As {@link #startHeldAtPartThree(String, long)}, of a file of {@code size} bytes. */
  private Held startHeldAtPartThree(String name, long seed, long size) throws Exception {
    Path file = file(seed, size);
    String sha = HexSha.of(file);
    long version = server.version("robots", "episodes");
    PartGate.Hold hold = s3.parts.hold(3);
    ChildJvm child = ChildJvm.upload(directory, name, List.of(SMALL_HEAP), server.uri(), file,
        directory.resolve("resume"));
    assertTrue(hold.awaitHeld(child.process()), () -> "the child ended early: " + child.output());
    return new Held(file, sha, version, hold, child);
  }

  /** No new table version, no row, no object under the content key of {@code sha}. */
  private void assertNothingPublished(long version, String sha) {
    assertEquals(version, server.version("robots", "episodes"), "a new table version");
    assertEquals(0, rows().size());
    assertThrows(NoSuchKeyException.class, () -> store.headObject(r -> r.bucket(BUCKET)
        .key(contentKey(sha))), "nothing published under the content key");
  }

  private void assertNoResumeRecord(String why) throws IOException {
    try (Stream<Path> left = Files.list(directory.resolve("resume"))) {
      assertEquals(List.of(), left.filter(f -> f.toString().endsWith(".upload")).toList(), why);
    }
  }

  private static double mib(String bytes) {
    return Long.parseLong(bytes) / 1048576.0;
  }

  private LakeClient client() {
    return LakeClient.connect(server.uri(), Credentials.none(), S3TestServer.CREDENTIALS, null);
  }

  private List<DataLocation> rows() {
    List<DataLocation> locations = new ArrayList<>();
    try (LakeClient lake = client();
        QueryResult result = lake.query("SELECT id, video FROM robots.episodes")) {
      for (Row row : result.rows()) {
        assertEquals(42L, row.getLong("id"));
        locations.add(row.getLocation("video"));
      }
    }
    return locations;
  }

  private static String contentKey(String sha) {
    return "prod/tenants/default/" + ObjectStage.contentKey(sha);
  }

  private List<Integer> partNumbers(String key, String uploadId) {
    return store.listParts(r -> r.bucket(BUCKET).key(key).uploadId(uploadId)).parts().stream()
        .map(Part::partNumber).toList();
  }
}
