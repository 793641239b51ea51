package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With Vert.x's blocked-thread checker set tight (an event-loop task may run 100 ms, checked every
 * 20 ms), a workload of concurrent queries of two tenants, many of them waiting for admission,
 * makes the checker report nothing: waiting for a place is a callback, never a parked event loop.
 * The checker is first shown to report a loop blocked on purpose, through the same log capture.
 */
@SuppressWarnings("try")
class FlightEventLoopNeverBlocksTest {

  private static final String CHECKER = "io.vertx.core.impl.BlockedThreadChecker";

  @TempDir Path directory;

  private static VertxOptions tight() {
    return new VertxOptions()
        .setBlockedThreadCheckInterval(20)
        .setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS)
        .setMaxEventLoopExecuteTime(100)
        .setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS);
  }

  @Test
  void queuedAndRunningQueriesNeverBlockAnEventLoop() throws Exception {
    PrintStream originalErr = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream capture = new PrintStream(log, true, StandardCharsets.UTF_8);
    System.setErr(new PrintStream(new FlightClientGoneTest.TeeStream(originalErr, capture), true,
        StandardCharsets.UTF_8));
    try {
      checkerIsHeard(log);
      log.reset();
      workload(log);
    } finally {
      System.setErr(originalErr);
    }
  }

  /** A loop blocked on purpose until the checker's warning is in the capture. */
  private static void checkerIsHeard(ByteArrayOutputStream log) throws Exception {
    Vertx vertx = Vertx.vertx(tight());
    try {
      vertx.runOnContext(v -> {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!log.toString(StandardCharsets.UTF_8).contains(CHECKER)
            && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      });
      FlightAdmissionTest.await(() -> log.toString(StandardCharsets.UTF_8).contains(CHECKER),
          "the checker reports a loop blocked on purpose");
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private void workload(ByteArrayOutputStream log) throws Exception {
    TableIdent table = TableIdent.of("demo", "episodes");
    try (LakeServerFixture lake = new LakeServerFixture(directory, LakeFlightServer.builder()
        .vertxOptions(tight())
        .authenticator(FlightAdmissionTest.twoTenants(directory.resolve("principals.json")))
        .admission(3, 2, 256, Duration.ofMinutes(10))
        .maxBytesInFlight(256 << 10))) {
      lake.registry.create(table, IngestData.EPISODES, "log");
      try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 100, 10_000)) {
        lake.registry.append(table, Optional.empty(), new AppendOperation("default",
            "demo.episodes", UUID.randomUUID(), "0".repeat(64)), rows);
      }
      // A million rows (about 22 MB): far more than the client's window and the server's bytes
      // in flight, so a stream the client does not read never ends by itself.
      List<FlightSqlClient> clients = new ArrayList<>();
      ExecutorService threads = Executors.newFixedThreadPool(12);
      try {
        for (int i = 0; i < 12; i++) {
          clients.add(new FlightSqlClient(FlightClient.builder(lake.clientAllocator(),
              Location.forGrpcInsecure("127.0.0.1", lake.port())).build()));
        }
        // Warm up each path once (class loading on a cold JVM is not the server's doing).
        for (String token : List.of(FlightAdmissionTest.TOKEN_A, FlightAdmissionTest.TOKEN_B)) {
          FlightAuthTest.count(clients.get(0), "SELECT count(*) FROM demo.episodes",
              FlightAdmissionTest.as(token));
        }
        assertFalse(log.toString(StandardCharsets.UTF_8).contains(CHECKER),
            "warm-up: " + log.toString(StandardCharsets.UTF_8));
        log.reset();

        // Tenant a holds both its places with streams it does not read, so its queries queue.
        FlightStream[] held = new FlightStream[2];
        for (int i = 0; i < 2; i++) {
          FlightSqlClient holder = clients.get(10 + i);
          held[i] = holder.getStream(holder.execute("SELECT * FROM demo.episodes",
              FlightAdmissionTest.as(FlightAdmissionTest.TOKEN_A)).getEndpoints().getFirst()
              .getTicket(), FlightAdmissionTest.as(FlightAdmissionTest.TOKEN_A));
        }
        QueryAdmission admission = lake.server.admission();
        FlightAdmissionTest.await(() -> admission.running("a") == 2, "a holds its places");

        List<Future<Long>> queries = new ArrayList<>();
        for (int c = 0; c < 10; c++) {
          FlightSqlClient client = clients.get(c);
          String token = c % 2 == 0 ? FlightAdmissionTest.TOKEN_A : FlightAdmissionTest.TOKEN_B;
          for (int q = 0; q < 6; q++) {
            long id = c * 100L + q;
            queries.add(threads.submit(() -> FlightAuthTest.count(client,
                "SELECT id, reward FROM demo.episodes WHERE id = " + id,
                FlightAdmissionTest.as(token))));
          }
        }
        FlightAdmissionTest.await(() -> admission.queued() >= 5, "a's queries queue");
        for (FlightStream stream : held) {
          stream.cancel("done holding", null);
          try {
            stream.close();
          } catch (Exception e) {
            // the cancellation reported
          }
        }
        for (Future<Long> query : queries) {
          assertEquals(1L, query.get(120, TimeUnit.SECONDS));
        }
        FlightAdmissionTest.await(() -> admission.running() == 0, "every place is back");
      } finally {
        threads.shutdownNow();
        for (FlightSqlClient client : clients) {
          client.close();
        }
      }
    }
    String logged = log.toString(StandardCharsets.UTF_8);
    assertFalse(logged.contains(CHECKER), logged);
    assertTrue(logged.isEmpty() || !logged.contains("blocked"), logged);
  }
}
