package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.Version;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.adbc.core.AdbcConnection;
import org.apache.arrow.adbc.core.AdbcDatabase;
import org.apache.arrow.adbc.core.AdbcDriver;
import org.apache.arrow.adbc.core.AdbcStatement;
import org.apache.arrow.adbc.core.BulkIngestMode;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlDriver;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DDL and INSERT over Flight SQL from the stock clients: {@code FlightSqlClient}
 * ({@code CommandStatementUpdate}, prepared updates with bound batches), the Flight SQL JDBC
 * driver 18.3.0 (executeUpdate, addBatch/executeBatch) and ADBC 0.20.0's bulk ingest, and the
 * statuses of bad updates, after each of which nothing changed and the server still answers.
 * An update that commits a table version names it in the response header {@code
 * lake-table-version}, as an ingest does (statement and prepared INSERTs, CREATE TABLE AS); DDL,
 * an INSERT of no rows and a refused INSERT send none.
 */
class FlightUpdateTest {

  @TempDir Path dir;
  private LakeServerFixture lake;
  private VersionHeaderClient headers;

  @BeforeEach
  void start() {
    lake = new LakeServerFixture(dir);
    headers = new VersionHeaderClient(lake);
  }

  @AfterEach
  void stop() throws Exception {
    headers.close();
    lake.close();
  }

  /** An update through {@link #headers}, which keeps its {@code lake-table-version} header. */
  private long headerUpdate(String sql) {
    return headers.sql.executeUpdate(sql);
  }

  private long update(String sql) {
    return lake.client().executeUpdate(sql);
  }

  private Version version(String schema, String table) {
    return lake.catalog.lookup(TableIdent.of(schema, table)).orElseThrow().version();
  }

  private long count(String sql) throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      assertTrue(rs.next());
      return rs.getLong(1);
    }
  }

  @Test
  void statementUpdatesCreateSchemaTableAndInsertRows() throws Exception {
    assertEquals(0, update("CREATE SCHEMA robots"));
    assertEquals(0, update("CREATE TABLE robots.episodes (id BIGINT NOT NULL, day DATE,"
        + " label VARCHAR, embedding REAL[3], tags VARCHAR[], video ROW(uri VARCHAR, frames INT))"));
    assertEquals(2, update("INSERT INTO robots.episodes (id, day, label) VALUES"
        + " (1, DATE '2026-01-05', 'pick'), (2, DATE '2026-01-06', 'place')"));
    assertEquals(Version.of(1), version("robots", "episodes"));
    assertEquals(2, count("SELECT count(*) FROM robots.episodes WHERE embedding IS NULL AND video IS NULL"));
    assertEquals(2, update("CREATE TABLE robots.copy AS SELECT id, label FROM robots.episodes"));
    assertEquals(0, update("DROP TABLE robots.copy"));
    assertEquals(List.of("episodes"), lake.catalog.tables("robots").stream()
        .map(t -> t.ident().name()).toList());
  }

  @Test
  void preparedInsertReportsItsParametersAndTakesABatchAsOneVersion() throws Exception {
    update("CREATE SCHEMA robots");
    update("CREATE TABLE robots.events (id BIGINT NOT NULL, label VARCHAR)");
    FlightSqlClient client = lake.client();
    int rows = 2000;
    try (FlightSqlClient.PreparedStatement insert =
            client.prepare("INSERT INTO robots.events (id, label) VALUES (?, ?)");
        VectorSchemaRoot params = VectorSchemaRoot.create(new Schema(List.of(
            Field.nullable("id", new ArrowType.Int(64, true)),
            Field.nullable("label", ArrowType.Utf8.INSTANCE))), lake.clientAllocator())) {
      assertEquals(List.of(), insert.getResultSetSchema().getFields(), "an update has no result");
      assertEquals(List.of(new ArrowType.Int(64, true), ArrowType.Utf8.INSTANCE),
          insert.getParameterSchema().getFields().stream().map(Field::getType).toList());
      BigIntVector id = (BigIntVector) params.getVector(0);
      VarCharVector label = (VarCharVector) params.getVector(1);
      id.allocateNew(rows);
      label.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        id.set(i, i);
        label.setSafe(i, new Text("e" + i));
      }
      params.setRowCount(rows);
      insert.setParameters(params);
      assertEquals(rows, insert.executeUpdate());
      assertEquals(Version.of(1), version("robots", "events"), "one version for the whole batch");
      // Executed again with a NULL for the NOT NULL column: refused, nothing written.
      id.setNull(5);
      insert.setParameters(params);
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class, insert::executeUpdate);
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
      assertTrue(e.getMessage().contains("'id'"), e.getMessage());
    }
    assertEquals(Version.of(1), version("robots", "events"));
    assertEquals(rows, count("SELECT count(*) FROM robots.events"));
  }

  @Test
  void jdbcExecuteUpdateAndBatchesWork() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement()) {
      assertEquals(0, statement.executeUpdate("CREATE SCHEMA IF NOT EXISTS jdbc"));
      statement.executeUpdate("CREATE TABLE jdbc.t (id BIGINT NOT NULL, name VARCHAR, value DOUBLE)");
      assertEquals(1, statement.executeUpdate("INSERT INTO jdbc.t VALUES (1, 'one', 1.5)"));
      try (PreparedStatement insert = connection.prepareStatement(
          "INSERT INTO jdbc.t (id, name, value) VALUES (?, ?, ?)")) {
        for (int i = 2; i <= 11; i++) {
          insert.setLong(1, i);
          insert.setString(2, "n" + i);
          insert.setDouble(3, i / 2.0);
          insert.addBatch();
        }
        int[] counts = insert.executeBatch();
        assertEquals(10, java.util.Arrays.stream(counts).sum());
        insert.setLong(1, 12);
        insert.setString(2, "twelve");
        insert.setDouble(3, 6);
        assertEquals(1, insert.executeUpdate());
      }
      try (ResultSet rs = statement.executeQuery("SELECT count(*), sum(value) FROM jdbc.t WHERE name IS NOT NULL")) {
        assertTrue(rs.next());
        assertEquals(12, rs.getLong(1));
        assertEquals(1.5 + (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11) / 2.0 + 6, rs.getDouble(2), 1e-9);
      }
      assertEquals(0, statement.executeUpdate("DROP SCHEMA jdbc CASCADE"));
    }
    assertTrue(lake.catalog.namespaces().isEmpty());
  }

  @Test
  void preparedInsertWithParametersInsideExpressionsWritesOneVersionPerExecution() throws Exception {
    update("CREATE SCHEMA robots");
    update("CREATE TABLE robots.runs (id BIGINT NOT NULL, label VARCHAR, day DATE)");
    FlightSqlClient client = lake.client();
    int rows = 500;
    try (FlightSqlClient.PreparedStatement insert = client.prepare(
            "INSERT INTO robots.runs VALUES (? + 1, upper(?), CAST(? AS DATE))")) {
      List<Field> types = insert.getParameterSchema().getFields();
      assertEquals(3, types.size());
      assertEquals(ArrowType.Utf8.INSTANCE, types.get(1).getType(), "typed by the validator");
      try (VectorSchemaRoot params = VectorSchemaRoot.create(insert.getParameterSchema(),
          lake.clientAllocator())) {
        params.allocateNew();
        for (int i = 0; i < rows; i++) {
          ((org.apache.arrow.vector.BaseIntVector) params.getVector(0)).setWithPossibleTruncate(i, i);
          ((VarCharVector) params.getVector(1)).setSafe(i, new Text("r" + i));
          if (params.getVector(2) instanceof org.apache.arrow.vector.DateDayVector day) {
            day.setSafe(i, 20_000 + i);
          } else {
            ((VarCharVector) params.getVector(2)).setSafe(i,
                new Text(java.time.LocalDate.ofEpochDay(20_000 + i).toString()));
          }
        }
        params.setRowCount(rows);
        insert.setParameters(params);
        assertEquals(rows, insert.executeUpdate());
      }
    }
    assertEquals(Version.of(1), version("robots", "runs"), "one version for the whole batch");
    assertEquals(rows, count("SELECT count(*) FROM robots.runs WHERE label LIKE 'R%'"));
    assertEquals(1, count("SELECT count(*) FROM robots.runs WHERE id = 1 AND label = 'R0'"
        + " AND day = DATE '2024-10-04'"));
    // The stock JDBC driver: addBatch/executeBatch of the same statement.
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        PreparedStatement jdbc = connection.prepareStatement(
            "INSERT INTO robots.runs (id, label) VALUES (? * 1000, lower(?))")) {
      for (int i = 1; i <= 5; i++) {
        jdbc.setInt(1, i);
        jdbc.setString(2, "J" + i);
        jdbc.addBatch();
      }
      assertEquals(5, java.util.Arrays.stream(jdbc.executeBatch()).sum());
    }
    assertEquals(5, count("SELECT count(*) FROM robots.runs WHERE id >= 1000 AND label LIKE 'j%'"));
    // A parameter no operand types is still refused naming it.
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
        () -> client.prepare("INSERT INTO robots.runs (id) VALUES (? + ?)"));
    assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
    assertTrue(e.getMessage().contains("parameter 1"), e.getMessage());
  }

  /**
   * ADBC 0.20.0's {@code getInfo} reader throws a NullPointerException ({@code ArrowReader.loader}
   * is null) when its first call is {@code loadNextBatch}: it loads batches without initialising
   * the reader, whatever the server answers; taking {@code getVectorSchemaRoot()} first, as
   * ArrowReader's contract has it, avoids it. Its rows of server values (vendor name and version)
   * then come back empty from any server: it calls {@code allocateNew()} on the received root,
   * which sets its row count to 0, before reading it. What lake can make right is the answer ADBC
   * reads: info ids 0 and 1 as strings at union type id 0, each at the child index of its row.
   */
  @Test
  void adbcGetInfoRunsAndTheSqlInfoAnswerHasTheShapeAdbcReads() throws Exception {
    Map<String, Object> options = new HashMap<>();
    AdbcDriver.PARAM_URI.set(options, "grpc+tcp://127.0.0.1:" + lake.port());
    int vendorName = org.apache.arrow.adbc.core.AdbcInfoCode.VENDOR_NAME.getValue();
    int vendorVersion = org.apache.arrow.adbc.core.AdbcInfoCode.VENDOR_VERSION.getValue();
    int driverName = org.apache.arrow.adbc.core.AdbcInfoCode.DRIVER_NAME.getValue();
    try (AdbcDatabase database = new FlightSqlDriver(lake.clientAllocator()).open(options);
        AdbcConnection connection = database.connect()) {
      for (int[] codes : new int[][] {null, {vendorName, vendorVersion}, {vendorName}}) {
        Map<Integer, Object> info = new HashMap<>();
        try (org.apache.arrow.vector.ipc.ArrowReader reader = connection.getInfo(codes)) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          while (reader.loadNextBatch()) {
            for (int i = 0; i < root.getRowCount(); i++) {
              info.put(((org.apache.arrow.vector.UInt4Vector) root.getVector(0)).get(i),
                  String.valueOf(root.getVector(1).getObject(i)));
            }
          }
        }
        if (codes == null) {
          assertEquals("ADBC Flight SQL Driver", info.get(driverName), String.valueOf(info));
        }
      }
    }
    // The answer as GetInfoMetadataReader reads it: sqlInfo.getVarCharVector(0).get(row).
    FlightSqlClient client = lake.client();
    org.apache.arrow.flight.FlightInfo flightInfo = client.getSqlInfo(
        org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo.FLIGHT_SQL_SERVER_NAME,
        org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo.FLIGHT_SQL_SERVER_VERSION);
    try (org.apache.arrow.flight.FlightStream stream =
        client.getStream(flightInfo.getEndpoints().getFirst().getTicket())) {
      Map<Integer, String> values = new HashMap<>();
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        org.apache.arrow.vector.complex.DenseUnionVector value =
            (org.apache.arrow.vector.complex.DenseUnionVector) root.getVector(1);
        for (int row = 0; row < root.getRowCount(); row++) {
          assertEquals(0, value.getTypeId(row), "a string value");
          byte[] text = value.getVarCharVector((byte) 0).get(row);
          assertTrue(text != null, "the string of row " + row + " at child index " + row);
          values.put(((org.apache.arrow.vector.UInt4Vector) root.getVector(0)).get(row),
              new String(text, java.nio.charset.StandardCharsets.UTF_8));
        }
      }
      assertEquals("lake", values.get(0));
      assertTrue(values.containsKey(1), String.valueOf(values));
    }
  }

  @Test
  void adbcBulkIngestWorksUnmodified() throws Exception {
    Map<String, Object> options = new HashMap<>();
    AdbcDriver.PARAM_URI.set(options, "grpc+tcp://127.0.0.1:" + lake.port());
    int rows = 3000;
    try (AdbcDatabase database = new FlightSqlDriver(lake.clientAllocator()).open(options);
        AdbcConnection connection = database.connect();
        VectorSchemaRoot data = VectorSchemaRoot.create(new Schema(List.of(
            Field.nullable("id", new ArrowType.Int(64, true)),
            Field.nullable("robot", ArrowType.Utf8.INSTANCE))), lake.clientAllocator())) {
      BigIntVector id = (BigIntVector) data.getVector(0);
      VarCharVector robot = (VarCharVector) data.getVector(1);
      id.allocateNew(rows);
      robot.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        id.set(i, i);
        if (i % 10 == 0) {
          robot.setNull(i);
        } else {
          robot.setSafe(i, new Text("r" + (i % 7)));
        }
      }
      data.setRowCount(rows);
      try (AdbcStatement ingest = connection.bulkIngest("ingested", BulkIngestMode.CREATE)) {
        ingest.bind(data);
        assertEquals(rows, ingest.executeUpdate().getAffectedRows());
      }
      try (AdbcStatement append = connection.bulkIngest("ingested", BulkIngestMode.APPEND)) {
        append.bind(data);
        assertEquals(rows, append.executeUpdate().getAffectedRows());
      }
    }
    assertEquals(Version.of(2), version("public", "ingested"), "one version per ingest");
    assertEquals(2L * rows, count("SELECT count(*) FROM public.ingested"));
    assertEquals(2L * rows / 10, count("SELECT count(*) FROM ingested WHERE robot IS NULL"));
  }

  @Test
  void badUpdatesGetPreciseStatusesAndChangeNothing() throws Exception {
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (id BIGINT NOT NULL, label VARCHAR)");
    update("INSERT INTO s.t VALUES (1, 'a')");
    long generation = lake.catalog.directoryGeneration();
    Map<String, FlightStatusCode> cases = new java.util.LinkedHashMap<>();
    cases.put("INSERT INTO s.nope VALUES (1)", FlightStatusCode.NOT_FOUND);
    cases.put("INSERT INTO s.t (id, colour) VALUES (1, 'red')", FlightStatusCode.INVALID_ARGUMENT);
    cases.put("INSERT INTO s.t VALUES (1, 'a', 3)", FlightStatusCode.INVALID_ARGUMENT);
    cases.put("INSERT INTO s.t (id) VALUES (DATE '2026-01-01')", FlightStatusCode.INVALID_ARGUMENT);
    cases.put("INSERT INTO s.t (id, label) VALUES (NULL, 'x')", FlightStatusCode.INVALID_ARGUMENT);
    cases.put("CREATE TABLE s.t (x INT)", FlightStatusCode.ALREADY_EXISTS);
    cases.put("CREATE SCHEMA s", FlightStatusCode.ALREADY_EXISTS);
    cases.put("DROP TABLE s.missing", FlightStatusCode.NOT_FOUND);
    cases.put("DROP SCHEMA missing", FlightStatusCode.NOT_FOUND);
    // gRPC FAILED_PRECONDITION, which Arrow's Flight client reports as INVALID_ARGUMENT.
    cases.put("DROP SCHEMA s RESTRICT", FlightStatusCode.INVALID_ARGUMENT);
    cases.put("CREATE TABLE missing.t (x INT)", FlightStatusCode.NOT_FOUND);
    cases.put("DELETE FROM s.t", FlightStatusCode.UNIMPLEMENTED);
    cases.put("UPDATE s.t SET label = 'b'", FlightStatusCode.UNIMPLEMENTED);
    cases.put("CREATE TABLE s.u (x INT[)", FlightStatusCode.INVALID_ARGUMENT);
    cases.put("CREATE TABLE s.u (x INT) WITH (engine = 'nope')", FlightStatusCode.INVALID_ARGUMENT);
    for (Map.Entry<String, FlightStatusCode> c : cases.entrySet()) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> update(c.getKey()),
          c.getKey());
      assertEquals(c.getValue(), e.status().code(), c.getKey() + ": " + e.getMessage());
      assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), c.getKey());
      assertEquals(1, count("SELECT count(*) FROM s.t"), "server answers after " + c.getKey());
    }
    FlightRuntimeException restrict = assertThrows(FlightRuntimeException.class,
        () -> update("DROP SCHEMA s RESTRICT"));
    assertTrue(restrict.getMessage().contains("lake.s") && restrict.getMessage().contains("CASCADE"),
        restrict.getMessage());
    assertEquals(Version.of(1), version("s", "t"));
    assertEquals(generation, lake.catalog.directoryGeneration(), "no DDL changed the directory");
    assertTrue(assertThrows(FlightRuntimeException.class, () -> update("DELETE FROM s.t"))
        .getMessage().startsWith("DELETE"));
  }

  @Test
  void insertIntoATableAnotherStatementDroppedIsNotFound() {
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (id BIGINT)");
    FlightSqlClient client = lake.client();
    try (FlightSqlClient.PreparedStatement insert = client.prepare("INSERT INTO s.t VALUES (7)")) {
      update("DROP TABLE s.t");
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class, insert::executeUpdate);
      assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
      assertTrue(e.getMessage().contains("s.t"), e.getMessage());
    }
    assertEquals(List.of(), lake.catalog.tables("s"));
    assertEquals(0, update("CREATE SCHEMA IF NOT EXISTS s"), "the server still answers");
  }

  @Test
  void statementUpdatesNameTheVersionTheyCommitted() {
    headerUpdate("CREATE SCHEMA lab");
    assertNull(headers.version(), "DDL commits no table version");
    headerUpdate("CREATE TABLE lab.runs (id BIGINT NOT NULL)");
    assertNull(headers.version());
    assertEquals(2, headerUpdate("INSERT INTO lab.runs VALUES (1), (2)"));
    assertEquals("1", headers.version());
    assertEquals(1, headerUpdate("INSERT INTO lab.runs VALUES (3)"));
    assertEquals(version("lab", "runs").toString(), headers.version());
    assertEquals("2", headers.version());
    assertEquals(0, headerUpdate("INSERT INTO lab.runs SELECT id FROM lab.runs WHERE id > 10"));
    assertNull(headers.version(), "an INSERT of no rows commits no version");
    assertEquals(3, headerUpdate("CREATE TABLE lab.copy AS SELECT id FROM lab.runs"));
    assertEquals(version("lab", "copy").toString(), headers.version());
  }

  @Test
  void aPreparedInsertNamesTheVersionOfItsBatch() throws Exception {
    headerUpdate("CREATE SCHEMA lab");
    headerUpdate("CREATE TABLE lab.runs (id BIGINT NOT NULL)");
    headerUpdate("INSERT INTO lab.runs VALUES (0)");
    try (FlightSqlClient.PreparedStatement insert =
            headers.sql.prepare("INSERT INTO lab.runs (id) VALUES (?)");
        VectorSchemaRoot params = VectorSchemaRoot.create(new Schema(List.of(
            Field.nullable("id", new ArrowType.Int(64, true)))), lake.clientAllocator())) {
      BigIntVector id = (BigIntVector) params.getVector(0);
      id.allocateNew(3);
      for (int i = 0; i < 3; i++) {
        id.set(i, 10 + i);
      }
      params.setRowCount(3);
      insert.setParameters(params);
      assertEquals(3, insert.executeUpdate());
      assertEquals("2", headers.version());
      assertEquals(Version.of(2), version("lab", "runs"));
    }
  }

  @Test
  void aRefusedInsertNamesNoVersionAndChangesNothing() {
    headerUpdate("CREATE SCHEMA lab");
    headerUpdate("CREATE TABLE lab.runs (id BIGINT NOT NULL)");
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
        () -> headerUpdate("INSERT INTO lab.runs VALUES (NULL)"));
    assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
    assertNull(headers.version());
    assertEquals(Version.of(0), version("lab", "runs"));
    assertEquals(1, headerUpdate("INSERT INTO lab.runs VALUES (1)"), "the server still answers");
    assertEquals("1", headers.version());
  }
}
