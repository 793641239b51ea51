package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.Version;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ingest stream without rows (a schema and no batches, or only empty batches) is answered
 * precisely and never adds a version: CREATE of a missing table creates it empty, as the mode
 * asks; APPEND to an existing table changes nothing; REPLACE leaves an empty table of the stream's
 * schema (the spec's drop and recreate); a stream without even a
 * schema is INVALID_ARGUMENT and creates nothing.
 */
@SuppressWarnings("try")
class FlightEmptyIngestTest {

  private static final TableIdent RUNS = TableIdent.of("lab", "runs");
  private static final TableIdent FRESH = TableIdent.of("lab", "fresh");

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 10)) {
      lake.client().executeIngest(rows, options("runs", TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
    }
  }

  @AfterEach
  void stop() throws Exception {
    lake.close();
  }

  @Test
  void createOfAMissingTableWithOnlyASchemaCreatesItEmpty() throws Exception {
    try (ArrowStreamReader empty = IngestData.stream(lake.clientAllocator(), 0, 0, 0)) {
      assertEquals(0, lake.client().executeIngest(empty,
          options("fresh", TableExistsOption.TABLE_EXISTS_OPTION_FAIL)));
    }
    var entry = lake.catalog.lookup(FRESH).orElseThrow();
    assertEquals(Version.of(0), entry.version());
    assertEquals(IngestData.EPISODES, entry.schema());
    assertEquals(List.of(List.of(0L)),
        FlightIngestValidationTest.rows(lake.client(), "SELECT count(*) FROM lab.fresh"));
  }

  @Test
  void createWithOnlyEmptyBatchesCreatesTheTableWithoutAVersion() throws Exception {
    try (ArrowStreamReader empty = IngestData.stream(lake.clientAllocator(), 0, 3, 0)) {
      assertEquals(0, lake.client().executeIngest(empty,
          options("fresh", TableExistsOption.TABLE_EXISTS_OPTION_APPEND)));
    }
    assertEquals(Version.of(0), lake.catalog.lookup(FRESH).orElseThrow().version());
  }

  @Test
  void appendWithoutRowsChangesNothing() throws Exception {
    try (VectorSchemaRoot none = IngestData.episodes(lake.clientAllocator(), 0, 0)) {
      assertEquals(0, lake.client().executeIngest(none,
          options("runs", TableExistsOption.TABLE_EXISTS_OPTION_APPEND)));
    }
    try (ArrowStreamReader empty = IngestData.stream(lake.clientAllocator(), 0, 0, 0)) {
      assertEquals(0, lake.client().executeIngest(empty,
          options("runs", TableExistsOption.TABLE_EXISTS_OPTION_APPEND)));
    }
    assertRunsUnchanged();
  }

  @Test
  void appendWithoutRowsStillChecksTheColumns() throws Exception {
    Schema other = new Schema(List.of(Field.nullable("score", new ArrowType.Int(32, true))));
    try (VectorSchemaRoot none = VectorSchemaRoot.create(other, lake.clientAllocator())) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> lake.client().executeIngest(none,
              options("runs", TableExistsOption.TABLE_EXISTS_OPTION_APPEND)));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
      assertTrue(e.getMessage().contains("schema mismatch"), e.getMessage());
    }
    assertRunsUnchanged();
  }

  @Test
  void replaceWithoutRowsLeavesAnEmptyTableOfTheStreamsSchema() throws Exception {
    var before = lake.catalog.lookup(RUNS).orElseThrow();
    try (ArrowStreamReader empty = IngestData.stream(lake.clientAllocator(), 0, 0, 0)) {
      assertEquals(0, lake.client().executeIngest(empty,
          options("runs", TableExistsOption.TABLE_EXISTS_OPTION_REPLACE)));
    }
    var after = lake.catalog.lookup(RUNS).orElseThrow();
    assertNotEquals(before.incarnation(), after.incarnation(), "dropped and recreated");
    assertEquals(Version.of(0), after.version());
    assertEquals(IngestData.EPISODES, after.schema());
    assertEquals(List.of(List.of(0L)),
        FlightIngestValidationTest.rows(lake.client(), "SELECT count(*) FROM lab.runs"));
    // The replaced table takes appends as any other.
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 4)) {
      assertEquals(4, lake.client().executeIngest(rows,
          options("runs", TableExistsOption.TABLE_EXISTS_OPTION_APPEND)));
    }
    assertEquals(List.of(List.of(4L)),
        FlightIngestValidationTest.rows(lake.client(), "SELECT count(*) FROM lab.runs"));
  }

  @Test
  void replaceWithoutRowsOfAMissingTableWithoutCreateIsNotFoundAndCreatesNothing() throws Exception {
    try (ArrowStreamReader empty = IngestData.stream(lake.clientAllocator(), 0, 0, 0)) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> lake.client().executeIngest(empty, IngestData.options("lab", "fresh",
              TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
              TableExistsOption.TABLE_EXISTS_OPTION_REPLACE)));
      assertEquals(FlightStatusCode.NOT_FOUND, e.status().code(), e.getMessage());
      assertTrue(e.getMessage().contains("lab.fresh"), e.getMessage());
    }
    assertTrue(lake.catalog.lookup(FRESH).isEmpty());
    assertRunsUnchanged();
  }

  @Test
  void failOnAnExistingTableIsAlreadyExistsWithoutRowsToo() throws Exception {
    try (ArrowStreamReader empty = IngestData.stream(lake.clientAllocator(), 0, 0, 0)) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> lake.client().executeIngest(empty,
              options("runs", TableExistsOption.TABLE_EXISTS_OPTION_FAIL)));
      assertEquals(FlightStatusCode.ALREADY_EXISTS, e.status().code(), e.getMessage());
    }
    assertRunsUnchanged();
  }

  @Test
  void aStreamWithoutASchemaIsInvalidAndCreatesNothing() throws Exception {
    TableDefinitionOptions create = TableDefinitionOptions.newBuilder()
        .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
        .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND).build();
    byte[] descriptorOnly = org.apache.arrow.flight.impl.Flight.FlightData.newBuilder()
        .setFlightDescriptor(RawDoPut.ingest("lab", "fresh", create)).build().toByteArray();
    try (RawDoPut raw = new RawDoPut(lake.port())) {
      RawDoPut.Answer answer = raw.send(List.of(descriptorOnly));
      assertEquals(Status.Code.INVALID_ARGUMENT, answer.status().getCode(), answer.describe());
      assertTrue(answer.status().getDescription().contains("no schema"), answer.describe());
    }
    assertTrue(lake.catalog.lookup(FRESH).isEmpty());
    assertRunsUnchanged();
  }

  private void assertRunsUnchanged() throws Exception {
    assertEquals(Version.of(1), lake.catalog.lookup(RUNS).orElseThrow().version());
    assertEquals(List.of(List.of(10L)),
        FlightIngestValidationTest.rows(lake.client(), "SELECT count(*) FROM lab.runs"));
  }

  private static FlightSqlClient.ExecuteIngestOptions options(String table,
      TableExistsOption ifExists) {
    return IngestData.options("lab", table, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
        ifExists);
  }
}
