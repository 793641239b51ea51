package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
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
 * Query deadlines over Flight: the server's query timeout and the client's gRPC deadline both
 * stop a long parallel join within a bound, its workers exit, its memory is released (the
 * fixture's close is the leak check) and the next query on the same server succeeds.
 */
class FlightQueryTimeoutTest {

  private static final TableIdent BIG = TableIdent.of("demo", "big");
  /** A self-join with 1,000 matches per row over 100,000 rows: far longer than any bound here. */
  private static final String LONG_QUERY = "SELECT count(*), sum(a.reward + b.reward) FROM demo.big a"
      + " JOIN demo.big b ON a.id % 100 = b.id % 100";

  @TempDir Path directory;
  private LakeServerFixture lake;

  private void start(LakeFlightServer.Builder builder) throws Exception {
    lake = new LakeServerFixture(directory, builder);
    lake.catalog.create(BIG, IngestData.EPISODES, "log");
    for (int segment = 0; segment < 4; segment++) {
      try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), segment * 25_000L, 5, 5_000)) {
        lake.catalog.append(BIG, new AppendOperation("default", "demo.big", UUID.randomUUID(),
            String.format("%064x", segment)), rows);
      }
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (lake != null) {
      lake.close();
    }
  }

  @Test
  void theServersQueryTimeoutIsDeadlineExceededAndStopsTheWorkers() throws Exception {
    FlightRuntimeException e = timesOut(LakeFlightServer.builder().queryTimeout(Duration.ofMillis(200)));
    assertTrue(e.getMessage().contains("timed out after 200 ms"), e.getMessage());
  }

  @Test
  void theClientsDeadlineStopsTheQueryOnTheServer() throws Exception {
    timesOut(LakeFlightServer.builder(), CallOptions.timeout(200, TimeUnit.MILLISECONDS));
  }

  /**
   * Runs the long query on a server built by {@code builder}, reading with {@code options}: it
   * must fail with TIMED_OUT within a bound of its 200 ms limit, leave no worker and no buffer
   * behind, and the next query must succeed.
   */
  private FlightRuntimeException timesOut(LakeFlightServer.Builder builder, CallOption... options)
      throws Exception {
    start(builder);
    FlightSqlClient client = lake.client();
    FlightInfo info = client.execute(LONG_QUERY);
    long begin = System.nanoTime();
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> {
      try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket(), options)) {
        while (stream.next()) {
          assertTrue(stream.getRoot().getRowCount() >= 0);
        }
      }
    });
    long millis = (System.nanoTime() - begin) / 1_000_000;
    assertEquals(FlightStatusCode.TIMED_OUT, e.status().code(), e.getMessage());
    assertTrue(millis < 2_000, "failed " + millis + " ms after the call began, 200 ms limit");
    assertServerStopped();
    assertEquals(100_000L, count(client));
    return e;
  }

  @Test
  void aClientThatCancelsStopsTheQueryOnTheServer() throws Exception {
    start(LakeFlightServer.builder());
    FlightSqlClient client = lake.client();
    FlightInfo info = client.execute(LONG_QUERY);
    FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket());
    Thread.sleep(300);
    stream.cancel("the user gave up", null);
    assertThrows(Exception.class, () -> {
      while (stream.next()) {
        assertTrue(stream.getRoot().getRowCount() >= 0);
      }
    });
    stream.close();
    assertServerStopped();
    assertEquals(100_000L, count(client));
  }

  private static long count(FlightSqlClient client) throws Exception {
    FlightInfo info = client.execute("SELECT count(*) FROM demo.big");
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket())) {
      assertTrue(stream.next());
      return ((org.apache.arrow.vector.BigIntVector) stream.getRoot().getVector(0)).get(0);
    }
  }

  /** Within two seconds, no query worker runs the query and the server holds no Arrow memory. */
  private void assertServerStopped() throws InterruptedException {
    long deadline = System.nanoTime() + 2_000_000_000L;
    while (System.nanoTime() < deadline && (workersAlive() || serverMemory() > 0)) {
      Thread.sleep(10);
    }
    assertTrue(!workersAlive(), "a query worker still runs after its query");
    assertEquals(0, serverMemory(), "the stopped query still holds Arrow memory");
  }

  // Workers are pooled: an idle one is alive but runs no lake code.
  private static boolean workersAlive() {
    return Thread.getAllStackTraces().entrySet().stream()
        .anyMatch(e -> e.getKey().getName().startsWith("lake-sql-worker") && e.getKey().isAlive()
            && Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().startsWith("dev.lake.")));
  }

  // Everything under the root except the test's own client allocator belongs to the server.
  private long serverMemory() {
    return lake.root.getAllocatedMemory() - lake.clientAllocator().getAllocatedMemory();
  }
}
