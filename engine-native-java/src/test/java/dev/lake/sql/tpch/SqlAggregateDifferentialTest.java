package dev.lake.sql.tpch;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.TableName;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random GROUP BY queries with the registry's aggregates (variance and standard deviation,
 * bool_and/bool_or, string_agg and array_agg with DISTINCT and ORDER BY, median and percentiles,
 * approx_count_distinct) and FILTER on built-in and registry aggregates, answered by lake over the
 * {@code log} engine (three appends, three workers: the partial states merge) and by DuckDB, and
 * compared value by value; only floating-point values get a relative tolerance of 1e-9.
 * {@code approx_count_distinct} is compared to DuckDB's exact {@code count(DISTINCT ...)}: below
 * 1024 distinct values a group's estimate is exact. {@code -Dlake.fuzz.iterations=N
 * -Dlake.fuzz.seed=S} runs a longer or other sequence.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlAggregateDifferentialTest {
  private static final int ROWS = 3000;
  private static final String[] WORDS = {"alpha", "beta", "gamma", "Beta", "ünïcødé", "日本", ""};

  @TempDir static Path dir;
  private BufferAllocator allocator;
  private TableEngine log;
  private TableHandle handle;
  private Connection duck;
  private SqlEngine sql;

  private static Schema schema() {
    return new Schema(List.of(
        Field.nullable("k", new ArrowType.Int(32, true)),
        Field.nullable("s", ArrowType.Utf8.INSTANCE),
        Field.nullable("v", new ArrowType.Int(64, true)),
        Field.nullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        Field.nullable("b", ArrowType.Bool.INSTANCE)));
  }

  @BeforeAll
  void load() throws Exception {
    allocator = new RootAllocator();
    log = Differential.logEngine(500);
    duck = DriverManager.getConnection("jdbc:duckdb:");
    MapCatalog catalog = new MapCatalog();
    Random random = new Random(7);
    try (Statement s = duck.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, s VARCHAR, v BIGINT, x DOUBLE, b BOOLEAN)");
    }
    handle = log.create(TableLocation.of(dir.resolve("t")), schema());
    catalog.put(new TableName("fuzz", "t"), handle);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
        PreparedStatement insert = duck.prepareStatement("INSERT INTO t VALUES (?, ?, ?, ?, ?)")) {
      root.allocateNew();
      for (int i = 0; i < ROWS; i++) {
        Integer k = random.nextInt(10) == 0 ? null : random.nextInt(12) - 2;
        String s = random.nextInt(8) == 0 ? null : WORDS[random.nextInt(WORDS.length)];
        Long v = random.nextInt(8) == 0 ? null : random.nextInt(50) == 0
            ? (random.nextBoolean() ? 1_000_000_000_000L : -1_000_000_000_000L) : (long) random.nextInt(2000) - 1000;
        Double x = random.nextInt(8) == 0 ? null : Math.round(random.nextGaussian() * 1000) / 8.0 + 1e6;
        Boolean b = random.nextInt(6) == 0 ? null : random.nextBoolean();
        Differential.set(root.getVector("k"), i, k);
        Differential.set(root.getVector("s"), i, s);
        Differential.set(root.getVector("v"), i, v);
        Differential.set(root.getVector("x"), i, x);
        Differential.set(root.getVector("b"), i, b);
        insert.setObject(1, k);
        insert.setObject(2, s);
        insert.setObject(3, v);
        insert.setObject(4, x);
        insert.setObject(5, b);
        insert.addBatch();
      }
      insert.executeBatch();
      root.setRowCount(ROWS);
      Differential.appendInThirds(handle, root, "fuzz", "t", 77L, allocator);
    }
    sql = new SqlEngine(catalog, Long.MAX_VALUE, 3);
  }

  @AfterAll
  void close() throws Exception {
    duck.close();
    handle.close();
    log.close();
    allocator.close();
  }

  @Test
  void randomAggregatesWithFilterAnswerLikeDuckDb() throws Exception {
    Differential.assertAnswersAgree(duck, sql, allocator, 20261202L, 150,
        SqlAggregateDifferentialTest::generate, SqlAggregateDifferentialTest::readDuck,
        rows -> rows.stream().map(r -> r.stream().map(SqlAggregateDifferentialTest::list).toList()).toList());
  }

  /** The same query as lake and as DuckDB spell it, compared as unordered rows. */
  private static Differential.Query generate(Random r) {
    String key = pick(r, "k", "s", "k % 3", "b", null);
    List<String[]> aggs = new ArrayList<>();
    int n = 2 + r.nextInt(3);
    for (int a = 0; a < n; a++) {
      String[] agg = aggregate(r);
      if (r.nextInt(3) == 0) {
        String filter = " FILTER (WHERE " + predicate(r) + ")";
        agg = new String[] {agg[0] + filter, agg[1] + filter};
      }
      aggs.add(agg);
    }
    String where = r.nextInt(3) == 0 ? " WHERE " + predicate(r) : "";
    StringBuilder lake = new StringBuilder("SELECT ");
    StringBuilder duck = new StringBuilder("SELECT ");
    if (key != null) {
      lake.append(key).append(", ");
      duck.append(key).append(", ");
    }
    lake.append(String.join(", ", aggs.stream().map(x -> x[0]).toList())).append(" FROM t").append(where);
    duck.append(String.join(", ", aggs.stream().map(x -> x[1]).toList())).append(" FROM t").append(where);
    if (key != null) {
      lake.append(" GROUP BY ").append(key);
      duck.append(" GROUP BY ").append(key);
    }
    return new Differential.Query(lake.toString(), duck.toString(), false);
  }

  /** One aggregate as lake and DuckDB spell it. */
  private static String[] aggregate(Random r) {
    String same = pick(r, "stddev_samp(x)", "stddev_pop(x)", "var_samp(x)", "var_pop(v)", "variance(k)",
        "stddev(v)", "bool_and(b)", "bool_or(v > 0)", "string_agg(s, ',' ORDER BY s)",
        "string_agg(DISTINCT s, '|' ORDER BY s DESC)", "string_agg(s, '' ORDER BY v NULLS FIRST, s, x)",
        "array_agg(v ORDER BY v NULLS FIRST)", "array_agg(DISTINCT k ORDER BY k NULLS LAST)", "median(x)", "median(v)",
        "percentile_cont(0.3) WITHIN GROUP (ORDER BY x)", "percentile_cont(0.9) WITHIN GROUP (ORDER BY v DESC)",
        "percentile_disc(0.7) WITHIN GROUP (ORDER BY x)", "percentile_disc(0.25) WITHIN GROUP (ORDER BY k)",
        "count(*)", "count(DISTINCT v)", "sum(DISTINCT k)", "sum(v)", "avg(x)", "min(s)", "max(x)", "count(s)",
        "APPROX");
    if (same.equals("APPROX")) {
      String col = pick(r, "s", "k", "b", "k % 3");
      return new String[] {"approx_count_distinct(" + col + ")", "count(DISTINCT " + col + ")"};
    }
    return new String[] {same, same};
  }

  private static String predicate(Random r) {
    return switch (r.nextInt(6)) {
      case 0 -> "k " + pick(r, "=", "<>", "<", ">=") + " " + (r.nextInt(12) - 2);
      case 1 -> "v " + pick(r, "<", ">") + " " + (r.nextInt(2000) - 1000);
      case 2 -> "x > " + (1e6 + r.nextInt(400) - 200);
      case 3 -> pick(r, "k", "s", "v", "x", "b") + pick(r, " IS NULL", " IS NOT NULL");
      case 4 -> "b";
      default -> "s " + pick(r, "= 'beta'", "< 'c'", "<> ''");
    };
  }

  private static String pick(Random r, String... options) {
    return options[r.nextInt(options.length)];
  }

  /** DuckDB's rows, lists as Java lists of normalised values. */
  private static List<List<Object>> readDuck(ResultSet rs) throws java.sql.SQLException {
    List<List<Object>> rows = new ArrayList<>();
    for (List<Object> row : Results.read(rs)) {
      List<Object> converted = new ArrayList<>();
      for (Object value : row) {
        converted.add(value instanceof java.sql.Array array
            ? Arrays.stream((Object[]) array.getArray()).map(Results::normalise).toList() : value);
      }
      rows.add(converted);
    }
    return rows;
  }

  /** A list value with normalised elements; anything else as it is. */
  private static Object list(Object value) {
    return value instanceof List<?> l ? l.stream().map(Results::normalise).toList() : value;
  }
}
