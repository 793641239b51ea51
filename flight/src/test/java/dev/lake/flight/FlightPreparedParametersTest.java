package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import java.util.Optional;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.arrow.adbc.core.AdbcConnection;
import org.apache.arrow.adbc.core.AdbcDatabase;
import org.apache.arrow.adbc.core.AdbcDriver;
import org.apache.arrow.adbc.core.AdbcException;
import org.apache.arrow.adbc.core.AdbcStatement;
import org.apache.arrow.adbc.core.AdbcStatusCode;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlDriver;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prepared queries with {@code ?} through the stock clients against a real server: the JDBC
 * driver 18.3.0 (every setter, re-executed with new values), ADBC 0.20.0 (a bound root) and
 * {@code FlightSqlClient.prepare} + {@code setParameters} (one and many rows), with bad inputs.
 *
 * <p>{@code lab.kinds} holds one column of every type lake stores; version 1 has rows 1 and 2,
 * version 2 adds row 3 (NULL everywhere but {@code id}).
 */
@SuppressWarnings("try")
class FlightPreparedParametersTest {

  private static final TableIdent KINDS = TableIdent.of("lab", "kinds");
  private static final TableIdent EPISODES = TableIdent.of("demo", "episodes");
  private static final Schema KINDS_SCHEMA = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.nullable("i8", new ArrowType.Int(8, true)),
      Field.nullable("i16", new ArrowType.Int(16, true)),
      Field.nullable("i32", new ArrowType.Int(32, true)),
      Field.nullable("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
      Field.nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      Field.nullable("b", ArrowType.Bool.INSTANCE),
      Field.nullable("s", ArrowType.Utf8.INSTANCE),
      Field.nullable("dm", new ArrowType.Decimal(12, 2, 128)),
      Field.nullable("d", new ArrowType.Date(DateUnit.DAY)),
      Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
      Field.nullable("bin", ArrowType.Binary.INSTANCE)));
  private static final String EVERY_TYPE = "SELECT id, s FROM lab.kinds WHERE i8 = ? AND i16 = ?"
      + " AND i32 = ? AND id = ? AND f32 = ? AND f64 = ? AND b = ? AND s = ? AND dm = ? AND d = ?"
      + " AND ts = ?";
  private static final Instant TS1 = Instant.parse("2024-01-01T10:00:00Z");
  private static final Instant TS2 = Instant.parse("2024-02-29T12:30:00.123Z");

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    lake.registry.create(KINDS, KINDS_SCHEMA, "log");
    append(KINDS, KINDS_SCHEMA, root -> {
      kindsRow(root, 0, 1, (byte) 1, (short) 10, 100, 1.5f, 2.25, true, "atlas", "12.34",
          LocalDate.parse("2024-01-01"), TS1, new byte[] {1, 2, 3});
      kindsRow(root, 1, 2, (byte) 2, (short) 20, 200, -0.5f, 1e300, false, "röbot-21", "-0.01",
          LocalDate.parse("2024-02-29"), TS2, new byte[] {4});
      root.setRowCount(2);
    });
    append(KINDS, KINDS_SCHEMA, root -> {
      ((BigIntVector) root.getVector("id")).setSafe(0, 3);
      for (FieldVector v : root.getFieldVectors().subList(1, root.getFieldVectors().size())) {
        v.setNull(0);
      }
      root.setRowCount(1);
    });
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

  private static void kindsRow(VectorSchemaRoot root, int r, long id, byte i8, short i16, int i32,
      float f32, double f64, boolean b, String s, String dm, LocalDate d, Instant ts, byte[] bin) {
    ((BigIntVector) root.getVector("id")).setSafe(r, id);
    ((TinyIntVector) root.getVector("i8")).setSafe(r, i8);
    ((SmallIntVector) root.getVector("i16")).setSafe(r, i16);
    ((IntVector) root.getVector("i32")).setSafe(r, i32);
    ((Float4Vector) root.getVector("f32")).setSafe(r, f32);
    ((Float8Vector) root.getVector("f64")).setSafe(r, f64);
    ((BitVector) root.getVector("b")).setSafe(r, b ? 1 : 0);
    ((VarCharVector) root.getVector("s")).setSafe(r, new Text(s));
    ((DecimalVector) root.getVector("dm")).setSafe(r, new BigDecimal(dm));
    ((DateDayVector) root.getVector("d")).setSafe(r, (int) d.toEpochDay());
    ((TimeStampMicroTZVector) root.getVector("ts")).setSafe(r,
        ts.getEpochSecond() * 1_000_000L + ts.getNano() / 1000);
    ((VarBinaryVector) root.getVector("bin")).setSafe(r, bin);
  }

  private void append(TableIdent table, Schema schema, Consumer<VectorSchemaRoot> fill) throws Exception {
    BufferAllocator allocator = lake.clientAllocator();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
      root.allocateNew();
      fill.accept(root);
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator)) {
      lake.registry.append(table, Optional.empty(), new AppendOperation("default", table.toString(), UUID.randomUUID(),
          String.format("%064x", System.nanoTime())), reader);
    }
  }

  private static List<List<Object>> rows(ResultSet rs) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    int columns = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      List<Object> row = new ArrayList<>();
      for (int c = 1; c <= columns; c++) {
        Object value = rs.getObject(c);
        row.add(value instanceof Text t ? t.toString() : value);
      }
      rows.add(row);
    }
    rs.close();
    return rows;
  }

  // ---------------------------------------------------------------------------------- JDBC

  @Test
  void jdbcBindsEveryTypeAndReExecutesWithNewValues() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        PreparedStatement statement = connection.prepareStatement(EVERY_TYPE)) {
      ParameterMetaData meta = statement.getParameterMetaData();
      assertEquals(11, meta.getParameterCount());
      // The driver's own mapping of the Arrow types: float32 is FLOAT, timestamp with a zone
      // TIMESTAMP_WITH_TIMEZONE.
      assertEquals(List.of(Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT, Types.FLOAT,
          Types.DOUBLE, Types.BOOLEAN, Types.VARCHAR, Types.DECIMAL, Types.DATE,
          Types.TIMESTAMP_WITH_TIMEZONE),
          java.util.stream.IntStream.rangeClosed(1, 11).mapToObj(i -> {
            try {
              return meta.getParameterType(i);
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
          }).toList());
      statement.setByte(1, (byte) 1);
      statement.setShort(2, (short) 10);
      statement.setInt(3, 100);
      statement.setLong(4, 1);
      statement.setFloat(5, 1.5f);
      statement.setDouble(6, 2.25);
      statement.setBoolean(7, true);
      statement.setString(8, "atlas");
      statement.setBigDecimal(9, new BigDecimal("12.34"));
      statement.setDate(10, java.sql.Date.valueOf("2024-01-01"));
      statement.setTimestamp(11, java.sql.Timestamp.from(TS1));
      assertEquals(List.of(List.of(1L, "atlas")), rows(statement.executeQuery()));
      statement.setByte(1, (byte) 2);
      statement.setShort(2, (short) 20);
      statement.setInt(3, 200);
      statement.setLong(4, 2);
      statement.setFloat(5, -0.5f);
      statement.setDouble(6, 1e300);
      statement.setBoolean(7, false);
      statement.setString(8, "röbot-21");
      statement.setBigDecimal(9, new BigDecimal("-0.01"));
      statement.setDate(10, java.sql.Date.valueOf("2024-02-29"));
      statement.setTimestamp(11, java.sql.Timestamp.from(TS2));
      assertEquals(List.of(List.of(2L, "röbot-21")), rows(statement.executeQuery()));
      statement.setLong(4, 1);
      assertEquals(List.of(), rows(statement.executeQuery()), "the other values still bound");
    }
  }

  @Test
  void jdbcParametersInTheSelectListLimitInListsNullsAndVersions() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl())) {
      try (PreparedStatement select = connection.prepareStatement(
          "SELECT ?, id, ? IS NULL FROM lab.kinds WHERE id = ?")) {
        select.setString(1, "hello");
        select.setNull(2, Types.VARCHAR);
        select.setLong(3, 2);
        assertEquals(List.of(List.of("hello", 2L, true)), rows(select.executeQuery()));
        select.setString(1, "again");
        select.setString(2, "x");
        select.setLong(3, 1);
        assertEquals(List.of(List.of("again", 1L, false)), rows(select.executeQuery()));
      }
      try (PreparedStatement limit = connection.prepareStatement(
          "SELECT id FROM demo.episodes WHERE robot IN (?, ?) ORDER BY id LIMIT ? OFFSET ?")) {
        limit.setString(1, "spot");
        limit.setString(2, "digit");
        limit.setInt(3, 3);
        limit.setInt(4, 1);
        assertEquals(List.of(List.of(2L), List.of(5L), List.of(6L)), rows(limit.executeQuery()));
        limit.setString(1, "atlas");
        limit.setString(2, "atlas");
        limit.setInt(3, 2);
        limit.setInt(4, 0);
        assertEquals(List.of(List.of(0L), List.of(4L)), rows(limit.executeQuery()));
      }
      try (PreparedStatement versions = connection.prepareStatement(
          "SELECT count(*) FROM lab.kinds FOR VERSION AS OF ?")) {
        versions.setLong(1, 1);
        assertEquals(List.of(List.of(2L)), rows(versions.executeQuery()));
        versions.setLong(1, 2);
        assertEquals(List.of(List.of(3L)), rows(versions.executeQuery()));
        versions.setLong(1, 9);
        // The driver 18.3.0 lets this one out as its shaded FlightRuntimeException, unwrapped.
        Exception missing = assertThrows(Exception.class, versions::executeQuery);
        assertTrue(String.valueOf(missing.getMessage()).contains("version 9 of table lake.lab.kinds"),
            missing.getMessage());
      }
      try (PreparedStatement nulls = connection.prepareStatement(
          "SELECT count(*) FROM lab.kinds WHERE s = ? OR dm > ?")) {
        nulls.setNull(1, Types.VARCHAR);
        nulls.setNull(2, Types.DECIMAL);
        assertEquals(List.of(List.of(0L)), rows(nulls.executeQuery()), "NULL compares to nothing");
        nulls.setString(1, "atlas");
        nulls.setBigDecimal(2, new BigDecimal("0.00"));
        assertEquals(List.of(List.of(1L)), rows(nulls.executeQuery()));
      }
    }
  }

  @Test
  void jdbcBadValuesAreRefusedByTheServerAndItKeepsAnswering() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        PreparedStatement statement = connection.prepareStatement(
            "SELECT id FROM demo.episodes WHERE robot = ? ORDER BY id LIMIT ?")) {
      statement.setString(1, "atlas");
      statement.setInt(2, -1);
      // The driver 18.3.0 lets the server's status out as its shaded FlightRuntimeException.
      Exception negative = assertThrows(Exception.class, statement::executeQuery);
      assertTrue(String.valueOf(negative.getMessage()).contains(
          "parameter 2 (LIMIT) must not be negative, not -1"), negative.getMessage());
      statement.setInt(2, 2);
      assertEquals(List.of(List.of(0L), List.of(4L)), rows(statement.executeQuery()));
    }
  }

  // ---------------------------------------------------------------------------------- ADBC

  @Test
  void adbcBindsARootAndExecutesTheQueryAgainWithNewValues() throws Exception {
    BufferAllocator allocator = lake.clientAllocator();
    Map<String, Object> parameters = new HashMap<>();
    AdbcDriver.PARAM_URI.set(parameters, "grpc+tcp://127.0.0.1:" + lake.port());
    Schema bindSchema = new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)),
        Field.nullable("robot", ArrowType.Utf8.INSTANCE)));
    try (AdbcDatabase database = new FlightSqlDriver(allocator).open(parameters);
        AdbcConnection connection = database.connect();
        AdbcStatement statement = connection.createStatement();
        VectorSchemaRoot bind = VectorSchemaRoot.create(bindSchema, allocator)) {
      statement.setSqlQuery("SELECT id, reward FROM demo.episodes WHERE id < ? AND robot = ? ORDER BY id");
      statement.prepare();
      bind.allocateNew();
      ((BigIntVector) bind.getVector(0)).setSafe(0, 10);
      ((VarCharVector) bind.getVector(1)).setSafe(0, new Text("spot"));
      bind.setRowCount(1);
      statement.bind(bind);
      assertEquals(List.of(List.of(1L, 0.5), List.of(5L, 2.5), List.of(9L, 4.5)), read(statement));
      ((BigIntVector) bind.getVector(0)).setSafe(0, 5);
      ((VarCharVector) bind.getVector(1)).setSafe(0, new Text("atlas"));
      bind.setRowCount(1);
      statement.bind(bind);
      assertEquals(List.of(List.of(0L, 0.0), List.of(4L, 2.0)), read(statement));
      ((VarCharVector) bind.getVector(1)).setSafe(0, new Text("nobody"));
      statement.bind(bind);
      assertEquals(List.of(), read(statement));
    }
    try (AdbcDatabase database = new FlightSqlDriver(allocator).open(parameters);
        AdbcConnection connection = database.connect();
        AdbcStatement statement = connection.createStatement();
        VectorSchemaRoot bind = VectorSchemaRoot.create(
            new Schema(List.of(Field.nullable("id", ArrowType.Utf8.INSTANCE))), allocator)) {
      statement.setSqlQuery("SELECT id FROM demo.episodes WHERE id = ?");
      statement.prepare();
      bind.allocateNew();
      ((VarCharVector) bind.getVector(0)).setSafe(0, new Text("seven"));
      bind.setRowCount(1);
      statement.bind(bind);
      AdbcException e = assertThrows(AdbcException.class, () -> read(statement));
      assertEquals(AdbcStatusCode.INVALID_ARGUMENT, e.getStatus());
      assertTrue(e.getMessage().contains("parameter 1 expects BIGINT, but was given the VARCHAR value 'seven'"),
          e.getMessage());
    }
  }

  private static List<List<Object>> read(AdbcStatement statement) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (AdbcStatement.QueryResult result = statement.executeQuery()) {
      ArrowReader reader = result.getReader();
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(v.getObject(r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  // ---------------------------------------------------------------------- FlightSqlClient

  private List<List<Object>> stream(FlightSqlClient client, FlightInfo info) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      assertEquals(info.getSchemaOptional().orElseThrow(), stream.getSchema());
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            Object value = v.getObject(r);
            row.add(value instanceof Text t ? t.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private static VectorSchemaRoot ids(BufferAllocator allocator, long... ids) {
    VectorSchemaRoot root = VectorSchemaRoot.create(
        new Schema(List.of(Field.nullable("p", new ArrowType.Int(64, true)))), allocator);
    root.allocateNew();
    for (int i = 0; i < ids.length; i++) {
      ((BigIntVector) root.getVector(0)).setSafe(i, ids[i]);
    }
    root.setRowCount(ids.length);
    return root;
  }

  @Test
  void flightSqlClientGetsTheParameterSchemaAndRunsOneExecutionPerBoundRow() throws Exception {
    FlightSqlClient client = lake.client();
    BufferAllocator allocator = lake.clientAllocator();
    try (FlightSqlClient.PreparedStatement prepared = client.prepare(EVERY_TYPE)) {
      assertEquals(List.of(new ArrowType.Int(8, true), new ArrowType.Int(16, true),
          new ArrowType.Int(32, true), new ArrowType.Int(64, true),
          new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
          new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), ArrowType.Bool.INSTANCE,
          ArrowType.Utf8.INSTANCE, new ArrowType.Decimal(12, 2, 128), new ArrowType.Date(DateUnit.DAY),
          new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")),
          prepared.getParameterSchema().getFields().stream().map(Field::getType).toList(),
          "timestamps are declared in ms: the JDBC driver's setTimestamp writes ms into any unit");
      assertEquals(List.of("id", "s"), prepared.getResultSetSchema().getFields().stream().map(Field::getName).toList());
    }
    try (FlightSqlClient.PreparedStatement prepared =
            client.prepare("SELECT id, robot FROM demo.episodes WHERE id = ?");
        VectorSchemaRoot rows = ids(allocator, 7, 3, 999, 5000, 3)) {
      prepared.setParameters(rows);
      assertEquals(List.of(List.of(7L, "optimus"), List.of(3L, "optimus"), List.of(999L, "optimus"),
          List.of(3L, "optimus")), stream(client, prepared.execute()),
          "one execution per row, in row order, as one stream");
      try (VectorSchemaRoot one = ids(allocator, 4)) {
        prepared.setParameters(one);
        assertEquals(List.of(List.of(4L, "atlas")), stream(client, prepared.execute()));
      }
    }
  }

  @Test
  void flightSqlClientBindsEveryStoredTypeAndNull() throws Exception {
    FlightSqlClient client = lake.client();
    BufferAllocator allocator = lake.clientAllocator();
    // A timestamp parameter declared in ms takes a value of any unit: µs keep their precision.
    List<Field> fields = new ArrayList<>();
    try (FlightSqlClient.PreparedStatement prepared = client.prepare(EVERY_TYPE)) {
      for (Field f : prepared.getParameterSchema().getFields()) {
        fields.add(f.getType() instanceof ArrowType.Timestamp
            ? Field.nullable(f.getName(), new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")) : f);
      }
    }
    try (FlightSqlClient.PreparedStatement prepared = client.prepare(EVERY_TYPE);
        VectorSchemaRoot values = VectorSchemaRoot.create(new Schema(fields), allocator)) {
      values.allocateNew();
      ((TinyIntVector) values.getVector(0)).setSafe(0, 2);
      ((SmallIntVector) values.getVector(1)).setSafe(0, 20);
      ((IntVector) values.getVector(2)).setSafe(0, 200);
      ((BigIntVector) values.getVector(3)).setSafe(0, 2);
      ((Float4Vector) values.getVector(4)).setSafe(0, -0.5f);
      ((Float8Vector) values.getVector(5)).setSafe(0, 1e300);
      ((BitVector) values.getVector(6)).setSafe(0, 0);
      ((VarCharVector) values.getVector(7)).setSafe(0, new Text("röbot-21"));
      ((DecimalVector) values.getVector(8)).setSafe(0, new BigDecimal("-0.01"));
      ((DateDayVector) values.getVector(9)).setSafe(0, (int) LocalDate.parse("2024-02-29").toEpochDay());
      ((TimeStampMicroTZVector) values.getVector(10)).setSafe(0,
          TS2.getEpochSecond() * 1_000_000L + TS2.getNano() / 1000);
      // A second row with NULL everywhere matches nothing.
      for (FieldVector v : values.getFieldVectors()) {
        v.setNull(1);
      }
      values.setRowCount(2);
      prepared.setParameters(values);
      assertEquals(List.of(List.of(2L, "röbot-21")), stream(client, prepared.execute()));
    }
  }

  private static FlightRuntimeException fails(FlightStatusCode code, String text,
      org.junit.jupiter.api.function.Executable call) {
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, call);
    assertEquals(code, e.status().code(), e.getMessage());
    assertTrue(String.valueOf(e.getMessage()).contains(text), e.getMessage());
    return e;
  }

  @Test
  void badParameterInputsAreRefusedPreciselyAndNothingRuns() throws Exception {
    FlightSqlClient client = lake.client();
    BufferAllocator allocator = lake.clientAllocator();
    String two = "SELECT id FROM demo.episodes WHERE id = ? AND robot = ?";
    try (FlightSqlClient.PreparedStatement prepared = client.prepare(two)) {
      fails(FlightStatusCode.INVALID_ARGUMENT, "the statement has 2 parameters and no values were bound",
          prepared::execute);
      try (VectorSchemaRoot one = ids(allocator, 1)) {
        prepared.setParameters(one);
        fails(FlightStatusCode.INVALID_ARGUMENT, "the statement has 2 parameters, but 1 value was bound",
            prepared::execute);
      }
    }
    fails(FlightStatusCode.INVALID_ARGUMENT, "the statement has 2 parameters and no values were bound",
        () -> client.execute(two));
    try (FlightSqlClient.PreparedStatement prepared = client.prepare("SELECT id FROM demo.episodes WHERE id = ?");
        VectorSchemaRoot text = VectorSchemaRoot.create(
            new Schema(List.of(Field.nullable("p", ArrowType.Utf8.INSTANCE))), allocator)) {
      text.allocateNew();
      ((VarCharVector) text.getVector(0)).setSafe(0, new Text("7"));
      ((VarCharVector) text.getVector(0)).setSafe(1, new Text("x".repeat(5000)));
      text.setRowCount(1);
      prepared.setParameters(text);
      fails(FlightStatusCode.INVALID_ARGUMENT,
          "parameter 1 expects BIGINT, but was given the VARCHAR value '7'", prepared::execute);
      text.setRowCount(2);
      ((VarCharVector) text.getVector(0)).setSafe(0, new Text("7"));
      FlightRuntimeException second = fails(FlightStatusCode.INVALID_ARGUMENT, "row 1 of the bound parameters",
          prepared::execute);
      assertTrue(second.getMessage().length() < 400, second.getMessage());
    }
    try (FlightSqlClient.PreparedStatement prepared = client.prepare("SELECT ? AS label");
        VectorSchemaRoot text = VectorSchemaRoot.create(
            new Schema(List.of(Field.nullable("p", ArrowType.Utf8.INSTANCE))), allocator)) {
      text.allocateNew();
      ((VarCharVector) text.getVector(0)).setSafe(0, new Text("y".repeat(1_100_000)));
      text.setRowCount(1);
      prepared.setParameters(text);
      fails(FlightStatusCode.RESOURCE_EXHAUSTED, "the limit is 1048576", prepared::execute);
      ((VarCharVector) text.getVector(0)).setSafe(0, new Text("z".repeat(5_000_000)));
      prepared.setParameters(text);
      fails(FlightStatusCode.RESOURCE_EXHAUSTED, "limit of 4194304 bytes", prepared::execute);
    }
    try (FlightSqlClient.PreparedStatement prepared = client.prepare("SELECT id FROM lab.kinds WHERE s = ?");
        VectorSchemaRoot bytes = VectorSchemaRoot.create(
            new Schema(List.of(Field.nullable("p", ArrowType.Binary.INSTANCE))), allocator)) {
      bytes.allocateNew();
      ((VarBinaryVector) bytes.getVector(0)).setSafe(0, new byte[] {1, 2, 3});
      bytes.setRowCount(1);
      prepared.setParameters(bytes);
      fails(FlightStatusCode.INVALID_ARGUMENT,
          "parameter 1 expects VARCHAR, but was given a VARBINARY value of 3 bytes", prepared::execute);
    }
    long[] many = new long[ParameterValues.MAX_ROWS + 1];
    try (FlightSqlClient.PreparedStatement prepared = client.prepare("SELECT id FROM demo.episodes WHERE id = ?");
        VectorSchemaRoot rows = ids(allocator, many)) {
      prepared.setParameters(rows);
      fails(FlightStatusCode.RESOURCE_EXHAUSTED, "more than 10000 rows", prepared::execute);
    }
    FlightSql.CommandPreparedStatementQuery garbage = FlightSql.CommandPreparedStatementQuery.newBuilder()
        .setPreparedStatementHandle(com.google.protobuf.ByteString.copyFrom(
            lake.sealHandle("LKB\1garbage".getBytes(java.nio.charset.StandardCharsets.UTF_8)))).build();
    byte[] forged = lake.sealHandle(TicketCodec.encodeHandle("SELECT id FROM demo.episodes WHERE id = ?",
        com.google.protobuf.ByteString.copyFromUtf8("not values")));
    FlightSql.CommandPreparedStatementQuery bad = FlightSql.CommandPreparedStatementQuery.newBuilder()
        .setPreparedStatementHandle(com.google.protobuf.ByteString.copyFrom(forged)).build();
    org.apache.arrow.flight.FlightClient raw = org.apache.arrow.flight.FlightClient.builder(allocator,
        org.apache.arrow.flight.Location.forGrpcInsecure("127.0.0.1", lake.port())).build();
    try (raw) {
      fails(FlightStatusCode.INVALID_ARGUMENT, "invalid bound parameter values",
          () -> raw.getInfo(org.apache.arrow.flight.FlightDescriptor.command(
              com.google.protobuf.Any.pack(bad).toByteArray())));
      fails(FlightStatusCode.INVALID_ARGUMENT, "invalid prepared statement handle",
          () -> raw.getInfo(org.apache.arrow.flight.FlightDescriptor.command(
              com.google.protobuf.Any.pack(garbage).toByteArray())));
    }
    try (FlightSqlClient.PreparedStatement prepared = client.prepare("SELECT id FROM demo.episodes WHERE id = ?");
        VectorSchemaRoot one = ids(allocator, 42)) {
      prepared.setParameters(one);
      assertEquals(List.of(List.of(42L)), stream(client, prepared.execute()), "still answering");
    }
  }

  /**
   * Statements/s of a prepared point lookup re-executed with new values over one connection
   * (DoPut, GetFlightInfo, DoGet per execution); printed, not asserted, beside the checked answers.
   */
  @Test
  void preparedPointLookupReExecutedWithNewValuesAnswersEachCorrectly() throws Exception {
    FlightSqlClient client = lake.client();
    BufferAllocator allocator = lake.clientAllocator();
    try (FlightSqlClient.PreparedStatement prepared =
            client.prepare("SELECT id, robot FROM demo.episodes WHERE id = ?");
        VectorSchemaRoot one = ids(allocator, 0)) {
      int warmup = 300;
      int measured = 1000;
      long start = 0;
      for (int i = 0; i < warmup + measured; i++) {
        if (i == warmup) {
          start = System.nanoTime();
        }
        long id = (i * 37L) % 1000;
        ((BigIntVector) one.getVector(0)).setSafe(0, id);
        one.setRowCount(1);
        prepared.setParameters(one);
        assertEquals(List.of(List.of(id, IngestData.ROBOTS[(int) (id % 4)])), stream(client, prepared.execute()));
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long plainStart = System.nanoTime();
      for (int i = 0; i < measured; i++) {
        long id = (i * 37L) % 1000;
        assertEquals(List.of(List.of(id, IngestData.ROBOTS[(int) (id % 4)])), stream(client,
            client.execute("SELECT id, robot FROM demo.episodes WHERE id = " + id)));
      }
      double plain = (System.nanoTime() - plainStart) / 1e9;
      System.out.printf("prepared point lookup, new values each time, 1 connection: %.0f statements/s"
          + " (%d in %.2f s); the same lookups as plain statements: %.0f statements/s%n",
          measured / seconds, measured, seconds, measured / plain);
    }
  }
}
