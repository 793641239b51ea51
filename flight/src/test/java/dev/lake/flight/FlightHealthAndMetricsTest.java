package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.flight.ops.Health;
import dev.lake.flight.ops.OpsEndpoint;
import dev.lake.flight.ops.ServerMetrics;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's health answers the standard gRPC health protocol (asked by grpc-java's own
 * stub, as load balancers and probes ask it) and, with its metrics, on the loopback HTTP
 * endpoint.
 */
class FlightHealthAndMetricsTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path directory;

  @Test
  void grpcHealthFollowsReadinessAndNamesUnknownServices() throws Exception {
    AtomicBoolean ready = new AtomicBoolean(false);
    try (LakeServerFixture lake = new LakeServerFixture(directory,
        LakeFlightServer.builder().readiness(ready::get))) {
      ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", lake.port())
          .usePlaintext().build();
      try {
        HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel)
            .withDeadlineAfter(30, TimeUnit.SECONDS);
        assertEquals(ServingStatus.NOT_SERVING,
            health.check(HealthCheckRequest.getDefaultInstance()).getStatus());
        ready.set(true);
        assertEquals(ServingStatus.SERVING,
            health.check(HealthCheckRequest.getDefaultInstance()).getStatus());
        assertEquals(ServingStatus.SERVING, health.check(HealthCheckRequest.newBuilder()
            .setService("arrow.flight.protocol.FlightService").build()).getStatus());

        StatusRuntimeException unknown = assertThrows(StatusRuntimeException.class,
            () -> health.check(HealthCheckRequest.newBuilder().setService("no.such.Service")
                .build()));
        assertEquals(Status.Code.NOT_FOUND, unknown.getStatus().getCode());
        assertTrue(unknown.getStatus().getDescription().contains("no.such.Service"),
            unknown.getStatus().getDescription());

        lake.server.health().drain();
        assertEquals(ServingStatus.NOT_SERVING,
            health.check(HealthCheckRequest.getDefaultInstance()).getStatus(),
            "a draining server is not ready, whatever its condition says");
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void metricsEndpointCountsCallsByMethodAndStatus() throws Exception {
    try (LakeServerFixture lake = new LakeServerFixture(directory,
        LakeFlightServer.builder().role("query").metrics("127.0.0.1", 0))) {
      FlightSqlClient client = lake.client();
      try (FlightStream stream = client.getStream(
          client.execute("SELECT 1").getEndpoints().get(0).getTicket())) {
        while (stream.next()) {
          // drain
        }
      }
      assertThrows(RuntimeException.class, () -> client.execute("SELECT * FROM no_such_table"));

      String base = "http://127.0.0.1:" + lake.server.metricsPort();
      HttpResponse<String> metrics = get(base + "/metrics");
      assertEquals(200, metrics.statusCode());
      String text = metrics.body();
      assertTrue(text.contains("lake_grpc_calls_total{method=\"/arrow.flight.protocol"
          + ".FlightService/GetFlightInfo\",role=\"query\",status=\"OK\"}"), text);
      assertTrue(text.contains("lake_grpc_calls_total{method=\"/arrow.flight.protocol"
          + ".FlightService/GetFlightInfo\",role=\"query\",status=\"NOT_FOUND\"}"), text);
      assertTrue(text.contains("method=\"/arrow.flight.protocol.FlightService/DoGet\""), text);
      assertTrue(text.contains("lake_workers_active{role=\"query\"}"), text);
      assertTrue(text.contains("lake_catalog_cache_hits_total{role=\"query\"}"), text);
      assertTrue(text.contains("lake_catalog_snapshot_age_seconds{role=\"query\"}"), text);

      assertEquals(200, get(base + "/health/live").statusCode());
      assertEquals(200, get(base + "/health/ready").statusCode());
      assertEquals(404, get(base + "/secrets").statusCode());
      HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
          .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(405, post.statusCode());

      lake.server.health().drain();
      assertEquals(503, get(base + "/health/ready").statusCode());
      assertEquals(200, get(base + "/health/live").statusCode(), "draining is still live");
    }
  }

  @Test
  void metricsEndpointRefusesAnAddressOtherThanLoopback() {
    Vertx vertx = Vertx.vertx();
    try {
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
          () -> OpsEndpoint.start(vertx, "0.0.0.0", 0, ServerMetrics.create("dev", Set.of()),
              Health.of(() -> true, Set.of())));
      assertTrue(refused.getMessage().contains("0.0.0.0"), refused.getMessage());
    } finally {
      vertx.close();
    }
  }

  private static HttpResponse<String> get(String uri) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(uri)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
