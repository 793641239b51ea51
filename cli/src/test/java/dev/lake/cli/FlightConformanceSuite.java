package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.adbc.core.AdbcConnection;
import org.apache.arrow.adbc.core.AdbcDatabase;
import org.apache.arrow.adbc.core.AdbcDriver;
import org.apache.arrow.adbc.core.AdbcException;
import org.apache.arrow.adbc.core.AdbcStatement;
import org.apache.arrow.adbc.core.AdbcStatusCode;
import org.apache.arrow.adbc.core.BulkIngestMode;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlConnectionProperties;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlDriver;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.client.ClientCookieMiddleware;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.flight.sql.util.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flight SQL conformance suite, driven by the stock clients: the Flight SQL JDBC driver
 * 18.3.0, ADBC 0.20.0 and {@code FlightSqlClient}. Every command of the surface — prepared
 * statements with parameters, DDL, INSERT, bulk ingest, metadata, session options — and the bad
 * inputs: each refused with the right status and a message naming the problem, nothing changed
 * (rows and versions checked through {@code FOR VERSION AS OF}), and the server still answering.
 *
 * <p>A subclass starts the server (one for the whole class) and says how to reach it: {@link
 * FlightConformanceIT} a plaintext {@code lake dev}, {@link SecureBalancerConformanceIT} nginx
 * with TLS and a bearer token in front of {@code lake cluster --secure}. Each test works in a
 * schema of its own, so they run in any order against one server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FlightConformanceSuite {

  /**
   * How every client of the suite reaches the server.
   *
   * @param tlsCa the CA to trust over TLS, or null for plaintext
   * @param token the bearer token each call carries, or null for none
   */
  record Endpoint(int port, Path tlsCa, String token) {}

  @TempDir static Path dataDir;
  private Endpoint endpoint;
  BufferAllocator allocator;
  FlightSqlClient flight;

  /** Starts the server the suite runs against, its data under {@code dataDir}. */
  abstract Endpoint startServer(Path dataDir) throws Exception;

  /** Stops it (and checks it stopped cleanly). */
  abstract void stopServer() throws Exception;

  @BeforeAll
  void start() throws Exception {
    endpoint = startServer(dataDir);
    allocator = new RootAllocator();
    flight = client(true);
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (flight != null) {
        flight.close();
      }
      if (allocator != null) {
        allocator.close();
      }
    } finally {
      stopServer();
    }
  }

  // ---- prepared statements ---------------------------------------------------------------

  @Test
  void jdbcPreparedStatementsBindEveryTypeAndReExecute() throws Exception {
    try (Connection c = jdbc(); Statement s = c.createStatement()) {
      s.executeUpdate("CREATE SCHEMA conf_p");
      s.executeUpdate("CREATE TABLE conf_p.kinds (id BIGINT NOT NULL, i INT, si SMALLINT,"
          + " ti TINYINT, r REAL, d DOUBLE, b BOOLEAN, v VARCHAR, dec DECIMAL(12, 3), day DATE,"
          + " at TIMESTAMP, bin VARBINARY)");
      try (PreparedStatement insert = c.prepareStatement(
          "INSERT INTO conf_p.kinds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        for (long id = 1; id <= 3; id++) {
          insert.setLong(1, id);
          if (id == 3) {
            for (int p = 2; p <= 12; p++) {
              insert.setNull(p, Types.NULL);
            }
          } else {
            insert.setInt(2, (int) id * 10);
            insert.setShort(3, (short) id);
            insert.setByte(4, (byte) id);
            insert.setFloat(5, id + 0.5f);
            insert.setDouble(6, id + 0.25);
            insert.setBoolean(7, id == 1);
            insert.setString(8, "röbot-" + id);
            insert.setBigDecimal(9, new BigDecimal(id + ".125"));
            insert.setDate(10, java.sql.Date.valueOf(LocalDate.of(2026, 1, (int) id)));
            insert.setTimestamp(11, Timestamp.from(java.time.Instant.parse("2026-01-0" + id + "T10:00:00Z")));
            insert.setBytes(12, new byte[] {(byte) id, 0, -1});
          }
          insert.addBatch();
        }
        int[] counts = insert.executeBatch();
        assertEquals(3, java.util.Arrays.stream(counts).sum(), java.util.Arrays.toString(counts));
      }
      assertEquals(3L, single("SELECT count(*) FROM conf_p.kinds"));
      assertVersion("conf_p.kinds", 1);

      // Each type as a parameter, each prepared once and re-executed with the second row's value.
      Map<String, Binder> binders = new java.util.LinkedHashMap<>();
      binders.put("i", (q, id) -> q.setInt(1, (int) id * 10));
      binders.put("si", (q, id) -> q.setShort(1, (short) id));
      binders.put("ti", (q, id) -> q.setByte(1, (byte) id));
      binders.put("r", (q, id) -> q.setFloat(1, id + 0.5f));
      binders.put("d", (q, id) -> q.setDouble(1, id + 0.25));
      binders.put("b", (q, id) -> q.setBoolean(1, id == 1));
      binders.put("v", (q, id) -> q.setString(1, "röbot-" + id));
      binders.put("dec", (q, id) -> q.setBigDecimal(1, new BigDecimal(id + ".125")));
      binders.put("day", (q, id) -> q.setDate(1, java.sql.Date.valueOf(LocalDate.of(2026, 1, (int) id))));
      binders.put("at", (q, id) -> q.setTimestamp(1,
          Timestamp.from(java.time.Instant.parse("2026-01-0" + id + "T10:00:00Z"))));
      for (Map.Entry<String, Binder> column : binders.entrySet()) {
        try (PreparedStatement q = c.prepareStatement(
            "SELECT id FROM conf_p.kinds WHERE " + column.getKey() + " = ?")) {
          for (long id = 1; id <= 2; id++) {
            column.getValue().bind(q, id);
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
              while (rs.next()) {
                ids.add(rs.getLong(1));
              }
            }
            assertEquals(List.of(id), ids, column.getKey() + " = ? bound for row " + id);
          }
        }
      }
      try (PreparedStatement q = c.prepareStatement(
          "SELECT count(*) FROM conf_p.kinds WHERE v IS NOT DISTINCT FROM ? OR id IN (?, ?) LIMIT ?")) {
        q.setNull(1, Types.VARCHAR);
        q.setLong(2, 1);
        q.setLong(3, 99);
        q.setInt(4, 10);
        try (ResultSet rs = q.executeQuery()) {
          assertTrue(rs.next());
          assertEquals(2, rs.getLong(1), "row 3 (NULL v) and row 1");
        }
      }
    }
  }

  @Test
  void oddParameterPlacementsAreTypedOrRefusedPrecisely() throws Exception {
    try (FlightSqlClient.PreparedStatement p = flight.prepare("SELECT COALESCE(?, 'x'), ? IN (1, 2),"
        + " CASE WHEN ? THEN 'y' ELSE 'n' END, CAST(? AS INT)")) {
      List<ArrowType> types = p.getParameterSchema().getFields().stream().map(Field::getType).toList();
      assertEquals(List.of(ArrowType.Utf8.INSTANCE, new ArrowType.Int(32, true), ArrowType.Bool.INSTANCE,
          new ArrowType.Int(32, true)), types);
    }
    FlightRuntimeException plus = refused(() -> flight.prepare("SELECT ? + ?").close());
    assertEquals(FlightStatusCode.INVALID_ARGUMENT, plus.status().code(), plus.getMessage());
    assertTrue(plus.getMessage().contains("parameter 1") && plus.getMessage().contains("CAST"),
        plus.getMessage());
    assertAlive();
  }

  // ---- DDL and INSERT --------------------------------------------------------------------

  @Test
  void ddlThroughJdbcAndFlightSqlClient() throws Exception {
    assertEquals(0, flight.executeUpdate("CREATE SCHEMA conf_d"));
    assertEquals(0, flight.executeUpdate("CREATE SCHEMA IF NOT EXISTS conf_d"));
    try (Connection c = jdbc(); Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE conf_d.nested (id BIGINT NOT NULL, embedding REAL[4],"
          + " tags VARCHAR[], video ROW(uri VARCHAR, frames INT))");
      s.executeUpdate("CREATE TABLE IF NOT EXISTS conf_d.nested (x INT)");
      s.executeUpdate("CREATE TABLE conf_d.lanced (id BIGINT, name VARCHAR) WITH (engine = 'lance')");
      assertEquals(2, s.executeUpdate("INSERT INTO conf_d.lanced VALUES (1, 'a'), (2, 'b')"));
      assertEquals(List.of(List.of(1L, "a"), List.of(2L, "b")),
          rows("SELECT id, name FROM conf_d.lanced ORDER BY id"));
      s.executeUpdate("CREATE TABLE conf_d.logged (id BIGINT, name VARCHAR)");
      s.executeUpdate("INSERT INTO conf_d.logged VALUES (1, 'a'), (2, 'b')");
      s.executeUpdate("CREATE TABLE conf_d.copy AS SELECT id * 10 AS id, name FROM conf_d.logged");
      assertEquals(List.of(List.of(10L, "a"), List.of(20L, "b")),
          rows("SELECT id, name FROM conf_d.copy ORDER BY id"));
      s.executeUpdate("CREATE TABLE conf_d.from_lance AS SELECT id + 100 AS id, name FROM conf_d.lanced");
      assertEquals(2, s.executeUpdate("INSERT INTO conf_d.lanced SELECT id + 10, name FROM conf_d.from_lance"));
      assertEquals(List.of(List.of(1L, "a"), List.of(2L, "b"), List.of(111L, "a"), List.of(112L, "b")),
          rows("SELECT id, name FROM conf_d.lanced ORDER BY id"));
      s.executeUpdate("DROP TABLE conf_d.from_lance");
      DatabaseMetaData meta = c.getMetaData();
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = meta.getTables(null, "conf_d", "%", null)) {
        while (rs.next()) {
          tables.add(rs.getString("TABLE_NAME"));
        }
      }
      assertEquals(List.of("copy", "lanced", "logged", "nested"), tables.stream().sorted().toList());
      List<String> columns = new ArrayList<>();
      try (ResultSet rs = meta.getColumns(null, "conf_d", "nested", "%")) {
        while (rs.next()) {
          columns.add(rs.getString("COLUMN_NAME"));
        }
      }
      assertEquals(List.of("id", "embedding", "tags", "video"), columns);
      s.executeUpdate("DROP TABLE conf_d.copy");
      s.executeUpdate("DROP TABLE IF EXISTS conf_d.copy");
    }
    assertEquals(0, flight.executeUpdate("DROP SCHEMA conf_d CASCADE"));
    assertEquals(0, flight.executeUpdate("DROP SCHEMA IF EXISTS conf_d"));
    assertEquals(0L, single("SELECT count(*) FROM (SELECT 1) t WHERE false"));
  }

  @Test
  void insertValuesSelectAndPreparedBatchesAreOneVersionEach() throws Exception {
    flight.executeUpdate("CREATE SCHEMA conf_i");
    flight.executeUpdate("CREATE TABLE conf_i.t (id BIGINT NOT NULL, site VARCHAR NOT NULL, note VARCHAR)");
    assertEquals(2, flight.executeUpdate("INSERT INTO conf_i.t (id, site) VALUES (1, 'a'), (2, 'b')"));
    assertEquals(2, flight.executeUpdate("INSERT INTO conf_i.t SELECT id + 10, site, 'copied' FROM conf_i.t"));
    try (FlightSqlClient.PreparedStatement insert =
            flight.prepare("INSERT INTO conf_i.t VALUES (?, 'lab', ?)");
        VectorSchemaRoot params = VectorSchemaRoot.create(insert.getParameterSchema(), allocator)) {
      assertEquals(List.of(new ArrowType.Int(64, true), ArrowType.Utf8.INSTANCE),
          insert.getParameterSchema().getFields().stream().map(Field::getType).toList());
      BigIntVector id = (BigIntVector) params.getVector(0);
      VarCharVector note = (VarCharVector) params.getVector(1);
      params.allocateNew();
      for (int i = 0; i < 500; i++) {
        id.setSafe(i, 100 + i);
        note.setSafe(i, new Text("n" + i));
      }
      params.setRowCount(500);
      insert.setParameters(params);
      assertEquals(500, insert.executeUpdate());
    }
    assertVersion("conf_i.t", 3);
    assertEquals(List.of(List.of(504L, 500L)),
        rows("SELECT count(*), count(CASE WHEN site = 'lab' THEN 1 END) FROM conf_i.t"));
  }

  @Test
  void adbcBulkIngestAndMetadataWorkUnmodified() throws Exception {
    flight.executeUpdate("CREATE SCHEMA conf_a");
    Map<String, Object> options = adbcOptions();
    try (AdbcDatabase database = new FlightSqlDriver(allocator).open(options);
        AdbcConnection connection = database.connect();
        VectorSchemaRoot data = rowsOf(1000)) {
      // Under a token this needs the lake_auth cookie: ADBC Java 0.20.0 sends bulk ingest's
      // prepared INSERT without its call headers (see adbcOptions).
      try (AdbcStatement ingest = connection.bulkIngest("conf_a.ingested", BulkIngestMode.CREATE)) {
        ingest.bind(data);
        assertEquals(1000, ingest.executeUpdate().getAffectedRows());
      }
      try (AdbcStatement append = connection.bulkIngest("conf_a.ingested", BulkIngestMode.APPEND)) {
        append.bind(data);
        assertEquals(1000, append.executeUpdate().getAffectedRows());
      }
      try (AdbcStatement count = connection.createStatement()) {
        count.setSqlQuery("SELECT count(*) FROM conf_a.ingested");
        try (AdbcStatement.QueryResult result = count.executeQuery()) {
          assertTrue(result.getReader().loadNextBatch());
          assertEquals(2000L, result.getReader().getVectorSchemaRoot().getVector(0).getObject(0));
        }
      }
      try (var objects = connection.getObjects(AdbcConnection.GetObjectsDepth.TABLES, null,
          "conf_a", null, null, null)) {
        assertTrue(objects.loadNextBatch());
        assertEquals(1, objects.getVectorSchemaRoot().getRowCount(), "one catalog: lake");
      }
    }
    assertVersion("conf_a.ingested", 2);
    assertEquals(2000L, single("SELECT count(*) FROM conf_a.ingested"));
    if (endpoint.token() != null) {
      // A careless client without the cookie middleware: its CREATE TABLE carries the token, the
      // prepared INSERT nothing. Refused, and no row written.
      Map<String, Object> careless = adbcOptions();
      careless.remove(FlightSqlConnectionProperties.WITH_COOKIE_MIDDLEWARE.getKey());
      try (AdbcDatabase database = new FlightSqlDriver(allocator).open(careless);
          AdbcConnection connection = database.connect();
          VectorSchemaRoot data = rowsOf(10);
          AdbcStatement ingest = connection.bulkIngest("conf_a.careless", BulkIngestMode.CREATE)) {
        ingest.bind(data);
        AdbcException refused = assertThrows(AdbcException.class, ingest::executeUpdate);
        assertEquals(AdbcStatusCode.UNAUTHENTICATED, refused.getStatus(), refused.getMessage());
      }
      assertEquals(0L, single("SELECT count(*) FROM conf_a.careless"));
    }
  }

  @Test
  void flightSqlIngestAppendsAndReplacesWithAnEmptyStream() throws Exception {
    flight.executeUpdate("CREATE SCHEMA conf_g");
    FlightSql.CommandStatementIngest.TableDefinitionOptions create =
        FlightSql.CommandStatementIngest.TableDefinitionOptions.newBuilder()
            .setIfNotExist(FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
            .setIfExists(FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
            .build();
    try (VectorSchemaRoot data = rowsOf(10)) {
      assertEquals(10, flight.executeIngest(data,
          new FlightSqlClient.ExecuteIngestOptions("t", create, "lake", "conf_g", Map.of())));
    }
    FlightSql.CommandStatementIngest.TableDefinitionOptions replace = create.toBuilder()
        .setIfExists(FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption.TABLE_EXISTS_OPTION_REPLACE)
        .build();
    try (VectorSchemaRoot empty = rowsOf(0)) {
      assertEquals(0, flight.executeIngest(empty,
          new FlightSqlClient.ExecuteIngestOptions("t", replace, "lake", "conf_g", Map.of())));
    }
    assertEquals(0L, single("SELECT count(*) FROM conf_g.t"));
  }

  // ---- metadata --------------------------------------------------------------------------

  @Test
  void everyMetadataCommandAnswersWithItsSchema() throws Exception {
    flight.executeUpdate("CREATE SCHEMA conf_m");
    flight.executeUpdate("CREATE TABLE conf_m.t (id BIGINT NOT NULL, price DECIMAL(10, 2))");
    assertEquals(List.of(List.of("lake")), stream(flight.getCatalogs()));
    assertTrue(stream(flight.getSchemas("lake", "conf_%")).contains(List.of("lake", "conf_m")));
    List<List<Object>> tables = stream(flight.getTables("lake", "conf_m", "%", null, true));
    assertEquals(1, tables.size(), tables.toString());
    assertEquals(List.of("lake", "conf_m", "t", "TABLE"), tables.getFirst().subList(0, 4));
    assertTrue(stream(flight.getTableTypes()).contains(List.of("TABLE")));
    assertFalse(stream(flight.getXdbcTypeInfo()).isEmpty());
    assertFalse(stream(flight.getSqlInfo(new int[] {FlightSql.SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE})).isEmpty());
    TableRef t = TableRef.of("lake", "conf_m", "t");
    assertEquals(List.of(), stream(flight.getPrimaryKeys(t)));
    assertEquals(List.of(), stream(flight.getExportedKeys(t)));
    assertEquals(List.of(), stream(flight.getImportedKeys(t)));
    assertEquals(List.of(), stream(flight.getCrossReference(t, t)));
    try (Connection c = jdbc()) {
      DatabaseMetaData meta = c.getMetaData();
      try (ResultSet rs = meta.getColumns(null, "conf_m", "t", "price")) {
        assertTrue(rs.next());
        assertEquals(Types.DECIMAL, rs.getInt("DATA_TYPE"));
        assertEquals(10, rs.getInt("COLUMN_SIZE"));
      }
      // getTypeInfo is not asked: driver 18.3.0 answers it from Avatica's empty default without
      // calling the server; GetXdbcTypeInfo is checked through FlightSqlClient above.
      try (ResultSet rs = meta.getPrimaryKeys(null, "conf_m", "t")) {
        assertFalse(rs.next());
      }
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM conf_m.t")) {
        assertEquals(10, rs.getMetaData().getPrecision(2));
        assertEquals(2, rs.getMetaData().getScale(2));
      }
    }
  }

  // ---- session defaults ------------------------------------------------------------------

  @Test
  void unqualifiedNamesFollowTheSessionsDefaultSchemaInEveryClient() throws Exception {
    flight.executeUpdate("CREATE SCHEMA conf_s");
    // FlightSqlClient with Arrow's cookie middleware: SetSessionOptions.
    try (FlightSqlClient session = client(true)) {
      assertFalse(session.setSessionOptions(new SetSessionOptionsRequest(Map.of("schema",
          SessionOptionValueFactory.makeSessionOptionValue("conf_s")))).hasErrors());
      session.executeUpdate("CREATE TABLE bare (id BIGINT)");
      session.executeUpdate("INSERT INTO bare VALUES (1), (2)");
      session.executeUpdate("CREATE TABLE bare_copy AS SELECT id FROM bare");
      session.executeUpdate("DROP TABLE bare_copy");
    }
    assertEquals(2L, single("SELECT count(*) FROM conf_s.bare"));
    // JDBC: driver 18.3.0 sends an unknown connection property as a call header.
    try (Connection c = DriverManager.getConnection(jdbcUrl() + "&schema=conf_s");
        Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE by_jdbc (id BIGINT)");
      try (PreparedStatement insert = c.prepareStatement("INSERT INTO by_jdbc VALUES (?)")) {
        insert.setLong(1, 7);
        assertEquals(1, insert.executeUpdate());
      }
      try (ResultSet rs = s.executeQuery("SELECT id FROM by_jdbc")) {
        assertTrue(rs.next());
        assertEquals(7, rs.getLong(1));
      }
    }
    assertEquals(1L, single("SELECT count(*) FROM conf_s.by_jdbc"));
    // ADBC Java: no setCurrentDbSchema in its Flight SQL driver; the call-header option works.
    Map<String, Object> options = adbcOptions();
    options.put(FlightSqlConnectionProperties.RPC_CALL_HEADER_PREFIX + "schema", "conf_s");
    try (AdbcDatabase database = new FlightSqlDriver(allocator).open(options);
        AdbcConnection connection = database.connect();
        VectorSchemaRoot data = rowsOf(5)) {
      assertThrows(AdbcException.class, () -> connection.setCurrentDbSchema("conf_s"));
      try (AdbcStatement ingest = connection.bulkIngest("by_adbc", BulkIngestMode.CREATE)) {
        ingest.bind(data);
        assertEquals(5, ingest.executeUpdate().getAffectedRows());
      }
    }
    assertEquals(5L, single("SELECT count(*) FROM conf_s.by_adbc"));
    assertFalse(stream(flight.getTables("lake", "public", "by_%", null, false)).stream()
        .anyMatch(row -> row.get(2).toString().startsWith("by_")), "nothing went to public");
  }

  // ---- bad inputs ------------------------------------------------------------------------

  @Test
  void badParametersAreInvalidArgumentNamingThePositionAndChangeNothing() throws Exception {
    flight.executeUpdate("CREATE SCHEMA conf_b");
    flight.executeUpdate("CREATE TABLE conf_b.t (id BIGINT NOT NULL, label VARCHAR)");
    flight.executeUpdate("INSERT INTO conf_b.t VALUES (1, 'one')");
    try (FlightSqlClient.PreparedStatement q = flight.prepare("SELECT label FROM conf_b.t WHERE id = ?")) {
      // Two values for one parameter.
      Schema two = new Schema(List.of(Field.nullable("a", new ArrowType.Int(64, true)),
          Field.nullable("b", new ArrowType.Int(64, true))));
      try (VectorSchemaRoot params = VectorSchemaRoot.create(two, allocator)) {
        params.allocateNew();
        ((BigIntVector) params.getVector(0)).setSafe(0, 1);
        ((BigIntVector) params.getVector(1)).setSafe(0, 2);
        params.setRowCount(1);
        q.setParameters(params);
        FlightRuntimeException e = refused(() -> stream(q.execute()));
        assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
        assertTrue(e.getMessage().contains("1 parameter") || e.getMessage().contains("parameters"),
            e.getMessage());
      }
      // A string for a BIGINT parameter.
      Schema text = new Schema(List.of(Field.nullable("a", ArrowType.Utf8.INSTANCE)));
      try (VectorSchemaRoot params = VectorSchemaRoot.create(text, allocator)) {
        params.allocateNew();
        ((VarCharVector) params.getVector(0)).setSafe(0, new Text("röbot-21"));
        params.setRowCount(1);
        q.setParameters(params);
        FlightRuntimeException e = refused(() -> stream(q.execute()));
        assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
        assertTrue(e.getMessage().contains("parameter 1") && e.getMessage().contains("BIGINT"),
            e.getMessage());
      }
    }
    try (Connection c = jdbc(); PreparedStatement insert =
        c.prepareStatement("INSERT INTO conf_b.t VALUES (?, ?)")) {
      insert.setNull(1, Types.BIGINT);
      insert.setString(2, "nobody");
      SQLException e = assertThrows(SQLException.class, insert::executeUpdate);
      assertTrue(String.valueOf(e.getMessage()).contains("'id'")
          && String.valueOf(e.getMessage()).contains("NOT NULL"), e.getMessage());
    }
    assertVersion("conf_b.t", 1);
    assertEquals(1L, single("SELECT count(*) FROM conf_b.t"));
    assertAlive();
  }

  @Test
  void badStatementsGetTheirStatusNamingTheObjectAndChangeNothing() throws Exception {
    flight.executeUpdate("CREATE SCHEMA conf_x");
    flight.executeUpdate("CREATE TABLE conf_x.t (id BIGINT NOT NULL, label VARCHAR)");
    flight.executeUpdate("INSERT INTO conf_x.t VALUES (1, 'one')");
    expect(FlightStatusCode.NOT_FOUND, "conf_x.nowhere",
        () -> flight.executeUpdate("INSERT INTO conf_x.nowhere VALUES (1)"));
    expect(FlightStatusCode.INVALID_ARGUMENT, "nope",
        () -> flight.executeUpdate("INSERT INTO conf_x.t (id, nope) VALUES (1, 2)"));
    expect(FlightStatusCode.INVALID_ARGUMENT, "'id'",
        () -> flight.executeUpdate("INSERT INTO conf_x.t (label) VALUES ('x')"));
    expect(FlightStatusCode.INVALID_ARGUMENT, "NOT NULL",
        () -> flight.executeUpdate("INSERT INTO conf_x.t SELECT CAST(NULL AS BIGINT), 'x'"));
    expect(FlightStatusCode.ALREADY_EXISTS, "conf_x.t",
        () -> flight.executeUpdate("CREATE TABLE conf_x.t (id BIGINT)"));
    expect(FlightStatusCode.ALREADY_EXISTS, "conf_x",
        () -> flight.executeUpdate("CREATE SCHEMA conf_x"));
    expect(FlightStatusCode.NOT_FOUND, "conf_x.missing",
        () -> flight.executeUpdate("DROP TABLE conf_x.missing"));
    expect(FlightStatusCode.NOT_FOUND, "conf_nowhere",
        () -> flight.executeUpdate("DROP SCHEMA conf_nowhere"));
    // gRPC FAILED_PRECONDITION, which Arrow's Flight client reports as INVALID_ARGUMENT.
    expect(FlightStatusCode.INVALID_ARGUMENT, "conf_x",
        () -> flight.executeUpdate("DROP SCHEMA conf_x RESTRICT"));
    expect(FlightStatusCode.UNIMPLEMENTED, "DELETE",
        () -> flight.executeUpdate("DELETE FROM conf_x.t"));
    assertVersion("conf_x.t", 1);
    assertEquals(List.of(List.of(1L, "one")), rows("SELECT id, label FROM conf_x.t"));

    // A prepared INSERT whose table another statement dropped.
    flight.executeUpdate("CREATE TABLE conf_x.gone (id BIGINT)");
    try (FlightSqlClient.PreparedStatement insert = flight.prepare("INSERT INTO conf_x.gone VALUES (5)")) {
      try (Connection c = jdbc(); Statement s = c.createStatement()) {
        s.executeUpdate("DROP TABLE conf_x.gone");
      }
      expect(FlightStatusCode.NOT_FOUND, "conf_x.gone", insert::executeUpdate);
    }
    assertTrue(stream(flight.getTables("lake", "conf_x", "gone", null, false)).isEmpty());
    assertAlive();
  }

  // ---- helpers ---------------------------------------------------------------------------

  @FunctionalInterface
  private interface Binder {
    void bind(PreparedStatement statement, long id) throws SQLException;
  }

  /** A FlightSqlClient of the endpoint: TLS and a bearer token on every call if it has them. */
  FlightSqlClient client(boolean cookies) {
    return new FlightSqlClient(builder(endpoint.token(), cookies).build());
  }

  /** A Flight client builder for the endpoint carrying {@code token} (none if null). */
  FlightClient.Builder builder(String token, boolean cookies) {
    FlightClient.Builder builder;
    if (endpoint.tlsCa() != null) {
      builder = FlightClient.builder(allocator, Location.forGrpcTls("127.0.0.1", endpoint.port()));
      try {
        // Read when the client is built, so not a stream closed before then.
        builder.trustedCertificates(new ByteArrayInputStream(Files.readAllBytes(endpoint.tlsCa())));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else {
      builder = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", endpoint.port()));
    }
    if (token != null) {
      builder.intercept(bearer(token));
    }
    if (cookies) {
      builder.intercept(new ClientCookieMiddleware.Factory());
    }
    return builder;
  }

  /** Sends {@code authorization: Bearer <token>} on every call. */
  static FlightClientMiddleware.Factory bearer(String token) {
    return info -> new FlightClientMiddleware() {
      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoing) {
        outgoing.insert("authorization", "Bearer " + token);
      }

      @Override
      public void onHeadersReceived(CallHeaders incoming) {}

      @Override
      public void onCallCompleted(CallStatus status) {}
    };
  }

  /** The stock JDBC driver's URL of the endpoint, with its token. */
  String jdbcUrl() {
    StringBuilder url = new StringBuilder("jdbc:arrow-flight-sql://127.0.0.1:" + endpoint.port()
        + "/?useEncryption=" + (endpoint.tlsCa() != null));
    if (endpoint.tlsCa() != null) {
      url.append("&tlsRootCerts=").append(endpoint.tlsCa());
    }
    if (endpoint.token() != null) {
      url.append("&token=").append(endpoint.token());
    }
    return url.toString();
  }

  /** ADBC's Flight SQL driver options for the endpoint: URI, trusted CA, token as a call header. */
  private Map<String, Object> adbcOptions() throws IOException {
    Map<String, Object> options = new HashMap<>();
    AdbcDriver.PARAM_URI.set(options, (endpoint.tlsCa() != null ? "grpc+tls" : "grpc+tcp")
        + "://127.0.0.1:" + endpoint.port());
    if (endpoint.tlsCa() != null) {
      FlightSqlConnectionProperties.TLS_ROOT_CERTS.set(options,
          new ByteArrayInputStream(Files.readAllBytes(endpoint.tlsCa())));
    }
    if (endpoint.token() != null) {
      options.put(FlightSqlConnectionProperties.RPC_CALL_HEADER_PREFIX + "authorization",
          "Bearer " + endpoint.token());
      // ADBC Java 0.20.0 sends a prepared statement's execute and close without the call
      // headers; lake's lake_auth cookie, replayed by the cookie middleware, covers them.
      FlightSqlConnectionProperties.WITH_COOKIE_MIDDLEWARE.set(options, true);
    }
    return options;
  }

  Connection jdbc() throws SQLException {
    return DriverManager.getConnection(jdbcUrl());
  }

  private VectorSchemaRoot rowsOf(int n) {
    VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
        Field.nullable("id", new ArrowType.Int(64, true)),
        Field.nullable("robot", ArrowType.Utf8.INSTANCE))), allocator);
    root.allocateNew();
    for (int i = 0; i < n; i++) {
      ((BigIntVector) root.getVector(0)).setSafe(i, i);
      ((VarCharVector) root.getVector(1)).setSafe(i, new Text("r" + (i % 7)));
    }
    root.setRowCount(n);
    return root;
  }

  /**
   * The table is at {@code version}: that version reads, the next one was never committed. An
   * error that changed something would have added a version.
   */
  private void assertVersion(String table, long version) throws Exception {
    stream(flight.execute("SELECT count(*) FROM " + table + " FOR VERSION AS OF " + version));
    FlightRuntimeException next = refused(() -> stream(flight.execute(
        "SELECT count(*) FROM " + table + " FOR VERSION AS OF " + (version + 1))));
    assertEquals(FlightStatusCode.NOT_FOUND, next.status().code(), next.getMessage());
  }

  /** The server still plans and streams a query. */
  void assertAlive() throws Exception {
    assertEquals(1, ((Number) rows("SELECT 1").getFirst().getFirst()).intValue());
  }

  private void expect(FlightStatusCode code, String named, Executable call)
      throws Exception {
    FlightRuntimeException e = refused(call);
    assertEquals(code, e.status().code(), e.getMessage());
    assertTrue(e.getMessage().contains(named), "the message names " + named + ": " + e.getMessage());
    assertFalse(e.getMessage().contains("see the server log"), e.getMessage());
    assertFalse(e.getMessage().contains(dataDir.toString()), e.getMessage());
    assertAlive();
  }

  FlightRuntimeException refused(Executable call) {
    return assertThrows(FlightRuntimeException.class, call);
  }

  long single(String sql) throws Exception {
    return ((Number) rows(sql).getFirst().getFirst()).longValue();
  }

  List<List<Object>> rows(String sql) throws Exception {
    return stream(flight.execute(sql));
  }

  List<List<Object>> stream(FlightInfo info) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (FlightStream stream = flight.getStream(info.getEndpoints().getFirst().getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            Object value = v.getObject(r);
            row.add(value instanceof Text t ? t.toString() : value);
          }
          out.add(row);
        }
      }
    }
    return out;
  }
}
