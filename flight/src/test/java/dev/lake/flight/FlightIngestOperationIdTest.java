package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.Version;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
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
  private VersionHeaderClient client;

  @BeforeEach
  void start() {
    lake = new LakeServerFixture(directory);
    client = new VersionHeaderClient(lake);
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
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
    try (VectorSchemaRoot data = IngestData.episodes(lake.clientAllocator(), from, rows)) {
      return client.sql.executeIngest(data, withId(operationId));
    }
  }

  @Test
  void aRepeatedOperationReturnsTheVersionItCommittedAndAppendsNothing() throws Exception {
    String id = UUID.randomUUID().toString();
    assertEquals(10, ingest(0, 10, id));
    assertEquals("1", client.version());
    assertEquals(10, ingest(0, 10, id));
    assertEquals("1", client.version(), "the repeat answers the first commit's version");
    assertEquals(Version.of(1), lake.catalog.lookup(RUNS).orElseThrow().version());

    assertEquals(5, ingest(100, 5, UUID.randomUUID().toString()));
    assertEquals("2", client.version());
    assertEquals(10, ingest(0, 10, id), "an older operation repeated later still answers");
    assertEquals("1", client.version());
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
