package dev.lake.sdk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.DataLocation;
import dev.lake.flight.LakeFlightServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Action {@code lake.presign}: the Query tier signs a GET URL of the caller's object with its own
 * storage credentials, so a client without any can share it; other tenants' objects and careless
 * bodies are refused before anything is signed.
 */
class LakeClientPresignTest {

  @TempDir Path directory;
  private S3TestServer s3;
  private LakeTestServer server;
  private DataLocation stored;
  private byte[] bytes;

  @BeforeEach
  void start() throws Exception {
    s3 = S3TestServer.start(Files.createDirectories(directory.resolve("s3")), "lake-stage");
    server = new LakeTestServer(directory.resolve("server"), LakeFlightServer.builder()
        .stage(URI.create("s3://lake-stage/prod/"), s3.endpoint, "us-east-1", true)
        .stagePresigning(S3TestServer.CREDENTIALS.accessKeyId(),
            S3TestServer.CREDENTIALS.secretAccessKey()));
    Path file = TestFiles.random(directory, 7, 300_000);
    bytes = Files.readAllBytes(file);
    try (LakeClient writer = LakeClient.connect(server.uri(), Credentials.none(),
        S3TestServer.CREDENTIALS, null)) {
      writer.execute("CREATE SCHEMA robots");
      writer.execute("CREATE TABLE robots.episodes (id BIGINT NOT NULL, video FILE)");
      writer.execute("INSERT INTO robots.episodes (id, video) VALUES (?, ?)", 1L,
          FileUpload.of(file, "video/mp4"));
      try (QueryResult result = writer.query("SELECT video FROM robots.episodes")) {
        stored = result.rows().iterator().next().getLocation("video");
      }
    }
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    s3.close();
  }

  @Test
  void aClientWithoutStorageCredentialsGetsAWorkingUrlFromTheQueryTier() throws Exception {
    try (LakeClient reader = LakeClient.connect(server.uri(), Credentials.none(),
        StageCredentials.of("nobody", "not-a-secret"), null)) {
      URI url = reader.presign(stored, Duration.ofMinutes(5));
      HttpResponse<byte[]> got = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(url).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
      assertEquals(200, got.statusCode(), new String(got.body(), StandardCharsets.UTF_8));
      assertArrayEquals(bytes, got.body());
      assertTrue(url.getQuery().contains("X-Amz-Expires=300"), url.toString());
    }
  }

  @Test
  void carelessOrForeignRequestsAreRefusedBeforeAnythingIsSigned() throws Exception {
    String mine = stored.uri().toString();
    String prefix = "s3://lake-stage/prod/tenants/default/";
    try (RootAllocator allocator = new RootAllocator();
        FlightClient flight = FlightClient.builder(allocator,
            Location.forGrpcInsecure("127.0.0.1", URI.create(server.uri()).getPort())).build()) {
      assertRefused(flight, "{\"uri\": \"s3://lake-stage/prod/tenants/other/objects/ab/x\", \"ttl_seconds\": 60}",
          FlightStatusCode.UNAUTHORIZED, "tenants/other");
      assertRefused(flight, "{\"uri\": \"" + prefix + "../other/objects/x\", \"ttl_seconds\": 60}",
          FlightStatusCode.UNAUTHORIZED, "../other");
      assertRefused(flight, "{\"uri\": \"s3://another-bucket/prod/tenants/default/x\", \"ttl_seconds\": 60}",
          FlightStatusCode.UNAUTHORIZED, "another-bucket");
      assertRefused(flight, "{\"uri\": \"" + prefix + "\", \"ttl_seconds\": 60}",
          FlightStatusCode.UNAUTHORIZED, prefix);
      assertRefused(flight, "{\"uri\": \"" + mine + "\", \"ttl_seconds\": 0}",
          FlightStatusCode.INVALID_ARGUMENT, "ttl_seconds");
      assertRefused(flight, "{\"uri\": \"" + mine + "\", \"ttl_seconds\": 604801}",
          FlightStatusCode.INVALID_ARGUMENT, "7 days");
      assertRefused(flight, "{\"uri\": \"" + mine + "\"}", FlightStatusCode.INVALID_ARGUMENT,
          "ttl_seconds");
      assertRefused(flight, "not json", FlightStatusCode.INVALID_ARGUMENT, "JSON");
    }
    try (LakeClient reader = LakeClient.connect(server.uri(), Credentials.none())) {
      assertThrows(IllegalArgumentException.class, () -> reader.presign(stored, Duration.ZERO));
      DataLocation foreign = new DataLocation(URI.create("s3://lake-stage/prod/tenants/other/objects/"
          + stored.sha256().substring(0, 2) + "/" + stored.sha256()), "video/mp4", stored.size(),
          stored.sha256());
      LakeException.PermissionDenied denied = assertThrows(LakeException.PermissionDenied.class,
          () -> reader.presign(foreign, Duration.ofMinutes(1)));
      assertTrue(denied.getMessage().contains("tenants/other"), denied.getMessage());
    }
  }

  private static void assertRefused(FlightClient flight, String body, FlightStatusCode code,
      String named) {
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> flight.doAction(
        new Action("lake.presign", body.getBytes(StandardCharsets.UTF_8))).forEachRemaining(r -> { }));
    assertEquals(code, e.status().code(), body + ": " + e.getMessage());
    assertTrue(e.getMessage().contains(named), body + ": " + e.getMessage());
  }
}
