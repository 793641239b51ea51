package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import java.util.Optional;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flight SQL column metadata as the stock JDBC driver 18.3.0 reads it: ResultSetMetaData of
 * queries (single-table and relational plans, and empty results) against getColumns.
 */
class FlightJdbcColumnMetadataTest {

  static final TableIdent MEASUREMENTS = TableIdent.of("lab", "measurements");
  static final Schema SCHEMA = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.nullable("name", ArrowType.Utf8.INSTANCE),
      Field.nullable("amount", new ArrowType.Decimal(12, 3, 128)),
      Field.nullable("ratio", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
      Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      Field.nullable("ok", ArrowType.Bool.INSTANCE),
      Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
      Field.nullable("at", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
      Field.nullable("small", new ArrowType.Int(16, true)),
      Field.nullable("tiny", new ArrowType.Int(8, true)),
      Field.nullable("mid", new ArrowType.Int(32, true))));

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    lake.registry.create(MEASUREMENTS, SCHEMA, "log");
    try (ArrowStreamReader rows = rows(3)) {
      lake.registry.append(MEASUREMENTS, Optional.empty(), new AppendOperation("default", "lab.measurements",
          UUID.randomUUID(), "0".repeat(64)), rows);
    }
  }

  @AfterEach
  void stop() throws Exception {
    lake.close();
  }

  @Test
  void resultSetMetaDataHasDecimalPrecisionScaleTypeNamesAndTheTable() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(
            "SELECT amount, name, amount * 2 AS doubled FROM lab.measurements")) {
      ResultSetMetaData meta = rs.getMetaData();
      assertEquals(3, meta.getColumnCount());
      assertEquals(Types.DECIMAL, meta.getColumnType(1));
      assertEquals(12, meta.getPrecision(1));
      assertEquals(3, meta.getScale(1));
      assertEquals("DECIMAL", meta.getColumnTypeName(1));
      assertEquals("lake", meta.getCatalogName(1));
      assertEquals("lab", meta.getSchemaName(1));
      assertEquals("measurements", meta.getTableName(1));
      assertTrue(meta.isReadOnly(1));
      assertFalse(meta.isAutoIncrement(1));
      assertTrue(meta.isCaseSensitive(2));
      assertFalse(meta.isCaseSensitive(1));
      assertTrue(meta.isSearchable(2));
      assertEquals("VARCHAR", meta.getColumnTypeName(2));
      assertEquals("measurements", meta.getTableName(2));
      // Computed: no table; its decimal type still has a precision and scale.
      assertEquals("", nullToEmpty(meta.getTableName(3)));
      assertEquals(Types.DECIMAL, meta.getColumnType(3));
      assertTrue(meta.getPrecision(3) > 0, "precision " + meta.getPrecision(3));
      assertEquals(3, meta.getScale(3));
      int rows = 0;
      while (rs.next()) {
        assertEquals(0, rs.getBigDecimal(1).multiply(BigDecimal.valueOf(2))
            .compareTo(rs.getBigDecimal(3)));
        rows++;
      }
      assertEquals(3, rows);
    }
  }

  @Test
  void relationalPlansNameTheTableOfPassedThroughColumns() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT m.amount, upper(n.name) AS shout "
            + "FROM lab.measurements m JOIN lab.measurements n ON m.id = n.id")) {
      ResultSetMetaData meta = rs.getMetaData();
      assertEquals("measurements", meta.getTableName(1));
      assertEquals("lab", meta.getSchemaName(1));
      assertEquals(12, meta.getPrecision(1));
      assertEquals(3, meta.getScale(1));
      assertEquals("", nullToEmpty(meta.getTableName(2)));
    }
  }

  @Test
  void selectStarAgreesWithGetColumnsInNamesOrderAndTypes() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl())) {
      List<String> fromColumns = new ArrayList<>();
      try (ResultSet rs = connection.getMetaData().getColumns("lake", "lab", "measurements", "%")) {
        while (rs.next()) {
          fromColumns.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("DATA_TYPE"));
          if (rs.getString("COLUMN_NAME").equals("amount")) {
            assertEquals(12, rs.getInt("COLUMN_SIZE"));
            assertEquals(3, rs.getInt("DECIMAL_DIGITS"));
          }
        }
      }
      for (String sql : List.of("SELECT * FROM lab.measurements",
          "SELECT * FROM lab.measurements WHERE id < 0",
          "SELECT m.* FROM lab.measurements m JOIN lab.measurements n ON m.id = n.id")) {
        // A PreparedStatement: the driver's plain Statement lists an empty result's columns
        // twice (apache/arrow-java#44, see docs/architecture.md).
        try (PreparedStatement statement = connection.prepareStatement(sql);
            ResultSet rs = statement.executeQuery()) {
          ResultSetMetaData meta = rs.getMetaData();
          List<String> fromQuery = new ArrayList<>();
          for (int i = 1; i <= meta.getColumnCount(); i++) {
            fromQuery.add(meta.getColumnName(i) + ":" + meta.getColumnType(i));
          }
          assertEquals(fromColumns, fromQuery, sql);
        }
      }
      assertEquals(SCHEMA.getFields().size(), fromColumns.size());
    }
  }

  @Test
  void databaseMetaDataReadsTheSqlInfoFlags() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl())) {
      java.sql.DatabaseMetaData meta = connection.getMetaData();
      assertEquals("lake", meta.getDatabaseProductName());
      assertTrue(meta.getStringFunctions().contains("UPPER"), meta.getStringFunctions());
      assertTrue(meta.getNumericFunctions().contains("MOD"), meta.getNumericFunctions());
      assertTrue(meta.getSQLKeywords().contains("LIMIT"), meta.getSQLKeywords());
      assertEquals("\"", meta.getIdentifierQuoteString());
      assertEquals("\\", meta.getSearchStringEscape());
      assertFalse(meta.supportsTransactions());
      assertFalse(meta.isReadOnly());
      assertTrue(meta.supportsLikeEscapeClause());
      try (ResultSet keys = meta.getPrimaryKeys("lake", "lab", "measurements")) {
        assertFalse(keys.next());
      }
      try (ResultSet keys = meta.getImportedKeys("lake", "lab", "measurements")) {
        assertFalse(keys.next());
      }
    }
  }

  @Test
  void anEmptyResultOfAPreparedStatementListsEachColumnOnce() throws Exception {
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        PreparedStatement statement =
            connection.prepareStatement("SELECT id, name FROM lab.measurements WHERE id < 0");
        ResultSet rs = statement.executeQuery()) {
      ResultSetMetaData meta = rs.getMetaData();
      assertEquals(2, meta.getColumnCount());
      assertEquals("id", meta.getColumnName(1));
      assertEquals("name", meta.getColumnName(2));
      assertFalse(rs.next());
    }
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }

  /** {@code count} rows of every type as an IPC stream the catalog can append. */
  private ArrowStreamReader rows(int count) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, lake.clientAllocator());
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
      root.allocateNew();
      for (int i = 0; i < count; i++) {
        ((BigIntVector) root.getVector("id")).setSafe(i, i);
        ((VarCharVector) root.getVector("name")).setSafe(i, ("m" + i).getBytes(StandardCharsets.UTF_8));
        ((DecimalVector) root.getVector("amount")).setSafe(i, new BigDecimal(i + ".125"));
        ((Float4Vector) root.getVector("ratio")).setSafe(i, i / 4f);
        ((Float8Vector) root.getVector("score")).setSafe(i, i / 8.0);
        ((BitVector) root.getVector("ok")).setSafe(i, i % 2);
        ((DateDayVector) root.getVector("day")).setSafe(i, 20_000 + i);
        ((TimeStampMicroTZVector) root.getVector("at")).setSafe(i, 1_767_225_600_000_000L + i);
        ((SmallIntVector) root.getVector("small")).setSafe(i, (short) i);
        ((TinyIntVector) root.getVector("tiny")).setSafe(i, (byte) i);
        ((IntVector) root.getVector("mid")).setSafe(i, i * 10);
      }
      root.setRowCount(count);
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), lake.clientAllocator());
  }
}
