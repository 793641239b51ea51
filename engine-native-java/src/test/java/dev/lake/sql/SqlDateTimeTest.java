package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.TableHandle;
import dev.lake.engine.VersionInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Dates and times over real {@code log} tables: the statement clock per execution (also of a
 * kept plan), {@code FOR TIMESTAMP AS OF} by recorded commit times, and the messages of bad input.
 */
class SqlDateTimeTest extends LogTablesFixture {

  @BeforeEach
  void createTable() {
    engine.executeUpdate("CREATE SCHEMA s", allocator);
    engine.executeUpdate("CREATE TABLE s.t (date DATE, time TIMESTAMP, value INT)", allocator);
  }

  private List<List<Object>> rows(PreparedQuery query) {
    List<List<Object>> out = new ArrayList<>();
    try (ArrowReader reader = query.execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(v.isNull(r) ? null : v.getObject(r));
          }
          out.add(row);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private List<List<Object>> rows(String sql) {
    return rows(engine.prepare(sql));
  }

  private static long micros(Instant i) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, i);
  }

  private static String text(long micros) {
    return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC).toString().replace('T', ' ');
  }

  @Test
  void namesDateTimeAndValueAreColumnsAndAliases() {
    engine.executeUpdate("INSERT INTO s.t (date, time, value) VALUES (DATE '2024-01-31', TIMESTAMP '2024-01-31 10:00:00', 7)", allocator);
    assertEquals(List.of(List.of(19753, 7)), rows("SELECT date, value AS time FROM s.t WHERE date = DATE '2024-01-31'"));
    assertEquals(List.of(List.of(7)), rows("SELECT t.value FROM s.t AS t WHERE t.time < TIMESTAMP '2024-02-01 00:00:00'"));
  }

  @Test
  void nowIsOneValuePerExecutionAndNewForEachExecutionOfAKeptPlan() {
    StringBuilder values = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      values.append(i == 0 ? "" : ", ").append("(DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00', ").append(i).append(')');
    }
    engine.executeUpdate("INSERT INTO s.t VALUES " + values, allocator);
    String sql = "SELECT count(DISTINCT now()), count(DISTINCT current_timestamp), min(now()), "
        + "sum(CASE WHEN now() = current_timestamp AND current_timestamp = localtimestamp THEN 1 ELSE 0 END) FROM s.t";
    PreparedQuery kept = engine.prepare(sql);
    List<Object> first = rows(kept).getFirst();
    assertEquals(1L, first.get(0));
    assertEquals(1L, first.get(1));
    assertEquals(5000L, first.get(3));
    long before = (Long) first.get(2);
    // Spin until the clock has moved past the first execution's time (no sleep, no margin).
    while (micros(Instant.now()) <= before) {
      Thread.onSpinWait();
    }
    assertNotEquals(before, rows(kept).getFirst().get(2));
    long cachedPlanTime = (Long) rows(engine.prepare(sql)).getFirst().get(2);
    assertTrue(cachedPlanTime > before, cachedPlanTime + " after " + before);
    assertEquals(List.of(List.of(true)), rows("SELECT current_date = CAST(now() AS DATE)"));
  }

  @Test
  void aBoundStatementReadsTheClockAtEachExecution() {
    engine.executeUpdate("INSERT INTO s.t VALUES (DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00', 5)", allocator);
    PreparedQuery bound = engine.prepare("SELECT value, now() FROM s.t WHERE value > ?", java.util.Map.of(), List.of(1));
    long first = (Long) rows(bound).getFirst().get(1);
    while (micros(Instant.now()) <= first) {
      Thread.onSpinWait();
    }
    List<Object> again = rows(bound).getFirst();
    assertEquals(5, again.get(0));
    assertTrue((Long) again.get(1) > first, again + " after " + first);
  }

  @Test
  void forTimestampAsOfReadsTheLatestVersionCommittedAtOrBeforeIt() {
    engine.executeUpdate("INSERT INTO s.t VALUES (DATE '2024-01-01', NULL, 1)", allocator);
    engine.executeUpdate("INSERT INTO s.t VALUES (DATE '2024-01-02', NULL, 2), (NULL, NULL, 3)", allocator);
    TableHandle handle = catalog.openTable(new TableName("s", "t")).orElseThrow();
    List<VersionInfo> versions = handle.versions();
    assertEquals(3, versions.size());
    for (int v = 0; v < versions.size(); v++) {
      long at = micros(versions.get(v).committedAt());
      long expected = new long[] {0, 1, 3}[v];
      assertEquals(List.of(List.of(expected)),
          rows("SELECT count(*) FROM s.t FOR TIMESTAMP AS OF TIMESTAMP '" + text(at) + "'"), "version " + v);
      if (v + 1 < versions.size() && micros(versions.get(v + 1).committedAt()) > at + 1) {
        assertEquals(List.of(List.of(expected)),
            rows("SELECT count(*) FROM s.t FOR TIMESTAMP AS OF '" + text(at + 1) + "' AS x WHERE x.value > 0 OR x.value IS NULL"));
      }
    }
    long first = micros(versions.getFirst().committedAt());
    SqlException e = assertThrows(SqlException.class,
        () -> engine.prepare("SELECT count(*) FROM s.t FOR TIMESTAMP AS OF TIMESTAMP '" + text(first - 1) + "'"));
    assertEquals(SqlException.Kind.VERSION_NOT_FOUND, e.kind());
    assertTrue(e.getMessage().startsWith("table lake.s.t has no version committed at or before "), e.getMessage());
    assertTrue(e.getMessage().contains("its first readable version, 0, was committed at"), e.getMessage());
    // Joined with itself at two times: each side reads its own version.
    long v1 = micros(versions.get(1).committedAt());
    assertEquals(List.of(List.of(3L)), rows("SELECT count(*) FROM s.t FOR TIMESTAMP AS OF TIMESTAMP '" + text(v1)
        + "' a JOIN s.t b ON a.value <= b.value OR b.value IS NULL"));
  }

  @Test
  void unknownFieldListsTheValidFields() {
    SqlException e = assertThrows(SqlException.class, () -> rows("SELECT date_part('fortnight', TIMESTAMP '2024-01-01 00:00:00')"));
    assertEquals(SqlException.Kind.EXECUTION, e.kind());
    assertTrue(e.getMessage().contains("date_part: unknown field 'fortnight'; valid fields are century, day, decade,"
        + " dow, doy, epoch, hour, isodow, isoyear, julian, microseconds, millennium, milliseconds, minute, month,"
        + " quarter, second, week, year"), e.getMessage());
    engine.executeUpdate("INSERT INTO s.t VALUES (DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00', 1)", allocator);
    SqlException column = assertThrows(SqlException.class, () -> rows("SELECT date_trunc('dow', time) FROM s.t"));
    assertTrue(column.getMessage().contains("date_trunc: field 'dow' is not supported; valid fields are century, day,"),
        column.getMessage());
  }

  @Test
  void badFormatsNameTheInputAndThePatternPosition() {
    SqlException e = assertThrows(SqlException.class, () -> rows("SELECT to_timestamp('2024-13-01', 'YYYY-MM-DD')"));
    assertEquals(SqlException.Kind.EXECUTION, e.kind());
    assertTrue(e.getMessage().contains("to_timestamp: cannot read '2024-13-01' with format 'YYYY-MM-DD': pattern MM at"
        + " position 6: month 13 is out of range 1-12"), e.getMessage());
    SqlException day = assertThrows(SqlException.class, () -> rows("SELECT to_date('2023-02-29', 'YYYY-MM-DD')"));
    assertTrue(day.getMessage().contains("to_date: date 2023-2-29 read from '2023-02-29' with format 'YYYY-MM-DD' does not exist"),
        day.getMessage());
    SqlException digits = assertThrows(SqlException.class, () -> rows("SELECT to_timestamp('2024-ab', 'YYYY-MM')"));
    assertTrue(digits.getMessage().contains("pattern MM at position 6: expected digits at \"ab\""), digits.getMessage());
    SqlException ends = assertThrows(SqlException.class, () -> rows("SELECT to_timestamp('2024-01', 'YYYY-MM-DD')"));
    assertTrue(ends.getMessage().contains("pattern DD at position 9: the input ends before it"), ends.getMessage());
  }

  @Test
  void wrongArgumentTypesNameTheFunctionAndItsSignatures() {
    SqlException e = assertThrows(SqlException.class, () -> engine.prepare("SELECT date_trunc('day', 5)"));
    assertEquals(SqlException.Kind.INVALID, e.kind());
    assertTrue(e.getMessage().contains("function date_trunc cannot take (VARCHAR, INTEGER); it takes date_trunc(VARCHAR, TIMESTAMP)"),
        e.getMessage());
  }
}
