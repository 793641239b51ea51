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
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
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
 * Randomly generated queries (predicates with NULLs and three-valued logic, projections with
 * arithmetic, group-bys with every aggregate, joins, IN and EXISTS subqueries; and, by {@link
 * AnalystShapeGenerator}, grouping sets, set operations, FULL joins and IN lists) over generated
 * data with NULLs, each answered by lake over the {@code log} engine and by DuckDB and compared.
 * The seed is fixed; {@code -Dlake.fuzz.iterations=N -Dlake.fuzz.seed=S} runs a longer or other
 * sequence.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlRandomDifferentialTest {
  private static final int ROWS = 3000;
  private static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "Beta", "al%ha"};

  @TempDir static Path dir;
  private BufferAllocator allocator;
  private TableEngine log;
  private final List<TableHandle> handles = new ArrayList<>();
  private Connection duck;
  private SqlEngine sql;

  private static Schema schema() {
    return new Schema(List.of(
        Field.nullable("k", new ArrowType.Int(32, true)),
        Field.nullable("s", ArrowType.Utf8.INSTANCE),
        Field.nullable("v", new ArrowType.Int(64, true)),
        Field.nullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        Field.nullable("d", new ArrowType.Date(DateUnit.DAY))));
  }

  @BeforeAll
  void load() throws Exception {
    allocator = new RootAllocator();
    log = Differential.logEngine(500);
    duck = DriverManager.getConnection("jdbc:duckdb:");
    MapCatalog catalog = new MapCatalog();
    Random random = new Random(42);
    for (String name : List.of("t", "u")) {
      int rows = name.equals("t") ? ROWS : ROWS / 10;
      try (Statement s = duck.createStatement()) {
        s.execute("CREATE TABLE " + name + " (k INTEGER, s VARCHAR, v BIGINT, x DOUBLE, d DATE)");
      }
      TableHandle handle = log.create(TableLocation.of(dir.resolve(name)), schema());
      handles.add(handle);
      catalog.put(new TableName("fuzz", name), handle);
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
          PreparedStatement insert = duck.prepareStatement("INSERT INTO " + name + " VALUES (?, ?, ?, ?, ?)")) {
        root.allocateNew();
        for (int i = 0; i < rows; i++) {
          Integer k = random.nextInt(8) == 0 ? null : random.nextInt(20) - 5;
          String s = random.nextInt(8) == 0 ? null : WORDS[random.nextInt(WORDS.length)];
          Long v = random.nextInt(8) == 0 ? null : (long) random.nextInt(2000) - 1000;
          Double x = random.nextInt(8) == 0 ? null : Math.round(random.nextGaussian() * 1000) / 8.0;
          LocalDate d = random.nextInt(8) == 0 ? null : LocalDate.of(2024, 1, 1).plusDays(random.nextInt(400));
          Differential.set(root.getVector("k"), i, k);
          Differential.set(root.getVector("s"), i, s);
          Differential.set(root.getVector("v"), i, v);
          Differential.set(root.getVector("x"), i, x);
          Differential.set(root.getVector("d"), i, d);
          insert.setObject(1, k);
          insert.setObject(2, s);
          insert.setObject(3, v);
          insert.setObject(4, x);
          insert.setObject(5, d == null ? null : java.sql.Date.valueOf(d));
          insert.addBatch();
        }
        insert.executeBatch();
        root.setRowCount(rows);
        Differential.appendInThirds(handle, root, "fuzz", name, rows * 3L, allocator);
      }
    }
    // More workers than this machine's cores, so morsels of parallel joins and aggregates interleave.
    sql = new SqlEngine(catalog, Long.MAX_VALUE, 3);
  }

  @AfterAll
  void close() throws Exception {
    duck.close();
    handles.forEach(TableHandle::close);
    log.close();
    allocator.close();
  }

  @Test
  void randomQueriesAnswerLikeDuckDb() throws Exception {
    compare(20261129L, 120, random -> new QueryGenerator(random).query());
  }

  /** Grouping sets, INTERSECT/EXCEPT [ALL], FULL joins and IN lists of expressions. */
  @Test
  void randomAnalystShapesAnswerLikeDuckDb() throws Exception {
    compare(20261202L, 80, random -> new AnalystShapeGenerator(random).query());
  }

  private void compare(long defaultSeed, int defaultIterations,
      java.util.function.Function<Random, String> generator) throws Exception {
    Differential.assertAnswersAgree(duck, sql, allocator, defaultSeed, defaultIterations, random -> {
      String query = generator.apply(random);
      return new Differential.Query(query, query, query.contains("ORDER BY"));
    }, Results::read, rows -> rows);
  }

  /** One random query over t (and u) in the dialect both engines share. */
  static final class QueryGenerator {
    private final Random r;
    private String prefix = "";

    QueryGenerator(Random r) {
      this.r = r;
    }

    String query() {
      return switch (r.nextInt(5)) {
        case 0 -> "SELECT " + scalar() + ", " + scalar() + " FROM t WHERE " + predicate(3);
        case 1, 2 -> {
          String key = pick("k", "s", "d", "k % 3", "s IS NULL");
          yield "SELECT " + key + ", " + aggregate() + ", " + aggregate() + " FROM t WHERE " + predicate(2)
              + " GROUP BY " + key + (r.nextBoolean() ? " HAVING count(*) > " + r.nextInt(5) : "");
        }
        case 3 -> {
          prefix = "t.";
          String where = predicate(2);
          prefix = "";
          yield "SELECT count(*), sum(t.v), min(u.s) FROM t JOIN u ON t.k = u.k AND t.s = u.s WHERE " + where;
        }
        default -> "SELECT k, s, v FROM t WHERE " + (r.nextBoolean() ? "NOT " : "")
            + (r.nextBoolean() ? "EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.v > t.v)"
                : "k IN (SELECT k FROM u WHERE " + predicate(1) + ")")
            + " AND " + predicate(1) + " ORDER BY v NULLS FIRST, k NULLS FIRST, s NULLS FIRST LIMIT 50";
      };
    }

    private String pick(String... options) {
      return options[r.nextInt(options.length)];
    }

    private String scalar() {
      return pick("k", "s", "v", "x", "d", "v + k", "v * 2 - k", "x * 0.5 + v", "-v",
          "CASE WHEN k > 3 THEN s ELSE 'none' END", "COALESCE(v, k, 0)", "d + INTERVAL '3' DAY > DATE '2024-06-01'",
          "substring(s from 2 for 3)", "upper(s)");
    }

    private String aggregate() {
      return pick("count(*)", "count(v)", "sum(v)", "min(x)", "max(s)", "avg(v)", "sum(x)",
          "count(DISTINCT s)", "min(d)", "max(v + k)");
    }

    String predicate(int depth) {
      if (depth == 0 || r.nextInt(3) == 0) {
        String p = prefix;
        return "(" + switch (r.nextInt(9)) {
          case 0 -> p + "k " + pick("=", "<>", "<", ">=") + " " + (r.nextInt(20) - 5);
          case 1 -> p + "v " + pick("<", ">", "<=") + " " + (r.nextInt(2000) - 1000);
          case 2 -> p + "x " + pick("<", ">") + " " + (r.nextInt(400) - 200) + ".5";
          case 3 -> p + pick("k", "s", "v", "x", "d") + pick(" IS NULL", " IS NOT NULL");
          case 4 -> p + "s " + pick("LIKE 'al%'", "NOT LIKE '%a'", "= 'beta'", "IN ('alpha', 'Beta')", "< 'c'");
          case 5 -> p + "d " + pick("<", ">=") + " DATE '2024-0" + (1 + r.nextInt(9)) + "-15'";
          case 6 -> p + "k BETWEEN " + r.nextInt(5) + " AND " + (5 + r.nextInt(10));
          case 7 -> p + "k IN (1, 2, 3" + (r.nextBoolean() ? ", NULL" : "") + ")";
          default -> p + "v + " + p + "k > " + p + "x";
        } + ")";
      }
      return switch (r.nextInt(3)) {
        case 0 -> "(" + predicate(depth - 1) + " AND " + predicate(depth - 1) + ")";
        case 1 -> "(" + predicate(depth - 1) + " OR " + predicate(depth - 1) + ")";
        default -> "(NOT " + predicate(depth - 1) + ")";
      };
    }
  }
}
