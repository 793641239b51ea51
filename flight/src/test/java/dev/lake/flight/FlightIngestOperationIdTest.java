package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.Version;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ingest option {@code lake.operation_id}: the client names its append once and may repeat it
 * after an ambiguous failure; the server answers the version it committed in header {@code
 * lake-table-version}, and a repeat returns that version instead of appending again.
 */
class FlightIngestOperationIdTest {

  private static final TableIdent RUNS = TableIdent.of("lab", "runs");

  @TempDir Path directory;
  private LakeServerFixture lake;
  private FlightClient flight;
  private FlightSqlClient client;
  private final AtomicReference<String> versionHeader = new AtomicReference<>();

  @BeforeEach
  void start() {
    lake = new LakeServerFixture(directory);
    FlightClientMiddleware.Factory headers = info -> new FlightClientMiddleware() {
      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoing) {}

      @Override
      public void onHeadersReceived(CallHeaders incoming) {
        versionHeader.set(incoming.get("lake-table-version"));
      }

      @Override
      public void onCallCompleted(CallStatus status) {}
    };
    flight = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).intercept(headers).build();
    client = new FlightSqlClient(flight);
  }

  @AfterEach
  void stop() throws Exception {
    flight.close();
    lake.close();
  }

  private static FlightSqlClient.ExecuteIngestOptions withId(String operationId) {
    return new FlightSqlClient.ExecuteIngestOptions("runs",
        TableDefinitionOptions.newBuilder()
            .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
            .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND).build(),
        false, null, "lab", Map.of("lake.operation_id", operationId));
  }

  private long ingest(long from, int rows, String operationId) throws Exception {
    versionHeader.set(null);
    try (VectorSchemaRoot data = IngestData.episodes(lake.clientAllocator(), from, rows)) {
      return client.executeIngest(data, withId(operationId));
    }
  }

  @Test
  void aRepeatedOperationReturnsTheVersionItCommittedAndAppendsNothing() throws Exception {
    String id = UUID.randomUUID().toString();
    assertEquals(10, ingest(0, 10, id));
    assertEquals("1", versionHeader.get());
    assertEquals(10, ingest(0, 10, id));
    assertEquals("1", versionHeader.get(), "the repeat answers the first commit's version");
    assertEquals(Version.of(1), lake.catalog.lookup(RUNS).orElseThrow().version());

    assertEquals(5, ingest(100, 5, UUID.randomUUID().toString()));
    assertEquals("2", versionHeader.get());
    assertEquals(10, ingest(0, 10, id), "an older operation repeated later still answers");
    assertEquals("1", versionHeader.get());
    assertEquals(Version.of(2), lake.catalog.lookup(RUNS).orElseThrow().version());
  }

  @Test
  void anOperationIdReusedForAnotherPayloadIsRefusedAndChangesNothing() throws Exception {
    String id = UUID.randomUUID().toString();
    ingest(0, 10, id);
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
        () -> ingest(50, 10, id));
    assertEquals(FlightStatusCode.ALREADY_EXISTS, e.status().code(), e.getMessage());
    assertTrue(e.getMessage().contains(id) && e.getMessage().contains("another payload"),
        e.getMessage());
    assertEquals(Version.of(1), lake.catalog.lookup(RUNS).orElseThrow().version());
  }

  @Test
  void aMalformedOperationIdIsInvalidBeforeAnythingIsWritten() {
    for (String bad : new String[] {"", "42", "not-a-uuid", "1-2-3-4-5",
        UUID.randomUUID() + "x"}) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> ingest(0, 10, bad));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
      assertTrue(e.getMessage().contains("lake.operation_id"), e.getMessage());
    }
    assertTrue(lake.catalog.lookup(RUNS).isEmpty(), "no table was created");
  }
}
