package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;

/** Where a {@code ?} gets its type from a literal beside it, and where it cannot get one. */
class SqlParameterTypingTest extends SqlFixture {

  private static final ArrowType INT = new ArrowType.Int(32, true);
  private static final ArrowType DOUBLE = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  private List<ArrowType> types(String sql) {
    return engine.prepare(sql).parameterSchema().getFields().stream().map(Field::getType).toList();
  }

  private Object value(String sql, Object... values) {
    return rows(engine.prepare(sql, Map.of(), Arrays.asList(values))).getFirst().getFirst();
  }

  @Test
  void coalesceNullifAndCaseTakeTheTypeOfTheLiteralBeside() {
    assertEquals(List.of(ArrowType.Utf8.INSTANCE), types("SELECT COALESCE(?, 'x')"));
    assertEquals("hello", value("SELECT COALESCE(?, 'x')", "hello"));
    assertEquals("x", value("SELECT COALESCE(?, 'x')", (Object) null));
    assertEquals(List.of(INT), types("SELECT COALESCE(?, 1)"));
    assertEquals(List.of(INT), types("SELECT NULLIF(?, 1)"));
    assertEquals(null, value("SELECT NULLIF(?, 1)", 1));
    assertEquals(2, value("SELECT NULLIF(?, 1)", 2));
    assertEquals(List.of(DOUBLE, DOUBLE), types("SELECT COALESCE(?, ?, 2.5)"));
    assertEquals(List.of(INT), types("SELECT CASE WHEN true THEN ? ELSE 0 END"));
    assertEquals(List.of(ArrowType.Utf8.INSTANCE, ArrowType.Utf8.INSTANCE),
        types("SELECT CASE WHEN true THEN ? ELSE ? END"), "nothing to take: text");
  }

  @Test
  void inListsComparisonsAndCastsTypeTheirParameter() {
    assertEquals(List.of(INT), types("SELECT ? IN (1, 2)"));
    assertEquals(true, value("SELECT ? IN (1, 2)", 2));
    assertEquals(false, value("SELECT ? NOT IN (1, 2)", 2));
    assertEquals(List.of(INT, INT), types("SELECT ? IN (?, 3)"));
    assertEquals(List.of(INT), types("SELECT CAST(? AS INT)"));
    assertEquals(5, value("SELECT CAST(? AS INT)", 5));
    assertEquals(List.of(ArrowType.Bool.INSTANCE), types("SELECT CASE WHEN ? THEN 'y' ELSE 'n' END"));
    assertEquals("y", value("SELECT CASE WHEN ? THEN 'y' ELSE 'n' END", true));
    assertEquals(List.of(ArrowType.Utf8.INSTANCE), types("SELECT ? IS NULL"));
    assertEquals(true, value("SELECT ? IS NULL", (Object) null));
    assertEquals(List.of(ArrowType.Utf8.INSTANCE),
        types("SELECT robot FROM demo.episodes WHERE robot LIKE ?"));
    assertEquals(List.of(INT), types("SELECT ? + 1"));
  }

  @Test
  void arithmeticOfParametersAloneIsRefusedNamingThePosition() {
    for (String sql : List.of("SELECT ? + ?", "SELECT -?", "SELECT ? * NULL",
        "SELECT id FROM demo.episodes WHERE id = ? - ?")) {
      SqlException e = assertThrows(SqlException.class, () -> engine.prepare(sql), sql);
      assertEquals(SqlException.Kind.INVALID, e.kind(), sql);
      assertTrue(e.getMessage().contains("parameter 1") && e.getMessage().contains("CAST(? AS"),
          e.getMessage());
      assertEquals(1, e.line(), sql);
      assertEquals(sql.indexOf('?') + 1, e.column(), sql);
    }
  }
}
