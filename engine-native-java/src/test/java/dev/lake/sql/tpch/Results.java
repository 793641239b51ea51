package dev.lake.sql.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.util.Text;

/**
 * Query results as rows of comparable values (integers as Long, other numbers as Double, dates as
 * LocalDate, text as String), read from lake or from JDBC, and compared with a relative tolerance
 * for floating point.
 */
public final class Results {
  private Results() {}

  public static List<List<Object>> read(ArrowReader reader) throws java.io.IOException {
    List<List<Object>> rows = new ArrayList<>();
    while (reader.loadNextBatch()) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      for (int r = 0; r < root.getRowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (FieldVector v : root.getFieldVectors()) {
          Object value = v.getObject(r);
          if (value != null && v instanceof DateDayVector) {
            value = LocalDate.ofEpochDay((Integer) value);
          }
          row.add(normalise(value));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  public static List<List<Object>> read(ResultSet rs) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    int columns = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      List<Object> row = new ArrayList<>();
      for (int c = 1; c <= columns; c++) {
        Object value = rs.getObject(c);
        if (value instanceof java.sql.Date d) {
          value = d.toLocalDate();
        }
        row.add(normalise(value));
      }
      rows.add(row);
    }
    return rows;
  }

  static Object normalise(Object v) {
    return switch (v) {
      case null -> null;
      case Long l -> l;
      case Integer i -> (long) i;
      case Short s -> (long) s;
      case Byte b -> (long) b;
      case BigInteger b -> b.longValueExact();
      case BigDecimal d -> d.scale() <= 0 ? (Object) d.longValueExact() : (Object) d.doubleValue();
      case Float f -> (double) f;
      case Double d -> d;
      case Text t -> t.toString();
      case java.time.LocalDateTime t -> t;
      default -> v;
    };
  }

  /**
   * Asserts equal results: in order when {@code ordered}, else as multisets. Numbers are equal
   * when integral and identical, or within a relative 1e-9 (absolute 1e-9 near zero).
   */
  public static void assertSame(String what, List<List<Object>> expected, List<List<Object>> actual,
      boolean ordered) {
    List<List<Object>> e = expected;
    List<List<Object>> a = actual;
    if (!ordered) {
      e = sorted(expected);
      a = sorted(actual);
    }
    assertEquals(e.size(), a.size(), what + ": row count differs; expected " + head(e) + " but got " + head(a));
    for (int r = 0; r < e.size(); r++) {
      List<Object> x = e.get(r);
      List<Object> y = a.get(r);
      assertEquals(x.size(), y.size(), what + ": column count differs");
      for (int c = 0; c < x.size(); c++) {
        if (!same(x.get(c), y.get(c))) {
          fail(what + ": row " + r + " column " + c + " differs: expected " + x + " but got " + y);
        }
      }
    }
  }

  private static String head(List<List<Object>> rows) {
    return rows.subList(0, Math.min(5, rows.size())) + (rows.size() > 5 ? "..." : "");
  }

  static boolean same(Object x, Object y) {
    if (x == null || y == null) {
      return x == y;
    }
    if (x instanceof Number p && y instanceof Number q) {
      if (p instanceof Long && q instanceof Long) {
        return p.equals(q);
      }
      double u = p.doubleValue();
      double v = q.doubleValue();
      return u == v || Math.abs(u - v) <= 1e-9 * Math.max(Math.abs(u), Math.abs(v)) + 1e-9;
    }
    return x.equals(y);
  }

  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(Results::key));
    return copy;
  }

  private static String key(List<Object> row) {
    StringBuilder b = new StringBuilder();
    for (Object v : row) {
      b.append(v instanceof Double d ? String.format(Locale.ROOT, "%.6e", d) : String.valueOf(v)).append('\u0001');
    }
    return b.toString();
  }
}
