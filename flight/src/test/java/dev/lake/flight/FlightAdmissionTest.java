package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.Secrets;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
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
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admission through the stock FlightSqlClient, two tenants by token: tenant a holds all its places
 * with streams it does not read, and tenant b's queries are still admitted and answered; a's
 * further queries wait, and past the queue bound are refused with {@code RESOURCE_EXHAUSTED}
 * naming a and the bound while the server stays up; a cancelled {@code DoGet}, running or waiting,
 * gives its place back. The Prometheus scrape then shows the admission's meters.
 */
@SuppressWarnings("try")
class FlightAdmissionTest {

  static final String TOKEN_A = Secrets.newToken();
  static final String TOKEN_B = Secrets.newToken();
  private static final TableIdent BIG = TableIdent.of("demo", "big");
  private static final int ROWS = 1_000_000;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path directory;
  private LakeServerFixture lake;
  private final List<AutoCloseable> clients = new ArrayList<>();

  /** Tenants a and b, one administrator token each. */
  static Authenticator twoTenants(Path file) throws Exception {
    Files.writeString(file, """
        {"principals": [
          {"name": "alice", "tenant": "a", "role": "ADMIN", "namespaces": ["*"],
           "token_sha256": "%s"},
          {"name": "bob", "tenant": "b", "role": "ADMIN", "namespaces": ["*"],
           "token_sha256": "%s"}]}
        """.formatted(Secrets.tokenHash(TOKEN_A), Secrets.tokenHash(TOKEN_B)));
    return Authenticator.load(file);
  }

  private void startWithBigTable() throws Exception {
    // Places: 4 in all, 2 per tenant, 3 waiting. The wait is long: nothing here may expire.
    lake = new LakeServerFixture(directory, LakeFlightServer.builder()
        .authenticator(twoTenants(directory.resolve("principals.json")))
        .admission(4, 2, 3, Duration.ofMinutes(10))
        .maxBytesInFlight(256 << 10)
        .metrics("127.0.0.1", 0));
    lake.registry.create(BIG, IngestData.EPISODES, "log");
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 100, ROWS / 100)) {
      lake.registry.append(BIG, Optional.empty(), new AppendOperation("default", "demo.big",
          UUID.randomUUID(), "0".repeat(64)), rows);
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = clients.size() - 1; i >= 0; i--) {
      clients.get(i).close();
    }
    if (lake != null) {
      lake.close();
    }
  }

  /** A client on its own connection (a stream it does not read must not hold another's window). */
  private FlightSqlClient client() {
    FlightSqlClient client = new FlightSqlClient(FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).build());
    clients.add(client);
    return client;
  }

  static CallOption as(String token) {
    return FlightAuthTest.bearer(token);
  }

  @Test
  void aTenantHoldingAllItsPlacesCannotStarveAnotherAndItsFloodIsRefused() throws Exception {
    startWithBigTable();
    QueryAdmission admission = lake.server.admission();
    FlightSqlClient holder1 = client();
    FlightSqlClient holder2 = client();
    FlightSqlClient floodA = client();
    FlightSqlClient b = client();
    String scan = "SELECT id, robot, reward FROM demo.big";
    Ticket t1 = holder1.execute(scan, as(TOKEN_A)).getEndpoints().getFirst().getTicket();
    Ticket t2 = holder2.execute(scan, as(TOKEN_A)).getEndpoints().getFirst().getTicket();

    // Tenant a takes its two places with streams it never reads.
    FlightStream held1 = holder1.getStream(t1, as(TOKEN_A));
    FlightStream held2 = holder2.getStream(t2, as(TOKEN_A));
    await(() -> admission.running("a") == 2, "a holds its two places");

    ExecutorService threads = Executors.newFixedThreadPool(3);
    try {
      // a's next three queries wait (a is at its cap), filling the queue.
      List<Future<FlightInfo>> waiting = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        waiting.add(threads.submit(() -> floodA.execute(
            "SELECT count(*) FROM demo.big WHERE id < 10", as(TOKEN_A))));
      }
      await(() -> admission.queued() == 3, "a's three queries wait");

      FlightRuntimeException refused = assertThrows(FlightRuntimeException.class,
          () -> floodA.execute("SELECT 1", as(TOKEN_A)));
      assertEquals(FlightStatusCode.RESOURCE_EXHAUSTED, refused.status().code());
      assertTrue(refused.getMessage().contains("tenant 'a'")
          && refused.getMessage().contains("max queued queries 3"), refused.getMessage());

      // Tenant b is admitted at once and answered, twice over, while a floods.
      for (int i = 0; i < 2; i++) {
        assertEquals(1, FlightAuthTest.count(b, "SELECT id FROM demo.big WHERE id = 7",
            as(TOKEN_B)));
      }
      assertEquals(3, admission.queued(), "a's queries still wait");

      // A cancelled stream gives its place back: a's waiting queries are admitted and answer.
      held1.cancel("the client gives up", null);
      for (Future<FlightInfo> query : waiting) {
        assertEquals(1, query.get(60, TimeUnit.SECONDS).getEndpoints().size());
      }
      await(() -> admission.running("a") == 1, "only the unread stream holds a place");

      // A DoGet cancelled while it waits leaves the queue and is never admitted.
      Ticket t3 = waiting.get(0).get().getEndpoints().getFirst().getTicket();
      Ticket t4 = waiting.get(1).get().getEndpoints().getFirst().getTicket();
      FlightStream held3 = holder1.getStream(t3, as(TOKEN_A));
      await(() -> admission.running("a") == 2, "a holds two places again");
      FlightStream queuedStream = floodA.getStream(t4, as(TOKEN_A));
      await(() -> admission.queued() == 1, "a's third DoGet waits");
      queuedStream.cancel("the client gives up while waiting", null);
      await(() -> admission.queued() == 0, "the cancelled DoGet left the queue");
      assertEquals(2, admission.running("a"));
      closeQuietly(queuedStream);

      closeQuietly(held1);
      closeQuietly(held2);
      closeQuietly(held3);
      await(() -> admission.running() == 0, "every place is given back");
    } finally {
      threads.shutdownNow();
    }
    assertEquals(1, FlightAuthTest.count(b, "SELECT id FROM demo.big WHERE id = 8", as(TOKEN_B)),
        "the server stays up");

    String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + lake.server.metricsPort() + "/metrics")).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertEquals(1.0, value(metrics, "lake_query_admissions_refused_total",
        "reason=\"queue_full\",role=\"dev\",tenant=\"a\""), metrics);
    assertEquals(0.0, value(metrics, "lake_query_queue_depth", "role=\"dev\""), metrics);
    assertEquals(0.0, value(metrics, "lake_queries_running", "role=\"dev\""), metrics);
    assertTrue(value(metrics, "lake_query_seconds_count", "role=\"dev\",tenant=\"b\"") >= 3,
        metrics);
    assertTrue(metrics.contains("lake_query_seconds_bucket{role=\"dev\",tenant=\"b\",le="),
        "a latency histogram: " + metrics);
    assertTrue(value(metrics, "lake_query_streamed_bytes_total", "role=\"dev\",tenant=\"a\"")
        > 0, metrics);
    assertTrue(value(metrics, "lake_query_queue_wait_seconds_count", "role=\"dev\",tenant=\"a\"")
        >= 3, metrics);
  }

  @Test
  void aQueryThatWaitsPastTheBoundIsRefusedAndTheServerStaysUp() throws Exception {
    TableIdent slow = TableIdent.of("demo", "slow");
    StallingSqlCatalog[] stalling = new StallingSqlCatalog[1];
    lake = new LakeServerFixture(directory, LakeFlightServer.builder()
        .authenticator(twoTenants(directory.resolve("principals.json")))
        .admission(4, 1, 8, Duration.ofMillis(300))
        .metrics("127.0.0.1", 0),
        inner -> stalling[0] = new StallingSqlCatalog(inner,
            new dev.lake.sql.TableName("demo", "slow")));
    lake.registry.create(slow, IngestData.EPISODES, "log");
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 1, 10)) {
      lake.registry.append(slow, Optional.empty(), new AppendOperation("default", "demo.slow",
          UUID.randomUUID(), "0".repeat(64)), rows);
    }
    FlightSqlClient holder = client();
    FlightSqlClient a = client();
    Ticket ticket = holder.execute("SELECT id FROM demo.slow", as(TOKEN_A)).getEndpoints()
        .getFirst().getTicket();
    stalling[0].arm(StallingSqlCatalog.Phase.SCANNING);
    FlightStream held = holder.getStream(ticket, as(TOKEN_A));
    assertTrue(stalling[0].awaitStalled(60), "a's query holds its one place, scanning");

    FlightRuntimeException refused = assertThrows(FlightRuntimeException.class,
        () -> a.execute("SELECT 1", as(TOKEN_A)));
    assertEquals(FlightStatusCode.RESOURCE_EXHAUSTED, refused.status().code());
    assertTrue(refused.getMessage().contains("tenant 'a'")
        && refused.getMessage().contains("300 ms (max queue wait)"), refused.getMessage());
    assertEquals(0, lake.server.admission().queued());

    held.cancel("the client gives up", null);
    closeQuietly(held);
    await(() -> lake.server.admission().running() == 0, "the cancelled stream's place is back");
    stalling[0].arm(StallingSqlCatalog.Phase.NONE);
    assertEquals(1, FlightAuthTest.count(a, "SELECT id FROM demo.slow WHERE id = 3",
        as(TOKEN_A)), "the server stays up");
    String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + lake.server.metricsPort() + "/metrics")).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertEquals(1.0, value(metrics, "lake_query_admissions_refused_total",
        "reason=\"wait_expired\",role=\"dev\",tenant=\"a\""), metrics);
  }

  /** The value of one series in a Prometheus text scrape; fails if the series is absent. */
  static double value(String scrape, String name, String labels) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name + "{" + labels + "}") + " (\\S+)$")
        .matcher(scrape);
    assertTrue(m.find(), name + "{" + labels + "} is not in the scrape");
    return Double.parseDouble(m.group(1));
  }

  static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
      Thread.sleep(5);
    }
  }

  private static void closeQuietly(FlightStream stream) {
    try {
      stream.close();
    } catch (Exception e) {
      // a cancelled stream reports its cancellation on close
    }
  }
}
