package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import java.util.Optional;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.ActionType;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Queries over the stock JDBC driver (every query a prepared statement) and FlightSqlClient,
 * against a 1,000-row episodes table: id 0..999, robot cycling atlas/spot/digit/optimus,
 * reward = id / 2.
 */
@SuppressWarnings("try")
class FlightQueryTest {

  private static final TableIdent EPISODES = TableIdent.of("demo", "episodes");

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    lake.registry.create(EPISODES, IngestData.EPISODES, "log");
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 4, 250)) {
      lake.registry.append(EPISODES, Optional.empty(), new AppendOperation("default", "demo.episodes",
          UUID.randomUUID(), "0".repeat(64)), rows);
    }
  }

  @AfterEach
  void stop() throws Exception {
    lake.close();
  }

  @Test
  void jdbcRunsFiltersAggregatesOrderByAndLimit() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement()) {
      try (ResultSet rs = statement.executeQuery(
          "SELECT robot, COUNT(*) AS n, SUM(reward) AS total FROM demo.episodes"
              + " WHERE id >= 100 GROUP BY robot ORDER BY robot")) {
        List<String> robots = new ArrayList<>();
        long rows = 0;
        double total = 0;
        while (rs.next()) {
          robots.add(rs.getString("robot"));
          rows += rs.getLong("n");
          total += rs.getDouble("total");
        }
        assertEquals(List.of("atlas", "digit", "optimus", "spot"), robots);
        assertEquals(900, rows);
        assertEquals((100 + 999) * 900 / 2 / 2.0, total, 1e-9);
      }
      try (ResultSet rs = statement.executeQuery(
          "SELECT id, reward FROM demo.episodes WHERE robot = 'spot' ORDER BY id DESC LIMIT 3")) {
        List<Long> ids = new ArrayList<>();
        while (rs.next()) {
          ids.add(rs.getLong(1));
          assertEquals(rs.getLong(1) / 2.0, rs.getDouble(2));
        }
        assertEquals(List.of(997L, 993L, 989L), ids);
      }
      try (ResultSet rs = statement.executeQuery(
          "SELECT COUNT(*) FROM demo.episodes WHERE reward BETWEEN 10 AND 20")) {
        assertTrue(rs.next());
        assertEquals(21, rs.getLong(1));
      }
    }
  }

  @Test
  void jdbcDatabaseMetaDataDescribesTheTable() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl())) {
      DatabaseMetaData meta = connection.getMetaData();
      try (ResultSet rs = meta.getCatalogs()) {
        assertTrue(rs.next());
        assertEquals("lake", rs.getString("TABLE_CAT"));
        assertFalse(rs.next());
      }
      try (ResultSet rs = meta.getSchemas()) {
        assertTrue(rs.next());
        assertEquals("demo", rs.getString("TABLE_SCHEM"));
        assertFalse(rs.next());
      }
      try (ResultSet rs = meta.getTables("lake", "demo", "epi%", null)) {
        assertTrue(rs.next());
        assertEquals("episodes", rs.getString("TABLE_NAME"));
        assertEquals("TABLE", rs.getString("TABLE_TYPE"));
        assertFalse(rs.next());
      }
      try (ResultSet rs = meta.getColumns("lake", "demo", "episodes", "%")) {
        List<String> columns = new ArrayList<>();
        while (rs.next()) {
          columns.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("DATA_TYPE"));
        }
        assertEquals(List.of("id:" + java.sql.Types.BIGINT, "robot:" + java.sql.Types.VARCHAR,
            "reward:" + java.sql.Types.DOUBLE), columns);
      }
    }
  }

  @Test
  void flightSqlClientRunsStatementsAndPreparedStatements() throws Exception {
    FlightSqlClient client = lake.client();
    FlightInfo info = client.execute("SELECT id FROM demo.episodes WHERE id < 5 ORDER BY id");
    assertEquals(info.getSchemaOptional().orElseThrow(), client.getExecuteSchema(
        "SELECT id FROM demo.episodes WHERE id < 5 ORDER BY id").getSchema());
    assertEquals(List.of(List.of("0"), List.of("1"), List.of("2"), List.of("3"), List.of("4")),
        FlightMetadataTest.rows(client, info));
    try (FlightSqlClient.PreparedStatement prepared =
        client.prepare("SELECT MAX(id) FROM demo.episodes")) {
      assertEquals(1, prepared.getResultSetSchema().getFields().size());
      assertEquals(List.of(List.of("999")), FlightMetadataTest.rows(client, prepared.execute()));
    }
  }

  @Test
  void aLargeResultStreamsInManyBatchesAndAnAbandonedStreamLeaksNothing() throws Exception {
    lake.close();
    lake = new LakeServerFixture(directory.resolve("big"),
        LakeFlightServer.builder().maxBytesInFlight(64 * 1024));
    TableIdent big = TableIdent.of("demo", "big");
    lake.registry.create(big, IngestData.EPISODES, "log");
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 20, 25_000)) {
      lake.registry.append(big, Optional.empty(), new AppendOperation("default", "demo.big", UUID.randomUUID(),
          "0".repeat(64)), rows);
    }
    FlightSqlClient client = lake.client();
    FlightInfo info = client.execute("SELECT id, robot FROM demo.big");
    long rows = 0;
    long sum = 0;
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        rows += root.getRowCount();
        var ids = (org.apache.arrow.vector.BigIntVector) root.getVector("id");
        for (int i = 0; i < root.getRowCount(); i++) {
          sum += ids.get(i);
        }
      }
    }
    assertEquals(500_000, rows);
    assertEquals(499_999L * 500_000 / 2, sum);

    // Read one batch, then walk away: the server must stop and release the query.
    FlightStream abandoned = client.getStream(info.getEndpoints().get(0).getTicket());
    assertTrue(abandoned.next());
    abandoned.cancel("test walks away", null);
    abandoned.close();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (serverMemory() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(0, serverMemory(), "the cancelled query still holds Arrow memory");
  }

  // Everything under the root except the test's own client allocator belongs to the server.
  private long serverMemory() {
    return lake.root.getAllocatedMemory() - lake.clientAllocator().getAllocatedMemory();
  }

  @Test
  void syntaxErrorIsInvalidArgumentWithThePosition() throws Exception {
    SQLException e = assertJdbcFails("SELECT id FORM demo.episodes");
    assertTrue(e.getMessage().contains("line 1, column"), e.getMessage());
    FlightRuntimeException flight = assertThrows(FlightRuntimeException.class,
        () -> lake.client().execute("SELECT id FORM demo.episodes"));
    assertEquals(FlightStatusCode.INVALID_ARGUMENT, flight.status().code());
    assertTrue(flight.getMessage().contains("line 1, column"), flight.getMessage());
    assertServerStillAnswers();
  }

  @Test
  void unknownTableIsNotFoundNamingIt() throws Exception {
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
        () -> lake.client().execute("SELECT * FROM demo.nosuchtable"));
    assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
    assertTrue(e.getMessage().contains("nosuchtable"), e.getMessage());
    assertTrue(assertJdbcFails("SELECT * FROM demo.nosuchtable").getMessage()
        .contains("nosuchtable"));
    assertServerStillAnswers();
  }

  @Test
  void unknownColumnIsInvalidArgumentNamingIt() throws Exception {
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
        () -> lake.client().execute("SELECT nosuchcolumn FROM demo.episodes"));
    assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
    assertTrue(e.getMessage().contains("nosuchcolumn"), e.getMessage());
    assertServerStillAnswers();
  }

  @Test
  void garbageTicketIsInvalidArgument() throws Exception {
    FlightSqlClient client = lake.client();
    for (byte[] ticket : new byte[][] {"garbage".getBytes(StandardCharsets.UTF_8), new byte[0],
        java.util.Arrays.copyOf(client.execute("SELECT id FROM demo.episodes")
            .getEndpoints().get(0).getTicket().getBytes(), 12)}) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> {
        try (FlightStream stream = client.getStream(new Ticket(ticket))) {
          while (stream.next()) {
            // drain
          }
        }
      });
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
      assertTrue(e.getMessage().contains("invalid ticket"), e.getMessage());
    }
    assertServerStillAnswers();
  }

  @Test
  void unsupportedCommandsAndActionsAreUnimplementedByName() throws Exception {
    FlightRuntimeException update = assertThrows(FlightRuntimeException.class,
        () -> lake.client().executeUpdate("DELETE FROM demo.episodes"));
    assertEquals(FlightStatusCode.UNIMPLEMENTED, update.status().code());
    // CommandStatementUpdate runs DDL and INSERT (FlightUpdateTest); DELETE is refused by name.
    assertTrue(update.getMessage().startsWith("DELETE") && update.getMessage().contains("append-only"),
        update.getMessage());
    try (FlightClient flight = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).build()) {
      FlightRuntimeException action = assertThrows(FlightRuntimeException.class, () -> {
        Iterator<Result> results = flight.doAction(new Action("BeginTransaction", new byte[0]));
        results.hasNext();
      });
      assertEquals(FlightStatusCode.UNIMPLEMENTED, action.status().code());
      assertTrue(action.getMessage().contains("BeginTransaction"), action.getMessage());

      List<String> actions = new ArrayList<>();
      for (ActionType type : flight.listActions()) {
        actions.add(type.getType());
      }
      assertEquals(List.of("CreatePreparedStatement", "ClosePreparedStatement",
          "SetSessionOptions", "GetSessionOptions", "CloseSession"), actions);
      flight.handshake();
    }
  }

  private SQLException assertJdbcFails(String sql) throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement()) {
      return assertThrows(SQLException.class, () -> {
        try (ResultSet rs = statement.executeQuery(sql)) {
          rs.next();
        }
      });
    }
  }

  private void assertServerStillAnswers() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM demo.episodes")) {
      assertTrue(rs.next());
      assertEquals(1_000, rs.getLong(1));
    }
  }
}
