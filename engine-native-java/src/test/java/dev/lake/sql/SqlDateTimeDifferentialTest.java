package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.lake.sql.slt.DuckDbDatabase;
import dev.lake.sql.slt.SltDatabase;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Date and time functions against DuckDB over the same random timestamps (1900-2100, so negative
 * epochs, leap days and ISO-week year boundaries occur), for the fields and units where DuckDB's
 * semantics are PostgreSQL's: EXTRACT of every whole field and of the epoch, date_trunc to second
 * ... decade (DuckDB truncates centuries differently), month and year intervals with the
 * end-of-month rule, to_timestamp and make_date, date - date and date ± integer. Timestamps are compared as epoch seconds.
 */
class SqlDateTimeDifferentialTest {
  @TempDir
  Path dir;

  private static final String[] QUERIES = {
      "SELECT id, EXTRACT(year FROM ts), EXTRACT(month FROM ts), EXTRACT(day FROM ts), EXTRACT(hour FROM ts),"
          + " EXTRACT(minute FROM ts), EXTRACT(quarter FROM ts), EXTRACT(week FROM ts), EXTRACT(isoyear FROM ts),"
          + " EXTRACT(dow FROM ts), EXTRACT(isodow FROM ts), EXTRACT(doy FROM ts), EXTRACT(decade FROM ts),"
          + " EXTRACT(century FROM ts), EXTRACT(millennium FROM ts), EXTRACT(microseconds FROM ts), EXTRACT(epoch FROM ts)"
          + " FROM t ORDER BY id",
      "SELECT id, date_part('year', d), date_part('week', d), date_part('dow', d), date_part('doy', d),"
          + " date_part('isoyear', d), EXTRACT(epoch FROM d) FROM t ORDER BY id",
      "SELECT id, EXTRACT(epoch FROM date_trunc('second', ts)), EXTRACT(epoch FROM date_trunc('minute', ts)),"
          + " EXTRACT(epoch FROM date_trunc('hour', ts)), EXTRACT(epoch FROM date_trunc('day', ts)),"
          + " EXTRACT(epoch FROM date_trunc('week', ts)), EXTRACT(epoch FROM date_trunc('month', ts)),"
          + " EXTRACT(epoch FROM date_trunc('quarter', ts)), EXTRACT(epoch FROM date_trunc('year', ts)),"
          + " EXTRACT(epoch FROM date_trunc('decade', ts)), EXTRACT(epoch FROM date_trunc('milliseconds', ts))"
          + " FROM t ORDER BY id",
      "SELECT id, EXTRACT(epoch FROM ts + INTERVAL '1' MONTH), EXTRACT(epoch FROM ts - INTERVAL '14' MONTH),"
          + " EXTRACT(epoch FROM ts + INTERVAL '3' YEAR), CAST(CAST(d + INTERVAL '1' MONTH AS DATE) AS VARCHAR),"
          + " CAST(CAST(d - INTERVAL '2' YEAR AS DATE) AS VARCHAR), EXTRACT(epoch FROM ts + INTERVAL '36' HOUR)"
          + " FROM t ORDER BY id",
      "SELECT EXTRACT(year FROM ts) AS y, count(*), min(EXTRACT(epoch FROM date_trunc('month', ts))) FROM t"
          + " GROUP BY EXTRACT(year FROM ts) ORDER BY y",
      "SELECT id, EXTRACT(epoch FROM to_timestamp(s)), CAST(make_date(y, m, 28) AS VARCHAR) FROM t ORDER BY id",
      // date - date: days (DuckDB's BIGINT, PostgreSQL's INTEGER); date ± integer: a DATE.
      "SELECT id, d - DATE '2000-01-01', DATE '1970-01-01' - d, CAST(d + m AS VARCHAR), CAST(d - y AS VARCHAR),"
          + " CAST(y + d AS VARCHAR) FROM t ORDER BY id",
  };

  @Test
  void dateTimeFunctionsAgreeWithDuckDb() throws Exception {
    Random random = new Random(20241202);
    StringBuilder values = new StringBuilder();
    long from = LocalDateTime.of(1900, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC) * 1_000_000L;
    long to = LocalDateTime.of(2100, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC) * 1_000_000L;
    for (int i = 0; i < 400; i++) {
      long micros = i < 8 ? LocalDateTime.of(2020 + i, 12, 31 - i % 3, 23, 59, 59).toEpochSecond(ZoneOffset.UTC) * 1_000_000L
          : from + Math.floorMod(random.nextLong(), to - from);
      if (i % 5 == 0) {
        micros -= micros % 1_000_000L; // whole seconds, some at month ends
      }
      LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
          (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
      String ts = t.toString().replace('T', ' ');
      String d = i % 7 == 0 ? "NULL" : "DATE '" + t.toLocalDate() + "'";
      values.append(i == 0 ? "" : ", ").append('(').append(i).append(", TIMESTAMP '").append(ts).append("', ")
          .append(d).append(", ").append(micros / 1e6).append(", ").append(1900 + random.nextInt(200)).append(", ")
          .append(1 + random.nextInt(12)).append(')');
    }
    String create = "CREATE TABLE t (id INT, ts TIMESTAMP, d DATE, s DOUBLE, y INT, m INT)";
    String insert = "INSERT INTO t VALUES " + values;
    try (RootAllocator allocator = new RootAllocator();
        LogTablesCatalog catalog = new LogTablesCatalog(dir);
        DuckDbDatabase duck = new DuckDbDatabase();
        FunctionGoldenTest.Lake lake = new FunctionGoldenTest.Lake(new SqlEngine(catalog, Long.MAX_VALUE, 2),
            allocator)) {
      lake.execute(create);
      lake.execute(insert);
      duck.execute(create);
      duck.execute(insert);
      for (String sql : QUERIES) {
        List<List<Object>> expected = duck.query(sql);
        List<List<Object>> actual = lake.query(sql);
        assertEquals(expected.size(), actual.size(), sql);
        for (int r = 0; r < expected.size(); r++) {
          for (int c = 0; c < expected.get(r).size(); c++) {
            if (!same(expected.get(r).get(c), actual.get(r).get(c))) {
              fail(sql + "\nrow " + r + " column " + (c + 1) + ": DuckDB " + expected.get(r) + ", lake " + actual.get(r));
            }
          }
        }
      }
    } catch (SltDatabase.Failure e) {
      throw new AssertionError("lake or DuckDB refused: " + e.getMessage(), e);
    }
  }

  private static boolean same(Object duck, Object lake) {
    if (duck == null || lake == null) {
      return duck == lake;
    }
    if (duck instanceof Number a && lake instanceof Number b) {
      return Math.abs(a.doubleValue() - b.doubleValue()) <= 1e-6 * Math.max(1, Math.abs(a.doubleValue()) / 1e9);
    }
    return duck.toString().equals(lake.toString());
  }
}
