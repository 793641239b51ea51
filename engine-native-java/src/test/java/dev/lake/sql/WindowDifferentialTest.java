package dev.lake.sql;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.sql.tpch.Differential;
import dev.lake.sql.tpch.MapCatalog;
import dev.lake.sql.tpch.Results;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Randomly generated window queries (every function, PARTITION BY of zero to two keys, ORDER BY
 * with ties and NULLs in both directions, ROWS frames of every shape, RANGE frames with numeric
 * and interval offsets, windows over grouped rows, windows in ORDER BY) over generated data with
 * NULLs, ties and Unicode text, answered by lake over the {@code log} engine and by DuckDB and
 * compared. Functions whose answer depends on the order among peers (row_number, lag, ROWS
 * frames...) are ordered by a unique key too, so the answer is one. The seed is fixed; {@code
 * -Dlake.fuzz.iterations=N -Dlake.fuzz.seed=S} runs a longer or other sequence.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WindowDifferentialTest {
  private static final int ROWS = 2000;
  private static final String[] WORDS = {"apple", "Apple", "ärger", "éclair", "zebra", "Ωmega", "日本", "", "b"};

  @TempDir static Path dir;
  private BufferAllocator allocator;
  private TableEngine log;
  private TableHandle handle;
  private Connection duck;
  private SqlEngine sql;

  private static Schema schema() {
    return new Schema(List.of(
        Field.notNullable("id", new ArrowType.Int(64, true)),
        Field.nullable("p", new ArrowType.Int(32, true)),
        Field.nullable("o", new ArrowType.Int(32, true)),
        Field.nullable("v", new ArrowType.Int(64, true)),
        Field.nullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        Field.nullable("s", ArrowType.Utf8.INSTANCE),
        Field.nullable("d", new ArrowType.Date(DateUnit.DAY)),
        Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
        Field.nullable("m", new ArrowType.Decimal(10, 2, 128))));
  }

  @BeforeAll
  void load() throws Exception {
    allocator = new RootAllocator();
    log = Differential.logEngine(300);
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      s.execute("CREATE TABLE staged (id BIGINT, p INTEGER, o INTEGER, v BIGINT, x DOUBLE, s VARCHAR,"
          + " d DATE, tsm BIGINT, m DECIMAL(10, 2))");
    }
    Random random = new Random(7);
    handle = log.create(TableLocation.of(dir.resolve("w")), schema());
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
        PreparedStatement insert = duck.prepareStatement("INSERT INTO staged VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      root.allocateNew();
      for (int i = 0; i < ROWS; i++) {
        Integer p = random.nextInt(10) == 0 ? null : random.nextInt(7);
        Integer o = random.nextInt(10) == 0 ? null : random.nextInt(40) - 10;
        Long v = random.nextInt(8) == 0 ? null : (long) random.nextInt(2000) - 1000;
        Double x = random.nextInt(8) == 0 ? null : Math.round(random.nextGaussian() * 400) / 8.0;
        String s = random.nextInt(8) == 0 ? null : WORDS[random.nextInt(WORDS.length)];
        LocalDate d = random.nextInt(8) == 0 ? null : LocalDate.of(2024, 1, 1).plusDays(random.nextInt(120));
        Long ms = random.nextInt(8) == 0 ? null
            : 1_704_067_200_000L + random.nextInt(90) * 3_600_000L * 7 + random.nextInt(4) * 60_000L;
        BigDecimal m = random.nextInt(8) == 0 ? null : BigDecimal.valueOf(random.nextInt(4000) - 2000, 2);
        ((BigIntVector) root.getVector("id")).setSafe(i, i);
        Differential.set(root.getVector("p"), i, p);
        Differential.set(root.getVector("o"), i, o);
        Differential.set(root.getVector("v"), i, v);
        Differential.set(root.getVector("x"), i, x);
        Differential.set(root.getVector("s"), i, s);
        Differential.set(root.getVector("d"), i, d);
        Differential.set(root.getVector("ts"), i, ms == null ? null : ms * 1000);
        Differential.set(root.getVector("m"), i, m);
        Object[] values = {(long) i, p, o, v, x, s, d == null ? null : java.sql.Date.valueOf(d), ms, m};
        for (int c = 0; c < values.length; c++) {
          insert.setObject(c + 1, values[c]);
        }
        insert.addBatch();
      }
      insert.executeBatch();
      root.setRowCount(ROWS);
      Differential.appendInThirds(handle, root, "fuzz", "w", 1L, allocator);
    }
    try (Statement s = duck.createStatement()) {
      s.execute("CREATE TABLE w AS SELECT id, p, o, v, x, s, d, epoch_ms(tsm) AS ts, m FROM staged");
    }
    sql = new SqlEngine(new MapCatalog().put(new TableName("fuzz", "w"), handle), Long.MAX_VALUE, 3);
  }

  @AfterAll
  void close() throws Exception {
    duck.close();
    handle.close();
    log.close();
    allocator.close();
  }

  @Test
  void randomWindowQueriesAnswerLikeDuckDb() throws Exception {
    Differential.assertAnswersAgree(duck, sql, allocator, 20261202L, 150, random -> {
      String query = new Generator(random).query();
      return new Differential.Query(query, query, query.contains("LIMIT"));
    }, rs -> microseconds(Results.read(rs)), rows -> rows);
  }

  @Test
  void ignoreNullsAnswersLikeDuckDb() throws Exception {
    String[] offsets = {"lag(v)", "lag(v, 2)", "lead(s)", "lead(x, 3, 0.5)", "lag(d, 1)", "lead(v, 2, -1)"};
    String[] values = {"first_value(v)", "last_value(s)", "nth_value(x, 2)", "first_value(m)", "nth_value(s, 3)"};
    Differential.assertAnswersAgree(duck, sql, allocator, 20261203L, 60, random -> {
      Generator g = new Generator(random);
      boolean offset = random.nextBoolean();
      String call = offset ? offsets[random.nextInt(offsets.length)] : values[random.nextInt(values.length)];
      String over = " OVER (" + g.partition() + "ORDER BY " + g.keys() + ", id" + (offset ? "" : " " + g.rowsFrame()) + ")";
      String where = g.where();
      // lake takes SQL's form, call(...) IGNORE NULLS; DuckDB the IGNORE NULLS inside the call.
      String lake = "SELECT id, " + call + " IGNORE NULLS" + over + " FROM w" + where;
      String duckdb = "SELECT id, " + call.substring(0, call.length() - 1) + " IGNORE NULLS)" + over + " FROM w" + where;
      return new Differential.Query(lake, duckdb, false);
    }, rs -> microseconds(Results.read(rs)), rows -> rows);
  }

  /** DuckDB's timestamps as lake reads them: microseconds since the epoch, UTC. */
  private static List<List<Object>> microseconds(List<List<Object>> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (List<Object> row : rows) {
      List<Object> copy = new ArrayList<>();
      for (Object v : row) {
        if (v instanceof java.sql.Timestamp t) {
          java.time.LocalDateTime local = t.toLocalDateTime();
          v = local.toEpochSecond(java.time.ZoneOffset.UTC) * 1_000_000L + local.getNano() / 1000;
        }
        copy.add(v);
      }
      out.add(copy);
    }
    return out;
  }

  /** One random window query over w, in the dialect both engines share. */
  static final class Generator {
    private final Random r;

    Generator(Random r) {
      this.r = r;
    }

    String query() {
      return switch (r.nextInt(8)) {
        case 0 -> {
          // A window over grouped rows.
          String key = pick("p", "s", "d");
          yield "SELECT " + key + ", sum(v), " + pick("rank()", "dense_rank()", "percent_rank()", "cume_dist()")
              + " OVER (ORDER BY sum(v) " + direction() + "), count(*) OVER (ORDER BY " + key + " "
              + direction() + " RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM w GROUP BY " + key;
        }
        case 1 -> "SELECT id, v FROM w" + where() + " ORDER BY " + pick("row_number()", "lag(v, 1, 0)", "sum(v)")
            + " OVER (" + partition() + "ORDER BY o " + direction() + ", id) " + direction() + ", id LIMIT 40";
        default -> {
          StringBuilder b = new StringBuilder("SELECT id");
          int n = 1 + r.nextInt(3);
          for (int i = 0; i < n; i++) {
            b.append(", ").append(windowed());
          }
          yield b.append(" FROM w").append(where()).toString();
        }
      };
    }

    private String where() {
      return switch (r.nextInt(4)) {
        case 0 -> " WHERE v > " + (r.nextInt(1000) - 500);
        case 1 -> " WHERE p IS NOT NULL AND o < " + r.nextInt(30);
        default -> "";
      };
    }

    private String windowed() {
      String partition = partition();
      return switch (r.nextInt(6)) {
        case 0 -> pick("rank()", "dense_rank()", "percent_rank()", "cume_dist()") + " OVER (" + partition
            + "ORDER BY " + keys() + ")";
        case 1 -> pick("row_number()", "ntile(" + (1 + r.nextInt(7)) + ")", "lag(v)", "lead(s, 2)",
            "lag(x, " + r.nextInt(4) + ", 0.5)", "lead(v, 3, -1)", "lag(d, 1)")
            + " OVER (" + partition + "ORDER BY " + keys() + ", id)";
        case 2 -> pick("first_value(v)", "last_value(s)", "nth_value(x, " + (1 + r.nextInt(3)) + ")",
            aggregate(), aggregate()) + " OVER (" + partition + "ORDER BY " + keys() + ", id " + rowsFrame() + ")";
        case 3 -> aggregate() + " OVER (" + partition + rangeFrame() + ")";
        case 4 -> aggregate() + " OVER (" + partition + (r.nextBoolean() ? "ORDER BY " + keys() : "") + ")";
        default -> pick("first_value(v)", "last_value(m)", "nth_value(s, 2)") + " OVER (" + partition
            + "ORDER BY id " + pick("RANGE BETWEEN 3 PRECEDING AND 2 FOLLOWING", "RANGE BETWEEN CURRENT ROW AND 5 FOLLOWING",
            "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", "RANGE BETWEEN 10 PRECEDING AND UNBOUNDED FOLLOWING") + ")";
      };
    }

    private String partition() {
      return switch (r.nextInt(4)) {
        case 0 -> "";
        case 1 -> "PARTITION BY s ";
        case 2 -> "PARTITION BY p, s ";
        default -> "PARTITION BY p ";
      };
    }

    private String keys() {
      String k = pick("o", "s", "d", "x", "m") + " " + direction();
      return r.nextInt(3) == 0 ? k + ", " + pick("o", "p", "v") + " " + direction() : k;
    }

    private String direction() {
      return pick("ASC", "DESC") + " " + pick("NULLS FIRST", "NULLS LAST");
    }

    private String aggregate() {
      return pick("sum(v)", "count(v)", "count(*)", "min(s)", "max(x)", "avg(v)", "sum(x)", "min(d)", "max(m)",
          "sum(m)", "avg(x)", "max(ts)");
    }

    private static final String[] BOUNDS = {"UNBOUNDED PRECEDING", "PRECEDING", "CURRENT ROW", "FOLLOWING",
        "UNBOUNDED FOLLOWING"};

    private String rowsFrame() {
      int lower = r.nextInt(4);
      int upper = Math.max(lower, 1) + r.nextInt(5 - Math.max(lower, 1));
      if (r.nextInt(6) == 0) {
        return "ROWS " + pick("UNBOUNDED PRECEDING", r.nextInt(5) + " PRECEDING", "CURRENT ROW");
      }
      return "ROWS BETWEEN " + bound(lower, String.valueOf(r.nextInt(6))) + " AND "
          + bound(upper, String.valueOf(r.nextInt(6)));
    }

    private String rangeFrame() {
      String dir = direction();
      return switch (r.nextInt(6)) {
        case 0 -> "ORDER BY o " + dir + " " + range(String.valueOf(r.nextInt(6)), String.valueOf(r.nextInt(6)));
        case 1 -> "ORDER BY x " + dir + " " + range(r.nextInt(60) + ".5", String.valueOf(r.nextInt(40)));
        case 2 -> "ORDER BY m " + dir + " " + range(r.nextInt(20) + ".25", String.valueOf(r.nextInt(10)));
        case 3 -> "ORDER BY d " + dir + " " + range("INTERVAL '" + r.nextInt(10) + "' DAY",
            pick("INTERVAL '1' MONTH", "INTERVAL '2' DAY", "INTERVAL '0' DAY"));
        case 4 -> "ORDER BY ts " + dir + " " + range("INTERVAL '1' DAY", pick("INTERVAL '6' HOUR",
            "INTERVAL '30' MINUTE", "INTERVAL '1' MONTH"));
        default -> "ORDER BY " + keys() + " RANGE BETWEEN " + pick("UNBOUNDED PRECEDING", "CURRENT ROW")
            + " AND " + pick("CURRENT ROW", "UNBOUNDED FOLLOWING");
      };
    }

    private String range(String a, String b) {
      int lower = r.nextInt(4);
      int upper = Math.max(lower, 1) + r.nextInt(5 - Math.max(lower, 1));
      return "RANGE BETWEEN " + bound(lower, a) + " AND " + bound(upper, b);
    }

    private static String bound(int type, String offset) {
      return type == 1 || type == 3 ? offset + " " + BOUNDS[type] : BOUNDS[type];
    }

    private String pick(String... options) {
      return options[r.nextInt(options.length)];
    }
  }
}
