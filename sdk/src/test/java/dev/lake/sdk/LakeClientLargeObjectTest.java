package dev.lake.sdk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.DataLocation;
import dev.lake.flight.LakeFlightServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A large file (200 MB; {@code -Dlake.sdk.largeObjectBytes=N} for another size) end to end, once
 * with {@code lake dev}'s local stage and once with an S3 stage on S3Proxy: uploaded by a FILE
 * insert, its row read back through the stock Flight SQL JDBC driver and through the SDK, the
 * object read whole and by range and compared with the file, then its stored bytes changed, which
 * the verified read reports naming the object.
 */
class LakeClientLargeObjectTest {

  private static final long SIZE = Long.getLong("lake.sdk.largeObjectBytes", 200L << 20);

  @TempDir Path directory;

  @Test
  void aLargeFileRoundTripsThroughTheLocalStage() throws Exception {
    URI root = URI.create(directory.toUri() + "stage/");
    try (LakeTestServer server = new LakeTestServer(directory.resolve("server"),
        LakeFlightServer.builder().stage(root, null, null, false))) {
      roundTrip(server, StageCredentials.defaultChain(), location -> Path.of(location.uri()));
    }
  }

  @Test
  void aLargeFileRoundTripsThroughAnS3Stage() throws Exception {
    Path blobs = Files.createDirectories(directory.resolve("s3"));
    try (S3TestServer s3 = S3TestServer.start(blobs, "lake-stage");
        LakeTestServer server = new LakeTestServer(directory.resolve("server"),
            LakeFlightServer.builder().stage(URI.create("s3://lake-stage/prod/"), s3.endpoint,
                "us-east-1", true))) {
      // S3Proxy's file-system store keeps each object as a file named by its key.
      roundTrip(server, S3TestServer.CREDENTIALS, location -> blobs.resolve("lake-stage")
          .resolve(location.uri().getPath().substring(1)));
    }
  }

  private void roundTrip(LakeTestServer server, StageCredentials credentials,
      java.util.function.Function<DataLocation, Path> stored) throws Exception {
    Path file = TestFiles.random(Files.createDirectories(directory.resolve("files")), 42, SIZE);
    String sha = HexSha.of(file);
    try (LakeClient lake = LakeClient.connect(server.uri(), Credentials.none(), credentials,
        directory.resolve("resume"))) {
      lake.execute("CREATE SCHEMA robots");
      lake.execute("CREATE TABLE robots.episodes (id BIGINT NOT NULL, video FILE)");
      assertEquals(1, lake.execute("INSERT INTO robots.episodes (id, video) VALUES (?, ?)",
          42L, FileUpload.of(file, "application/x-mcap")));
      assertEquals(1, server.version("robots", "episodes"));

      DataLocation location;
      try (QueryResult result = lake.query("SELECT id, video FROM robots.episodes")) {
        Row row = result.rows().iterator().next();
        assertEquals(42L, row.getLong("id"));
        location = row.getLocation("video");
      }
      assertEquals(SIZE, location.size());
      assertEquals(sha, location.sha256());
      assertEquals("application/x-mcap", location.mimeType());
      assertTrue(location.uri().toString().endsWith("tenants/default/objects/"
          + sha.substring(0, 2) + "/" + sha), location.uri().toString());

      try (Connection jdbc = DriverManager.getConnection("jdbc:arrow-flight-sql://127.0.0.1:"
          + URI.create(server.uri()).getPort() + "/?useEncryption=false");
          Statement statement = jdbc.createStatement();
          ResultSet rs = statement.executeQuery("SELECT id, video FROM robots.episodes")) {
        assertTrue(rs.next());
        assertEquals(42L, rs.getLong("id"));
        Map<?, ?> video = (Map<?, ?>) rs.getObject("video");
        assertEquals(location.uri().toString(), String.valueOf(video.get("uri")));
        assertEquals(SIZE, ((Number) video.get("size")).longValue());
        assertEquals(sha, String.valueOf(video.get("sha256")));
        assertEquals("application/x-mcap", String.valueOf(video.get("mime_type")));
      }

      try (InputStream read = lake.open(location);
          InputStream original = Files.newInputStream(file)) {
        assertSameBytes(original, read);
      }
      long from = SIZE / 2 + 12_345;
      byte[] range = TestFiles.readAll(lake.openRange(location, from, from + 1_000_000));
      assertArrayEquals(slice(file, from, 1_000_000), range);

      // Change one byte of the stored object: the verified read fails at its end, naming it.
      Path object = stored.apply(location);
      try (FileChannel channel = FileChannel.open(object, StandardOpenOption.READ,
          StandardOpenOption.WRITE)) {
        ByteBuffer one = ByteBuffer.allocate(1);
        channel.read(one, SIZE / 3);
        one.put(0, (byte) (one.get(0) ^ 0x01));
        one.rewind();
        channel.write(one, SIZE / 3);
      }
      ObjectVerificationException tampered = assertThrows(ObjectVerificationException.class,
          () -> TestFiles.drain(lake.open(location)));
      assertTrue(tampered.getMessage().contains(location.uri().toString()),
          tampered.getMessage());
    }
  }

  private static byte[] slice(Path file, long from, int length) throws IOException {
    try (FileChannel channel = FileChannel.open(file)) {
      ByteBuffer buffer = ByteBuffer.allocate(length);
      while (buffer.hasRemaining() && channel.read(buffer, from + buffer.position()) > 0) {
        // read until full
      }
      return buffer.array();
    }
  }

  private static void assertSameBytes(InputStream expected, InputStream actual) throws IOException {
    byte[] a = new byte[1 << 20];
    byte[] b = new byte[1 << 20];
    long offset = 0;
    while (true) {
      int n = expected.readNBytes(a, 0, a.length);
      int m = actual.readNBytes(b, 0, b.length);
      assertEquals(n, m, "lengths differ at byte " + (offset + Math.min(n, m)));
      if (n == 0) {
        return;
      }
      if (!Arrays.equals(a, 0, n, b, 0, m)) {
        throw new AssertionError("bytes differ in the MiB at " + offset);
      }
      offset += n;
    }
  }
}
