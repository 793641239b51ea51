package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lake dev} (the packaged jar, both engines found by ServiceLoader) takes a {@code lance}
 * table and a {@code log} table through the stock Flight SQL bulk ingest, and the stock JDBC
 * driver reads both the same way: the engine is invisible above the SPI.
 *
 * <p>Rows: id, robot (one of four, by id), reward = id / 2. Both tables get ids 0..49 999 at
 * version 1 and 50 000..54 999 at version 2.
 */
class LakeDevLanceIT {

  private static final Schema ROWS = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.nullable("robot", ArrowType.Utf8.INSTANCE),
      Field.nullable("reward", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
  private static final String[] ROBOTS = {"atlas", "spot", "digit", "optimus"};
  private static final int FIRST = 50_000;
  private static final int SECOND = 5_000;
  private static final long TOTAL = FIRST + SECOND;
  private static final List<String> TABLES = List.of("lab.lance_runs", "lab.log_runs");

  @TempDir static Path dataDir;
  static LakeProcess lake;
  static BufferAllocator allocator;
  static FlightSqlClient client;

  @BeforeAll
  static void startAndIngest() throws Exception {
    lake = LakeProcess.dev(dataDir);
    allocator = new RootAllocator();
    client = new FlightSqlClient(FlightClient.builder(allocator,
        Location.forGrpcInsecure("127.0.0.1", lake.port())).build());
    for (String engine : List.of("lance", "log")) {
      String table = engine + "_runs";
      assertEquals(FIRST, ingest(table, 0, FIRST, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
          TableExistsOption.TABLE_EXISTS_OPTION_FAIL, engine));
      assertEquals(SECOND, ingest(table, FIRST, SECOND, TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
          TableExistsOption.TABLE_EXISTS_OPTION_APPEND, engine));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (client != null) {
        client.close();
      }
      if (allocator != null) {
        allocator.close();
      }
    } finally {
      if (lake != null) {
        lake.close();
      }
    }
  }

  @Test
  void lanceTableIsALanceDatasetAndLogTableIsALog() throws Exception {
    assertTrue(Files.isDirectory(tableDir("lance_runs").resolve("_versions")), "Lance manifests");
    assertTrue(Files.isDirectory(tableDir("log_runs").resolve("_log")), "log commit entries");
  }

  @Test
  void aggregatesAgreeWithTheIngestedRowsOnBothEngines() throws Exception {
    for (String table : TABLES) {
      List<String> row = single("SELECT COUNT(*), SUM(id), MIN(id), MAX(id), SUM(reward) FROM " + table);
      assertEquals(List.of(Long.toString(TOTAL), Long.toString((TOTAL - 1) * TOTAL / 2), "0",
          Long.toString(TOTAL - 1), Double.toString((TOTAL - 1) * TOTAL / 4.0)), row, table);
    }
  }

  @Test
  void filtersGroupsAndOrderLimitGiveTheSameAnswersOnBothEngines() throws Exception {
    List<List<List<String>>> answers = new ArrayList<>();
    for (String table : TABLES) {
      List<List<String>> answer = new ArrayList<>();
      // ids 1000..1999 with id % 4 == 1 are 'spot': 250 rows, ids 1001, 1005, ..., 1997.
      answer.addAll(query("SELECT COUNT(*), MIN(id), MAX(id) FROM " + table
          + " WHERE id BETWEEN 1000 AND 1999 AND robot = 'spot'"));
      answer.addAll(query("SELECT robot, COUNT(*), MAX(id) FROM " + table + " GROUP BY robot ORDER BY robot"));
      answer.addAll(query("SELECT id, robot, reward FROM " + table + " WHERE reward >= 27000 ORDER BY id DESC LIMIT 3"));
      answer.addAll(query("SELECT id FROM " + table + " WHERE id IN (7, 50001, 99999) ORDER BY id"));
      answers.add(answer);
    }
    List<List<String>> expected = List.of(
        List.of("250", "1001", "1997"),
        List.of("atlas", "13750", "54996"),
        List.of("digit", "13750", "54998"),
        List.of("optimus", "13750", "54999"),
        List.of("spot", "13750", "54997"),
        List.of("54999", "optimus", "27499.5"),
        List.of("54998", "digit", "27499.0"),
        List.of("54997", "spot", "27498.5"),
        List.of("7"),
        List.of("50001"));
    assertEquals(expected, answers.get(0), "lance");
    assertEquals(expected, answers.get(1), "log");
  }

  @Test
  void bothEnginesJoinAndTimeTravel() throws Exception {
    assertEquals(List.of(Long.toString(FIRST), Long.toString(FIRST - 1)),
        single("SELECT COUNT(*), MAX(id) FROM lab.lance_runs FOR VERSION AS OF 1"));
    assertEquals(List.of(Long.toString(FIRST), Long.toString(FIRST - 1)),
        single("SELECT COUNT(*), MAX(id) FROM lab.log_runs FOR VERSION AS OF 1"));
    // The lance table's version 1 against the log table's latest: only the first ingest matches.
    assertEquals(List.of(Long.toString(FIRST)), single("SELECT COUNT(*) FROM lab.lance_runs FOR VERSION AS OF 1 l"
        + " JOIN lab.log_runs g ON l.id = g.id"));
  }

  @Test
  void getTablesAndJdbcMetadataListBothTables() throws Exception {
    List<List<String>> listed = new ArrayList<>();
    FlightInfo info = client.getTables("lake", "lab", "%runs", List.of("TABLE"), false);
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          listed.add(List.of(root.getVector("db_schema_name").getObject(i).toString(),
              root.getVector("table_name").getObject(i).toString()));
        }
      }
    }
    assertEquals(List.of(List.of("lab", "lance_runs"), List.of("lab", "log_runs")), listed);

    List<String> jdbc = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(lake.jdbcUrl())) {
      DatabaseMetaData meta = c.getMetaData();
      try (ResultSet r = meta.getTables("lake", "lab", "%", null)) {
        while (r.next()) {
          jdbc.add(r.getString("TABLE_SCHEM") + "." + r.getString("TABLE_NAME") + ":" + r.getString("TABLE_TYPE"));
        }
      }
      try (ResultSet r = meta.getColumns("lake", "lab", "lance_runs", "%")) {
        List<String> columns = new ArrayList<>();
        while (r.next()) {
          columns.add(r.getString("COLUMN_NAME"));
        }
        assertEquals(List.of("id", "robot", "reward"), columns);
      }
    }
    assertEquals(List.of("lab.lance_runs:TABLE", "lab.log_runs:TABLE"), jdbc);
  }

  @Test
  void unknownEngineIsInvalidArgumentNamingItAndCreatesNothing() throws Exception {
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
        () -> ingest("parquet_runs", 0, 10, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
            TableExistsOption.TABLE_EXISTS_OPTION_FAIL, "lancedb9"));
    assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
    assertTrue(e.getMessage().contains("lancedb9"), e.getMessage());
    try (Connection c = DriverManager.getConnection(lake.jdbcUrl());
        ResultSet r = c.getMetaData().getTables("lake", "lab", "parquet_runs", null)) {
      assertFalse(r.next(), "no table was registered");
    }
    assertFalse(Files.exists(tableDir("parquet_runs")), "no files were written");
    SQLException missing = assertThrows(SQLException.class, () -> query("SELECT COUNT(*) FROM lab.parquet_runs"));
    assertTrue(missing.getMessage().contains("parquet_runs"), missing.getMessage());
  }

  private static Path tableDir(String table) throws Exception {
    try (var found = Files.walk(dataDir)) {
      // created tables live in <warehouse>/<namespace>/<name>-<incarnation>
      return found.filter(p -> p.getFileName().toString().startsWith(table + "-") && Files.isDirectory(p))
          .findFirst().orElse(dataDir.resolve(table));
    }
  }

  private static long ingest(String table, long from, int count, TableNotExistOption ifNotExist,
      TableExistsOption ifExists, String engine) {
    TableDefinitionOptions options = TableDefinitionOptions.newBuilder()
        .setIfNotExist(ifNotExist).setIfExists(ifExists).build();
    try (VectorSchemaRoot root = rows(from, count)) {
      return client.executeIngest(root, new FlightSqlClient.ExecuteIngestOptions(table, options, null, "lab",
          Map.of("engine", engine)));
    }
  }

  private static VectorSchemaRoot rows(long from, int count) {
    VectorSchemaRoot root = VectorSchemaRoot.create(ROWS, allocator);
    BigIntVector ids = (BigIntVector) root.getVector("id");
    VarCharVector robots = (VarCharVector) root.getVector("robot");
    Float8Vector rewards = (Float8Vector) root.getVector("reward");
    ids.allocateNew(count);
    rewards.allocateNew(count);
    for (int i = 0; i < count; i++) {
      long id = from + i;
      ids.set(i, id);
      robots.setSafe(i, ROBOTS[(int) (id % ROBOTS.length)].getBytes(StandardCharsets.UTF_8));
      rewards.set(i, id / 2.0);
    }
    root.setRowCount(count);
    return root;
  }

  private static List<String> single(String sql) throws SQLException {
    List<List<String>> rows = query(sql);
    assertEquals(1, rows.size(), sql);
    return rows.getFirst();
  }

  private static List<List<String>> query(String sql) throws SQLException {
    List<List<String>> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(lake.jdbcUrl());
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      int columns = r.getMetaData().getColumnCount();
      while (r.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          row.add(r.getString(i));
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
