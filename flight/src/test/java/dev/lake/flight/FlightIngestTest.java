package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.Version;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bulk ingest with the stock FlightSqlClient, read back with the stock JDBC driver. */
@SuppressWarnings("try")
class FlightIngestTest {

  private static final TableIdent RUNS = TableIdent.of("lab", "runs");
  private static final TableDefinitionOptions CREATE_OR_FAIL = TableDefinitionOptions.newBuilder()
      .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
      .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_FAIL)
      .build();

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() {
    lake = new LakeServerFixture(directory);
  }

  @AfterEach
  void stop() throws Exception {
    lake.close();
  }

  @Test
  void ingestCreatesThenAppendsAndJdbcReadsExactlyThoseRows() throws Exception {
    FlightSqlClient client = lake.client();
    long created;
    try (ArrowStreamReader first = IngestData.stream(lake.clientAllocator(), 0, 10, 10_000)) {
      created = client.executeIngest(first, IngestData.options("lab", "runs",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
          TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
    }
    assertEquals(100_000, created);
    long appended;
    try (ArrowStreamReader second = IngestData.stream(lake.clientAllocator(), 100_000, 3, 5_000)) {
      appended = client.executeIngest(second, IngestData.options("lab", "runs",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
          TableExistsOption.TABLE_EXISTS_OPTION_APPEND));
    }
    assertEquals(15_000, appended);
    assertEquals(Version.of(2), lake.catalog.lookup(RUNS).orElseThrow().version());

    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement()) {
      // ids 0..114999; reward = id / 2.
      try (ResultSet rs = statement.executeQuery(
          "SELECT COUNT(*), SUM(id), MIN(id), MAX(id), SUM(reward) FROM lab.runs")) {
        assertTrue(rs.next());
        assertEquals(115_000, rs.getLong(1));
        assertEquals(114_999L * 115_000 / 2, rs.getLong(2));
        assertEquals(0, rs.getLong(3));
        assertEquals(114_999, rs.getLong(4));
        assertEquals(114_999.0 * 115_000 / 4, rs.getDouble(5), 1e-3);
      }
      try (ResultSet rs = statement.executeQuery(
          "SELECT id, robot, reward FROM lab.runs WHERE id = 100001 OR id = 7 ORDER BY id")) {
        assertTrue(rs.next());
        assertEquals(7, rs.getLong("id"));
        assertEquals("optimus", rs.getString("robot"));
        assertEquals(3.5, rs.getDouble("reward"));
        assertTrue(rs.next());
        assertEquals(100_001, rs.getLong("id"));
        assertEquals("spot", rs.getString("robot"));
        assertEquals(50_000.5, rs.getDouble("reward"));
        assertTrue(!rs.next());
      }
      try (ResultSet rs = statement.executeQuery(
          "SELECT COUNT(*), MAX(id) FROM lab.runs FOR VERSION AS OF 1")) {
        assertTrue(rs.next());
        assertEquals(100_000, rs.getLong(1));
        assertEquals(99_999, rs.getLong(2));
      }
    }
  }

  /**
   * The server keeps statement plans (the plan cache); the same text, and the same JDBC prepared
   * statement, run again after every append and after a replace with another schema answer from
   * the data as it is then, and a column the replace removed is refused by name.
   */
  @Test
  void aRepeatedStatementSeesEveryAppendAndReplace() throws Exception {
    FlightSqlClient client = lake.client();
    String count = "SELECT COUNT(*), MAX(id) FROM lab.runs";
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 1_000)) {
      client.executeIngest(rows, IngestData.options("lab", "runs",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
    }
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement();
        java.sql.PreparedStatement prepared = connection.prepareStatement(count)) {
      long expected = 1_000;
      for (int round = 0; round < 3; round++) {
        if (round > 0) {
          try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), expected, 1_000)) {
            client.executeIngest(rows, IngestData.options("lab", "runs",
                TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL, TableExistsOption.TABLE_EXISTS_OPTION_APPEND));
          }
          expected += 1_000;
        }
        for (ResultSet rs : List.of(statement.executeQuery(count), prepared.executeQuery())) {
          try (rs) {
            assertTrue(rs.next());
            assertEquals(expected, rs.getLong(1), "round " + round);
            assertEquals(expected - 1, rs.getLong(2), "round " + round);
          }
        }
      }
      Schema narrow = new Schema(List.of(Field.nullable("name", ArrowType.Utf8.INSTANCE)));
      try (VectorSchemaRoot names = VectorSchemaRoot.create(narrow, lake.clientAllocator())) {
        ((VarCharVector) names.getVector(0)).setSafe(0, "only".getBytes(StandardCharsets.UTF_8));
        names.setRowCount(1);
        client.executeIngest(names, IngestData.options("lab", "runs",
            TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
            TableExistsOption.TABLE_EXISTS_OPTION_REPLACE));
      }
      java.sql.SQLException gone = assertThrows(java.sql.SQLException.class,
          () -> statement.executeQuery(count).close());
      assertTrue(String.valueOf(gone.getMessage()).contains("id"), gone.getMessage());
      try (ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM lab.runs")) {
        assertTrue(rs.next());
        assertEquals(1, rs.getLong(1));
      }
    }
  }

  @Test
  void replaceSwapsTheContent() throws Exception {
    FlightSqlClient client = lake.client();
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 1_000)) {
      client.executeIngest(rows, IngestData.options("lab", "runs",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
          TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
    }
    Schema narrow = new Schema(List.of(Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    try (VectorSchemaRoot names = VectorSchemaRoot.create(narrow, lake.clientAllocator())) {
      VarCharVector vector = (VarCharVector) names.getVector(0);
      vector.setSafe(0, "only".getBytes(StandardCharsets.UTF_8));
      vector.setSafe(1, "two".getBytes(StandardCharsets.UTF_8));
      names.setRowCount(2);
      assertEquals(2, client.executeIngest(names, IngestData.options("lab", "runs",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
          TableExistsOption.TABLE_EXISTS_OPTION_REPLACE)));
    }
    assertEquals(narrow, lake.catalog.lookup(RUNS).orElseThrow().schema());
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT name FROM lab.runs ORDER BY name")) {
      assertTrue(rs.next());
      assertEquals("only", rs.getString(1));
      assertTrue(rs.next());
      assertEquals("two", rs.getString(1));
      assertTrue(!rs.next());
    }
  }

  @Test
  void appendWithAnotherSchemaIsRefusedNamingTheColumnAndAddsNoVersion() throws Exception {
    FlightSqlClient client = lake.client();
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 10)) {
      client.executeIngest(rows, IngestData.options("lab", "runs",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
          TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
    }
    Version before = lake.catalog.lookup(RUNS).orElseThrow().version();
    Schema wrong = new Schema(List.of(
        Field.notNullable("id", new ArrowType.Int(64, true)),
        Field.nullable("robot", ArrowType.Utf8.INSTANCE),
        Field.nullable("reward", new ArrowType.Int(32, true))));
    try (VectorSchemaRoot rows = VectorSchemaRoot.create(wrong, lake.clientAllocator())) {
      rows.setRowCount(0);
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> client.executeIngest(rows, IngestData.options("lab", "runs",
              TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
              TableExistsOption.TABLE_EXISTS_OPTION_APPEND)));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
      assertTrue(e.getMessage().contains("reward"), e.getMessage());
    }
    assertEquals(before, lake.catalog.lookup(RUNS).orElseThrow().version());
    assertServerStillAnswers();
  }

  @Test
  void ingestIntoAnExistingTableWithFailIsAlreadyExists() throws Exception {
    FlightSqlClient client = lake.client();
    var options = IngestData.options("lab", "runs",
        TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
        TableExistsOption.TABLE_EXISTS_OPTION_FAIL);
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 10)) {
      client.executeIngest(rows, options);
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> client.executeIngest(rows, options));
      assertEquals(FlightStatusCode.ALREADY_EXISTS, e.status().code());
      assertTrue(e.getMessage().contains("lab.runs"), e.getMessage());
    }
    assertEquals(Version.of(1), lake.catalog.lookup(RUNS).orElseThrow().version());
    assertServerStillAnswers();
  }

  @Test
  void ingestIntoAMissingTableWithoutCreateIsNotFound() throws Exception {
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 10)) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> lake.client().executeIngest(rows, IngestData.options("lab", "runs",
              TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
              TableExistsOption.TABLE_EXISTS_OPTION_APPEND)));
      assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
    }
    assertTrue(lake.catalog.lookup(RUNS).isEmpty());
  }

  @Test
  void ingestWithoutSchemaOrIntoATemporaryTableIsInvalid() throws Exception {
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 10)) {
      var noSchema = new FlightSqlClient.ExecuteIngestOptions("runs", CREATE_OR_FAIL, false,
          null, null, Map.of());
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, assertThrows(FlightRuntimeException.class,
          () -> lake.client().executeIngest(rows, noSchema)).status().code());
      var temporary = new FlightSqlClient.ExecuteIngestOptions("runs", CREATE_OR_FAIL, true,
          null, "lab", Map.of());
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, assertThrows(FlightRuntimeException.class,
          () -> lake.client().executeIngest(rows, temporary)).status().code());
    }
    assertTrue(lake.catalog.namespaces().isEmpty());
  }

  @Test
  void payloadOverTheLimitIsResourceExhaustedAndChangesNothing() throws Exception {
    lake.close();
    lake = new LakeServerFixture(directory.resolve("small"),
        LakeFlightServer.builder().maxIngestBytes(64 * 1024));
    try (ArrowStreamReader big = IngestData.stream(lake.clientAllocator(), 0, 20, 1_000)) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> lake.client().executeIngest(big, IngestData.options("lab", "runs",
              TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
              TableExistsOption.TABLE_EXISTS_OPTION_FAIL)));
      assertEquals(FlightStatusCode.RESOURCE_EXHAUSTED, e.status().code());
    }
    assertTrue(lake.catalog.lookup(RUNS).isEmpty());
    assertServerStillAnswers();
  }

  private void assertServerStillAnswers() throws Exception {
    FlightSqlClient client = lake.client();
    assertEquals(List.of(List.of("lake")),
        FlightMetadataTest.rows(client, client.getCatalogs()));
  }
}
