package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Literals of comparisons made parameters for the plan cache ({@link AutoParameters}): the same
 * answers (and the same errors) as planning each text afresh, over many literal variants, while
 * statements that differ only in such literals share one kept plan.
 */
class SqlAutoParametersTest {

  @TempDir Path dir;
  private RootAllocator allocator;
  private LogTablesCatalog catalog;
  private SqlEngine auto;
  private SqlEngine plain;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    catalog = new LogTablesCatalog(dir);
    auto = new SqlEngine(catalog, Long.MAX_VALUE, 2);
    auto.autoParameterize = true;
    plain = new SqlEngine(catalog, Long.MAX_VALUE, 2, java.time.Duration.ofMinutes(5), 0);
    plain.autoParameterize = false;
    auto.executeUpdate("CREATE SCHEMA s", allocator);
    auto.executeUpdate("CREATE TABLE s.t (id BIGINT NOT NULL, i INT, name VARCHAR,"
        + " d DECIMAL(10, 2), f DOUBLE, r REAL, day DATE, b BOOLEAN)", allocator);
    StringBuilder values = new StringBuilder();
    for (int k = -20; k <= 40; k++) {
      if (values.length() > 0) {
        values.append(", ");
      }
      String name = switch (Math.floorMod(k, 7)) {
        case 0 -> "NULL";
        case 1 -> "'it''s'";
        case 2 -> "'abc '";
        case 3 -> "'abc'";
        case 4 -> "''";
        default -> "'n" + k + "'";
      };
      values.append("(").append(k).append(", ").append(k % 5 == 0 ? "NULL" : String.valueOf(k * 3))
          .append(", ").append(name).append(", ").append(k % 9 == 0 ? "NULL" : k + ".25")
          .append(", ").append(k / 4.0).append(", ").append(k % 3 == 0 ? "0.1" : k + ".5")
          .append(", DATE '2024-01-01' + INTERVAL '").append(Math.abs(k)).append("' DAY")
          .append(", ").append(k % 2 == 0).append(")");
    }
    auto.executeUpdate("INSERT INTO s.t VALUES " + values, allocator);
  }

  @AfterEach
  void close() {
    catalog.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  @Test
  void answersAreThoseOfTheLiteralTextOverManyLiteralVariants() {
    List<String> templates = List.of(
        "SELECT * FROM s.t WHERE id = %s",
        "SELECT id FROM s.t WHERE id <> %s ORDER BY id",
        "SELECT id, name FROM s.t WHERE i >= %s ORDER BY id",
        "SELECT count(*) FROM s.t WHERE d < %s",
        "SELECT id FROM s.t WHERE f > %s ORDER BY id",
        "SELECT id FROM s.t WHERE r = %s ORDER BY id",
        "SELECT id FROM s.t WHERE s.t.id <= %s AND b ORDER BY id LIMIT 3",
        "SELECT id FROM s.t WHERE name = %s ORDER BY id",
        "SELECT id FROM s.t WHERE name <> %s ORDER BY id",
        "SELECT id FROM s.t WHERE \"name\" > %s ORDER BY 1",
        "SELECT i, count(*) FROM s.t WHERE id > %s GROUP BY i ORDER BY 1 NULLS FIRST",
        "SELECT id FROM s.t WHERE day = %s ORDER BY id",
        "SELECT id FROM s.t WHERE b = %s ORDER BY id",
        "SELECT id FROM (SELECT * FROM s.t WHERE id = %s) x",
        "SELECT id FROM s.t WHERE id = %s OR id = 3 ORDER BY id");
    List<String> literals = List.of("0", "1", "17", "-5", "-20", "40", "41", "2147483648",
        "-9223372036854775808", "99999999999999999999", "2.0", "2.5", "3.25", "-4.25", "0.1",
        "10.5", "0.1000", "NULL", "'abc'", "'abc '", "'it''s'", "''", "'n5'", "'17'",
        "DATE '2024-01-05'", "'2024-01-05'", "TRUE", "1e1", "CAST(3 AS BIGINT)", "(2)");
    int compared = 0;
    for (String template : templates) {
      for (String literal : literals) {
        String sql = String.format(template, literal);
        Object expected = answer(plain, sql);
        assertEquals(expected, answer(auto, sql), sql);
        assertEquals(expected, answer(auto, sql), "again, from the kept plan: " + sql);
        compared++;
      }
    }
    assertEquals(templates.size() * literals.size(), compared);
  }

  @Test
  void statementsDifferingOnlyInComparedLiteralsShareOneKeptPlan() {
    for (int id = -20; id <= 40; id++) {
      assertEquals(List.of(List.of((long) id)), answer(auto, "SELECT id FROM s.t WHERE id = " + id));
    }
    long[] counts = auto.planCacheCounts();
    assertTrue(counts[1] <= 2, "planned once for 61 ids: " + counts[0] + " hits, " + counts[1] + " misses");
  }

  @Test
  void onlyComparedLiteralsInPlainQueriesAreNormalized() {
    assertEquals("SELECT * FROM t WHERE id = ? AND name = ? LIMIT 5",
        AutoParameters.of("SELECT * FROM t WHERE id = 17 AND name = 'it''s' LIMIT 5").text());
    assertEquals(List.of(new java.math.BigInteger("-17"), "it's"),
        AutoParameters.of("SELECT * FROM t WHERE id = -17 AND name = 'it''s'").values());
    assertEquals("SELECT 1, 'x' FROM t WHERE t.a >= ? ORDER BY 1",
        AutoParameters.of("SELECT 1, 'x' FROM t WHERE t.a >= 2.50 ORDER BY 1").text());
    for (String untouched : List.of("SELECT 1", "SELECT * FROM t WHERE a = 1 + 2",
        "SELECT * FROM t WHERE a LIKE 'x%'", "SELECT * FROM t WHERE a IN (1, 2)",
        "SELECT * FROM t WHERE a BETWEEN 1 AND 2", "SELECT * FROM t LIMIT 10 OFFSET 2",
        "SELECT * FROM t WHERE a = ?", "INSERT INTO t VALUES (1)", "EXPLAIN SELECT * FROM t WHERE a = 1",
        "SELECT * FROM t WHERE a = 1e5", "SELECT * FROM t WHERE a = DATE '2024-01-01'",
        "SELECT * FROM t WHERE a = X'00'", "SELECT * FROM t WHERE a = 'x", "SELECT * FROM t -- a = 1",
        "SELECT CASE WHEN a = 1 THEN 2 END FROM t", "SELECT * FROM t WHERE 1 = a")) {
      assertNull(AutoParameters.of(untouched), untouched);
    }
    assertNotNull(AutoParameters.of("WITH x AS (SELECT * FROM t WHERE a = 1) SELECT * FROM x"));
  }

  @Test
  void aValueComparedMoreThanOnceStaysALiteralSoAnOrStillFactors() {
    assertEquals("SELECT * FROM t WHERE (a = 'x' AND b = ?) OR (a = 'x' AND b = ?)",
        AutoParameters.of("SELECT * FROM t WHERE (a = 'x' AND b = 1) OR (a = 'x' AND b = 2)").text());
    assertEquals(List.of(new java.math.BigInteger("1"), new java.math.BigInteger("2")),
        AutoParameters.of("SELECT * FROM t WHERE (a = 'x' AND b = 1) OR (a = 'x' AND b = 2)").values());
    assertNull(AutoParameters.of("SELECT * FROM t WHERE a = 3 OR b = 3"));
    // As TPC-H Q19: the repeated equality leaves the OR and is pushed into the scan on its own.
    String sql = "SELECT id FROM s.t WHERE (name = 'abc' AND i >= 3) OR (name = 'abc' AND i < -30)"
        + " ORDER BY id";
    String pushed = String.join("\n", auto.prepare(sql).explain());
    assertTrue(pushed.contains("Comparison[op=EQ, left=ColumnRef[name=name], right=Literal[type=Utf8, value=abc]]"),
        pushed);
    assertEquals(answer(plain, sql), answer(auto, sql));
  }

  // The rows of sql, or the kind of its failure.
  private Object answer(SqlEngine engine, String sql) {
    try {
      return SqlFixture.rows(engine.prepare(sql), allocator);
    } catch (SqlException e) {
      return e.kind();
    } catch (ClassCastException e) {
      // A planner failure of the literal text itself (Calcite's simplifier on a string compared
      // with a number): whichever engine plans the text must fail the same way.
      System.err.println("planner failure: " + sql + ": " + e);
      return e.getClass();
    }
  }
}
