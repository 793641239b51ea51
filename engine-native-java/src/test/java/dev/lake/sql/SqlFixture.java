package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lake.engine.Version;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared test fixture: a robot-episode table {@code demo.episodes} with two versions (6 rows,
 * then 2 more), read in batches of 3 rows so every operator sees several batches; a
 * {@code demo.types} table with one column per supported type; and {@code shared} in two
 * schemas. Every test's allocator must close with nothing allocated.
 */
abstract class SqlFixture {
  static final TableName EPISODES = new TableName("demo", "episodes");

  static final Schema EPISODE_SCHEMA = new Schema(List.of(
      field("id", new ArrowType.Int(64, true), false),
      field("robot", ArrowType.Utf8.INSTANCE, true),
      field("task", ArrowType.Utf8.INSTANCE, true),
      field("success", ArrowType.Bool.INSTANCE, true),
      field("duration_s", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true),
      field("reward", new ArrowType.Decimal(10, 3, 128), true),
      field("started_at", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), true),
      field("day", new ArrowType.Date(DateUnit.DAY), true)));

  static final Schema TYPES_SCHEMA = new Schema(List.of(
      field("i8", new ArrowType.Int(8, true), true),
      field("i16", new ArrowType.Int(16, true), true),
      field("i32", new ArrowType.Int(32, true), true),
      field("i64", new ArrowType.Int(64, true), true),
      field("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), true),
      field("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true),
      field("b", ArrowType.Bool.INSTANCE, true),
      field("s", ArrowType.Utf8.INSTANCE, true),
      field("d", new ArrowType.Date(DateUnit.DAY), true),
      field("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), true),
      field("dm", new ArrowType.Decimal(12, 2, 128), true)));

  RootAllocator allocator;
  InMemoryTable episodes;
  InMemoryTable types;
  InMemoryCatalog catalog;
  SqlEngine engine;

  static Field field(String name, ArrowType type, boolean nullable) {
    return new Field(name, new FieldType(nullable, type, null), null);
  }

  static Object[] row(Object... values) {
    return values;
  }

  static Instant ts(String iso) {
    return Instant.parse(iso);
  }

  static LocalDate day(String iso) {
    return LocalDate.parse(iso);
  }

  static BigDecimal dec(String v) {
    return new BigDecimal(v);
  }

  @BeforeEach
  void setUpFixture() {
    allocator = new RootAllocator();
    episodes = new InMemoryTable(EPISODE_SCHEMA, 3);
    episodes.appendRows(List.of(
        row(1L, "r2d2", "pick", true, 12.5, dec("1.250"), ts("2024-01-01T10:00:00Z"), day("2024-01-01")),
        row(2L, "r2d2", "place", false, 30.0, dec("-0.500"), ts("2024-01-01T11:00:00Z"), day("2024-01-01")),
        row(3L, "c3po", "pick", true, 8.25, dec("2.000"), ts("2024-01-02T09:30:00.123456Z"), day("2024-01-02")),
        row(4L, "c3po", "pick", null, null, null, ts("2024-01-02T10:00:00Z"), day("2024-01-02")),
        row(5L, null, "place", false, 20.0, dec("0.750"), null, null),
        row(6L, "bb8", null, true, 5.0, dec("3.125"), ts("2024-01-03T00:00:00Z"), day("2024-01-03"))));
    episodes.appendRows(List.of(
        row(7L, "bb8", "pick", true, 7.5, dec("1.000"), ts("2024-01-04T08:00:00Z"), day("2024-01-04")),
        row(8L, "r2d2", "pick", false, 40.0, dec("0.000"), ts("2024-01-04T09:00:00Z"), day("2024-01-04"))));
    types = new InMemoryTable(TYPES_SCHEMA, 2);
    types.appendRows(List.of(
        row(-8, -16, -32, -64L, 1.5f, 2.25, true, "héllo", day("1999-12-31"), ts("2000-01-01T00:00:00.000001Z"), dec("12.34")),
        row(127, 32767, 2147483647, Long.MAX_VALUE, -0.5f, 1e300, false, "", day("2024-02-29"), ts("1969-12-31T23:59:59Z"), dec("-0.01")),
        row(null, null, null, null, null, null, null, null, null, null, null)));
    InMemoryTable sharedA = new InMemoryTable(new Schema(List.of(field("x", new ArrowType.Int(32, true), true))), 10);
    sharedA.appendRows(List.<Object[]>of(row(1)));
    InMemoryTable sharedB = new InMemoryTable(new Schema(List.of(field("x", new ArrowType.Int(32, true), true))), 10);
    sharedB.appendRows(List.<Object[]>of(row(2)));
    catalog = new InMemoryCatalog()
        .put(EPISODES, episodes)
        .put(new TableName("demo", "types"), types)
        .put(new TableName("demo", "shared"), sharedA)
        .put(new TableName("lab", "shared"), sharedB);
    engine = new SqlEngine(catalog);
  }

  @AfterEach
  void allocatorClosesClean() {
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  List<List<Object>> rows(String sql) {
    return rows(sql, Map.of());
  }

  List<List<Object>> rows(String sql, Map<TableName, Version> pins) {
    return rows(engine.prepare(sql, pins));
  }

  /** Runs the query to the end, checking every batch carries exactly the prepared schema. */
  List<List<Object>> rows(PreparedQuery query) {
    return rows(query, allocator);
  }

  /** As {@link #rows(PreparedQuery)}, in {@code allocator}. */
  static List<List<Object>> rows(PreparedQuery query, org.apache.arrow.memory.BufferAllocator allocator) {
    List<List<Object>> out = new ArrayList<>();
    try (ArrowReader reader = query.execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        assertEquals(query.schema(), root.getSchema());
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(value(v, r));
          }
          out.add(row);
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }

  static Object value(FieldVector v, int r) {
    if (v.isNull(r)) {
      return null;
    }
    return switch (v) {
      case DateDayVector d -> LocalDate.ofEpochDay(d.get(r));
      case TimeStampVector t -> Instant.EPOCH.plus(t.get(r), java.time.temporal.ChronoUnit.MICROS);
      default -> {
        Object o = v.getObject(r);
        yield o instanceof Text t ? t.toString() : o;
      }
    };
  }

  static List<Object> list(Object... values) {
    return Arrays.asList(values);
  }

  /** The single column of a result. */
  static List<Object> column(List<List<Object>> rows) {
    return rows.stream().map(r -> r.get(0)).toList();
  }

  SqlException fails(String sql) {
    return assertThrows(SqlException.class, () -> rows(sql));
  }
}
