package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.fail;

import dev.lake.sql.slt.DuckDbDatabase;
import dev.lake.sql.slt.SltDatabase;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Joins whose both sides carry list and fixed-size-list columns, against DuckDB over the same
 * random rows (NULL lists, empty lists, NULL elements, keys shared by several rows so one row
 * meets many): inner, outer, semi and anti joins, with and without a residual condition. Rows are
 * compared as sets of values, lists element by element.
 */
class SqlNestedJoinDifferentialTest {
  @TempDir
  Path dir;

  private static final String[] QUERIES = {
      "SELECT id, k, tags, pts FROM a",
      "SELECT id, k, emb, hist FROM b",
      "SELECT a.id, a.k, a.tags, a.pts, b.id, b.emb, b.hist FROM a JOIN b ON a.k = b.k",
      "SELECT a.id, a.tags, a.pts, b.id, b.emb, b.hist FROM a LEFT JOIN b ON a.k = b.k",
      "SELECT a.id, a.tags, a.pts, b.id, b.emb, b.hist FROM a RIGHT JOIN b ON a.k = b.k",
      "SELECT a.id, a.tags, a.pts, b.id, b.emb, b.hist FROM a FULL JOIN b ON a.k = b.k",
      "SELECT a.id, a.tags, b.id, b.hist FROM a JOIN b ON a.k = b.k AND b.id % 3 <> a.id % 3",
      "SELECT a.id, a.tags, b.id, b.hist FROM a LEFT JOIN b ON a.k = b.k AND b.emb IS NOT NULL",
      "SELECT a.id, a.pts, a.tags FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.hist IS NOT NULL)",
      "SELECT a.id, a.pts, a.tags FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)",
      "SELECT x.id, x.tags, y.id, y.pts FROM a x JOIN a y ON x.k = y.k AND x.id < y.id",
  };

  @Test
  void joinsCarryingListsOnBothSidesAgreeWithDuckDb() throws Exception {
    Random random = new Random(20261202);
    List<String> statements = new ArrayList<>();
    statements.add("CREATE TABLE a (id INT, k INT, tags VARCHAR[], pts INT[])");
    statements.add("CREATE TABLE b (id INT, k INT, emb REAL[3], hist BIGINT[])");
    for (int i = 0; i < 60; i++) {
      statements.add("INSERT INTO a VALUES (" + i + ", " + key(random) + ", " + list(random, "VARCHAR",
          () -> random.nextInt(6) == 0 ? "NULL" : "'" + "abü日".charAt(random.nextInt(4)) + random.nextInt(9) + "'")
          + ", " + list(random, "INT", () -> random.nextInt(6) == 0 ? "NULL" : Integer.toString(random.nextInt())) + ")");
    }
    for (int i = 0; i < 40; i++) {
      String emb = random.nextInt(5) == 0 ? "NULL"
          : "ARRAY[" + (random.nextInt(64) / 4.0) + ", " + (-random.nextInt(64) / 8.0) + ", " + random.nextInt(9) + "]";
      statements.add("INSERT INTO b VALUES (" + i + ", " + key(random) + ", " + emb + ", "
          + list(random, "BIGINT", () -> random.nextInt(6) == 0 ? "NULL" : Long.toString(random.nextLong())) + ")");
    }
    try (RootAllocator allocator = new RootAllocator();
        LogTablesCatalog catalog = new LogTablesCatalog(dir);
        DuckDbDatabase duck = new DuckDbDatabase();
        FunctionGoldenTest.Lake lake = new FunctionGoldenTest.Lake(new SqlEngine(catalog, Long.MAX_VALUE, 2),
            allocator)) {
      for (String s : statements) {
        lake.execute(s);
        duck.execute(s);
      }
      for (String sql : QUERIES) {
        List<String> expected = rows(duck.query(sql));
        List<String> actual = rows(lake.query(sql));
        if (!expected.equals(actual)) {
          List<String> missing = new ArrayList<>(expected);
          actual.forEach(missing::remove);
          List<String> extra = new ArrayList<>(actual);
          expected.forEach(extra::remove);
          fail(sql + "\nDuckDB " + expected.size() + " rows, lake " + actual.size() + "; only DuckDB's: "
              + missing.subList(0, Math.min(5, missing.size())) + "; only lake's: "
              + extra.subList(0, Math.min(5, extra.size())));
        }
      }
    } catch (SltDatabase.Failure e) {
      throw new AssertionError("lake or DuckDB refused: " + e.getMessage(), e);
    }
  }

  /** Keys 0..7 or NULL: several rows per key on each side, some keys on one side only. */
  private static String key(Random random) {
    int k = random.nextInt(10);
    return k == 9 ? "NULL" : Integer.toString(k);
  }

  private static String list(Random random, String type, java.util.function.Supplier<String> element) {
    return switch (random.nextInt(6)) {
      case 0 -> "NULL";
      case 1 -> "'[]'::" + type + "[]";
      default -> {
        String[] elements = new String[1 + random.nextInt(4)];
        Arrays.setAll(elements, i -> element.get());
        yield Arrays.stream(elements).allMatch("NULL"::equals)
            ? "CAST(ARRAY[" + String.join(", ", elements) + "] AS " + type + "[])"
            : "ARRAY[" + String.join(", ", elements) + "]";
      }
    };
  }

  /** Each row as text of normalized values, sorted: the queries fix no order. */
  private static List<String> rows(List<List<Object>> rows) throws SQLException {
    List<String> out = new ArrayList<>();
    for (List<Object> row : rows) {
      List<Object> values = new ArrayList<>();
      for (Object v : row) {
        values.add(normalize(v));
      }
      out.add(values.toString());
    }
    out.sort(Comparator.naturalOrder());
    return out;
  }

  /** Lists (DuckDB's java.sql.Array, Arrow's List) as lists, numbers as Long or Double, text as String. */
  private static Object normalize(Object value) throws SQLException {
    switch (value) {
      case null -> {
        return null;
      }
      case Array a -> {
        return normalize(Arrays.asList((Object[]) a.getArray()));
      }
      case List<?> l -> {
        List<Object> out = new ArrayList<>();
        for (Object o : l) {
          out.add(normalize(o));
        }
        return out;
      }
      case Text t -> {
        return t.toString();
      }
      case Float f -> {
        return f.doubleValue();
      }
      case Double d -> {
        return d;
      }
      case Number n -> {
        return n.longValue();
      }
      default -> {
        return value.toString();
      }
    }
  }
}
