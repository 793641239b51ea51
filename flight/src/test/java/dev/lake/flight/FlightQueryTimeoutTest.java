package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.sql.TableName;
import java.util.Optional;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deadlines and cancellation over Flight, in each phase of a call: planning (GetFlightInfo,
 * CreatePreparedStatement) and execution (DoGet). The phase is not reached by timing: a {@link
 * StallingSqlCatalog} makes opening the table (planning) or a unit of its scan (execution) wait
 * until the call is stopped, so the call cannot end any other way, on an idle machine or a loaded
 * one. Each test proves the status, that the server's workers stop, that the call's memory is
 * released (the fixture's close is the leak check) and that the next query succeeds.
 */
class FlightQueryTimeoutTest {

  private static final TableIdent BIG = TableIdent.of("demo", "big");
  private static final String QUERY = "SELECT count(*), sum(reward) FROM demo.big";
  /** A bound on how long stopping may take before the test calls it a hang, not a timing margin. */
  private static final long HANG_SECONDS = 60;

  @TempDir Path directory;
  private LakeServerFixture lake;
  private StallingSqlCatalog stalls;

  private void start(LakeFlightServer.Builder builder) throws Exception {
    lake = new LakeServerFixture(directory, builder, sql -> {
      stalls = new StallingSqlCatalog(sql, new TableName("demo", "big"));
      return stalls;
    });
    lake.registry.create(BIG, IngestData.EPISODES, "log");
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 5, 2_000)) {
      lake.registry.append(BIG, Optional.empty(), new AppendOperation("default", "demo.big", UUID.randomUUID(),
          "0".repeat(64)), rows);
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (lake != null) {
      lake.close();
    }
  }

  @Test
  void theServersQueryTimeoutStopsAQueryWhileItScans() throws Exception {
    start(LakeFlightServer.builder().queryTimeout(Duration.ofMillis(300)));
    FlightSqlClient client = lake.client();
    FlightInfo info = client.execute(QUERY);
    stalls.arm(StallingSqlCatalog.Phase.SCANNING);
    FlightRuntimeException e = readFails(client, info);
    assertEquals(FlightStatusCode.TIMED_OUT, e.status().code(), e.getMessage());
    assertTrue(e.getMessage().contains("timed out after 300 ms"), e.getMessage());
    assertServerStopped();
    assertQueryWorks(client);
  }

  @Test
  void theClientsDeadlineStopsAQueryWhileItScans() throws Exception {
    start(LakeFlightServer.builder());
    FlightSqlClient client = lake.client();
    FlightInfo info = client.execute(QUERY);
    stalls.arm(StallingSqlCatalog.Phase.SCANNING);
    FlightRuntimeException e = readFails(client, info, CallOptions.timeout(300, TimeUnit.MILLISECONDS));
    assertEquals(FlightStatusCode.TIMED_OUT, e.status().code(), e.getMessage());
    assertServerStopped();
    assertQueryWorks(client);
  }

  @Test
  void aClientThatCancelsWhileTheQueryScansStopsItOnTheServer() throws Exception {
    start(LakeFlightServer.builder());
    FlightSqlClient client = lake.client();
    FlightInfo info = client.execute(QUERY);
    stalls.arm(StallingSqlCatalog.Phase.SCANNING);
    FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket());
    assertTrue(stalls.awaitStalled(HANG_SECONDS), "the query never reached its scan");
    stream.cancel("the user gave up", null);
    assertThrows(Exception.class, () -> {
      while (stream.next()) {
        assertTrue(stream.getRoot().getRowCount() >= 0);
      }
    });
    stream.close();
    assertServerStopped();
    assertQueryWorks(client);
  }

  @Test
  void theServersQueryTimeoutBoundsPlanningInGetFlightInfo() throws Exception {
    start(LakeFlightServer.builder().queryTimeout(Duration.ofMillis(300)));
    FlightSqlClient client = lake.client();
    stalls.arm(StallingSqlCatalog.Phase.PLANNING);
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> client.execute(QUERY));
    assertEquals(FlightStatusCode.TIMED_OUT, e.status().code(), e.getMessage());
    assertTrue(e.getMessage().contains("timed out after 300 ms"), e.getMessage());
    assertServerStopped();
    assertQueryWorks(client);
  }

  @Test
  void theClientsDeadlineBoundsPlanningInCreatePreparedStatement() throws Exception {
    start(LakeFlightServer.builder());
    FlightSqlClient client = lake.client();
    stalls.arm(StallingSqlCatalog.Phase.PLANNING);
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
        () -> client.prepare(QUERY, CallOptions.timeout(300, TimeUnit.MILLISECONDS)));
    assertEquals(FlightStatusCode.TIMED_OUT, e.status().code(), e.getMessage());
    assertServerStopped();
    assertQueryWorks(client);
  }

  @Test
  void aClientThatCancelsGetFlightInfoWhilePlanningStopsThePlanning() throws Exception {
    start(LakeFlightServer.builder());
    FlightSqlClient client = lake.client();
    stalls.arm(StallingSqlCatalog.Phase.PLANNING);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    // A blocking gRPC call cancels itself when its thread is interrupted.
    Thread caller = new Thread(() -> {
      try {
        client.execute(QUERY);
      } catch (Throwable t) {
        failure.set(t);
      }
    });
    caller.start();
    assertTrue(stalls.awaitStalled(HANG_SECONDS), "planning never reached the table");
    caller.interrupt();
    caller.join(TimeUnit.SECONDS.toMillis(HANG_SECONDS));
    assertTrue(failure.get() instanceof FlightRuntimeException f
        && f.status().code() == FlightStatusCode.CANCELLED, String.valueOf(failure.get()));
    assertServerStopped();
    assertQueryWorks(client);
  }

  private static FlightRuntimeException readFails(FlightSqlClient client, FlightInfo info,
      CallOption... options) {
    return assertThrows(FlightRuntimeException.class, () -> {
      try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket(), options)) {
        while (stream.next()) {
          assertTrue(stream.getRoot().getRowCount() >= 0);
        }
      }
    });
  }

  private void assertQueryWorks(FlightSqlClient client) throws Exception {
    stalls.arm(StallingSqlCatalog.Phase.NONE);
    FlightInfo info = client.execute("SELECT count(*) FROM demo.big");
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket())) {
      assertTrue(stream.next());
      assertEquals(10_000L, ((org.apache.arrow.vector.BigIntVector) stream.getRoot().getVector(0)).get(0));
    }
  }

  /**
   * No stalled work is left, no server worker or query worker runs, and the server holds no Arrow
   * memory, all seen at one moment. Stopping is asynchronous (the worker notices at its next
   * check, and cleanup may run as a separate task after it), so this waits for that moment,
   * failing with what still runs only if it never comes.
   */
  private void assertServerStopped() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
    while (true) {
      int stalling = stalls.stalling.get();
      int workers = lake.server.activeWorkers();
      boolean queryWorkers = queryWorkersBusy();
      long memory = serverMemory();
      if (stalling == 0 && workers == 0 && !queryWorkers && memory == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        assertEquals(0, stalling, "stalled work still runs after its call ended");
        assertEquals(0, workers, "a server worker is still busy");
        assertTrue(!queryWorkers, "a query worker still runs after its query");
        assertEquals(0, memory, "the stopped call still holds Arrow memory");
      }
      Thread.sleep(10);
    }
  }

  // Query workers are pooled: an idle one is alive but runs no lake code.
  private static boolean queryWorkersBusy() {
    return Thread.getAllStackTraces().entrySet().stream()
        .anyMatch(e -> e.getKey().getName().startsWith("lake-sql-worker") && e.getKey().isAlive()
            && Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().startsWith("dev.lake.")));
  }

  // Everything under the root except the test's own client allocator belongs to the server.
  private long serverMemory() {
    return lake.root.getAllocatedMemory() - lake.clientAllocator().getAllocatedMemory();
  }
}
