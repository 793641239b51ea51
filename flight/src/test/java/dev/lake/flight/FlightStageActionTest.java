package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lake.flight.auth.Authenticator;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Iterator;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Result;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flight action {@code lake.stage}: the caller's tenant prefix of the server's stage, as JSON. */
class FlightStageActionTest {

  @TempDir Path directory;

  private static JsonNode stage(int port, CallOption... options) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client = FlightClient.builder(allocator,
            Location.forGrpcInsecure("127.0.0.1", port)).build()) {
      Iterator<Result> results = client.doAction(new Action(StageAction.TYPE), options);
      JsonNode body = new ObjectMapper().readTree(
          new String(results.next().getBody(), StandardCharsets.UTF_8));
      assertFalse(results.hasNext());
      return body;
    }
  }

  @Test
  void stageNamesTheAuthenticatedTenantsPrefix() throws Exception {
    Path principals = FlightAuthTest.writePrincipals(directory.resolve("principals.json"));
    URI root = URI.create(directory.resolve("stage").toUri() + "/");
    try (LakeServerFixture lake = new LakeServerFixture(directory, LakeFlightServer.builder()
        .authenticator(Authenticator.load(principals, Clock.systemUTC()))
        .stage(root, null, null, false))) {
      JsonNode body = stage(lake.port(), FlightAuthTest.bearer(FlightAuthTest.READER_TOKEN));
      assertEquals("t1", body.get("tenant").asText());
      assertEquals(root.resolve("tenants/t1/").toString(), body.get("root").asText());
      assertTrue(body.get("s3Endpoint").isNull());
      assertFalse(body.get("s3PathStyle").asBoolean());
      assertEquals("t2", stage(lake.port(), FlightAuthTest.bearer(FlightAuthTest.WRITER_TOKEN))
          .get("tenant").asText());

      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> stage(lake.port()));
      assertEquals(FlightStatusCode.UNAUTHENTICATED, e.status().code(), e.getMessage());
    }
  }

  @Test
  void s3StageCarriesEndpointRegionAndStyle() throws Exception {
    try (LakeServerFixture lake = new LakeServerFixture(directory, LakeFlightServer.builder()
        .stage(URI.create("s3://bucket/lake/"), URI.create("http://127.0.0.1:9000"), "eu-west-1",
            true))) {
      JsonNode body = stage(lake.port());
      assertEquals("default", body.get("tenant").asText());
      assertEquals("s3://bucket/lake/tenants/default/", body.get("root").asText());
      assertEquals("http://127.0.0.1:9000", body.get("s3Endpoint").asText());
      assertEquals("eu-west-1", body.get("s3Region").asText());
      assertTrue(body.get("s3PathStyle").asBoolean());
    }
  }

  @Test
  void serverWithoutStageAnswersUnimplemented() throws Exception {
    try (LakeServerFixture lake = new LakeServerFixture(directory)) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> stage(lake.port()));
      assertEquals(FlightStatusCode.UNIMPLEMENTED, e.status().code(), e.getMessage());
      assertTrue(e.getMessage().contains("--stage"), e.getMessage());
    }
  }

  @Test
  void builderRefusesARootThatIsNotFileOrS3EndingInSlash() {
    assertThrows(IllegalArgumentException.class, () -> LakeFlightServer.builder()
        .stage(URI.create("http://host/x/"), null, null, false));
    assertThrows(IllegalArgumentException.class, () -> LakeFlightServer.builder()
        .stage(URI.create("s3://bucket/x"), null, null, false));
  }
}
