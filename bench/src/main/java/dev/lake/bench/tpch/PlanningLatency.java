package dev.lake.bench.tpch;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableLocation;
import dev.lake.sql.PreparedQuery;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.TableName;
import dev.lake.sql.tpch.MapCatalog;
import dev.lake.sql.tpch.TpchQueries;
import io.trino.tpch.TpchTable;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Planning latency with the plan cache off: {@code SqlEngine.prepare} of a statement, timed
 * alone (parse, validate, optimise, physical plan; nothing executes), over the TPC-H tables a
 * {@code bench/tpch} run generated into {@code --dir}. Prints p50, p90 and p99 per statement. Last,
 * unless {@code --only} leaves it out, a join of 64 empty tables in the shape of SQLite's select5
 * (bare column names, a random spanning tree of equalities in WHERE), {@code --join-runs} times.
 *
 * <pre>bench/planning [--dir /tmp/lake-tpch-sf0.1] [--sf 0.1] [--runs 2000] [--warmup 2000]
 *     [--join-runs 100] [--only &lt;part of a statement's name&gt;]</pre>
 */
public final class PlanningLatency {
  private PlanningLatency() {}

  public static void main(String[] args) throws Exception {
    double sf = 0.1;
    int runs = 2000;
    int warmups = 2000;
    Path dir = null;
    String only = null;
    int joinRuns = 100;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--sf" -> sf = Double.parseDouble(args[i + 1]);
        case "--runs" -> runs = Integer.parseInt(args[i + 1]);
        case "--warmup" -> warmups = Integer.parseInt(args[i + 1]);
        case "--dir" -> dir = Path.of(args[i + 1]);
        case "--only" -> only = args[i + 1];
        case "--join-runs" -> joinRuns = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (dir == null) {
      dir = Path.of(System.getProperty("java.io.tmpdir"), "lake-tpch-sf" + sf);
    }
    if (!Files.exists(dir.resolve("loaded"))) {
      throw new IllegalStateException("no TPC-H data in " + dir + ": run bench/tpch --sf " + sf + " first");
    }
    Map<String, String> statements = new LinkedHashMap<>();
    statements.put("single-table aggregate (Q1 shape)", TpchQueries.query(1, sf));
    statements.put("single-table filter", "SELECT l_orderkey, l_extendedprice FROM lineitem"
        + " WHERE l_shipdate >= DATE '1994-01-01' AND l_quantity < 24 ORDER BY l_orderkey LIMIT 10");
    statements.put("SELECT 1", "SELECT 1");
    statements.put("point lookup (new literal each time)", "SELECT o_orderkey, o_custkey, o_totalprice"
        + " FROM orders WHERE o_orderkey = {id}");
    statements.put("TPC-H Q6", TpchQueries.query(6, sf));
    statements.put("TPC-H Q2", TpchQueries.query(2, sf));
    String joinName = "64-table join (select5 shape)";
    boolean join = only == null || joinName.contains(only.toLowerCase(Locale.ROOT));
    if (only != null) {
      String wanted = only.toLowerCase(Locale.ROOT);
      statements.keySet().removeIf(name -> !name.toLowerCase(Locale.ROOT).contains(wanted));
      if (statements.isEmpty() && !join) {
        throw new IllegalArgumentException("no statement's name contains " + only);
      }
    }
    Path joinTables = Files.createTempDirectory("lake-planning-join");
    try (TableEngine log = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow().create(Map.of())) {
      MapCatalog catalog = new MapCatalog();
      for (TpchTable<?> table : TpchTable.getTables()) {
        TableLocation location = TableLocation.of(dir.resolve("log").resolve(table.getTableName()));
        catalog.put(new TableName("tpch", table.getTableName()),
            log.open(location).orElseThrow(() -> new IllegalStateException("missing " + location)));
      }
      String joinSql = manyWayJoin(log, catalog, joinTables, 64);
      SqlEngine engine = new SqlEngine(catalog, Long.MAX_VALUE, 1, null, 0);
      System.out.printf(Locale.ROOT, "%-38s %10s %10s %10s %10s%n", "statement (plan cache off)", "p50 ms", "p90 ms",
          "p99 ms", "p50 CPU ms");
      // The planning thread's CPU time as well: on a loaded machine it varies less than wall time.
      ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();
      // Round robin over the statements, so a change in the machine's load reaches all alike.
      List<String> texts = List.copyOf(statements.values());
      long[][] times = new long[texts.size()][runs];
      long[][] cpu = new long[texts.size()][runs];
      for (int i = 0; i < warmups + runs; i++) {
        for (int s = 0; s < texts.size(); s++) {
          String sql = texts.get(s).replace("{id}", Integer.toString(i + 1));
          long cpuStart = threadBean.getCurrentThreadCpuTime();
          long start = System.nanoTime();
          PreparedQuery q = engine.prepare(sql);
          long elapsed = System.nanoTime() - start;
          long cpuElapsed = threadBean.getCurrentThreadCpuTime() - cpuStart;
          if (q.schema().getFields().isEmpty()) {
            throw new IllegalStateException("no columns");
          }
          if (i >= warmups) {
            times[s][i - warmups] = elapsed;
            cpu[s][i - warmups] = cpuElapsed;
          }
        }
      }
      int s = 0;
      for (String name : statements.keySet()) {
        print(name, times[s], cpu[s]);
        s++;
      }
      if (join) {
        long[] joinTimes = new long[joinRuns];
        long[] joinCpu = new long[joinRuns];
        for (int i = 0; i < warmups / 20 + joinRuns; i++) {
          long cpuStart = threadBean.getCurrentThreadCpuTime();
          long start = System.nanoTime();
          engine.prepare(joinSql);
          if (i >= warmups / 20) {
            joinTimes[i - warmups / 20] = System.nanoTime() - start;
            joinCpu[i - warmups / 20] = threadBean.getCurrentThreadCpuTime() - cpuStart;
          }
        }
        print(joinName, joinTimes, joinCpu);
      }
    } finally {
      try (var paths = Files.walk(joinTables)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void print(String name, long[] times, long[] cpu) {
    Arrays.sort(times);
    Arrays.sort(cpu);
    int n = times.length;
    System.out.printf(Locale.ROOT, "%-38s %10.3f %10.3f %10.3f %10.3f%n", name, times[n / 2] / 1e6,
        times[n * 9 / 10] / 1e6, times[Math.min(n - 1, n * 99 / 100)] / 1e6, cpu[n / 2] / 1e6);
  }

  /**
   * {@code n} empty tables {@code j.t1..tn (a_i, b_i, x_i)} and a query joining all of them along
   * a random spanning tree of equalities {@code a_i = b_j} (fixed seed), with bare column names,
   * the tables and conditions in random order and one {@code a_k = 10}, as SQLite's select5.
   */
  private static String manyWayJoin(TableEngine log, MapCatalog catalog, Path dir, int n) {
    Random random = new Random(7);
    List<Integer> tables = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      Schema schema = new Schema(List.of(
          Field.notNullable("a" + i, new ArrowType.Int(32, true)),
          Field.nullable("b" + i, new ArrowType.Int(32, true)),
          Field.nullable("x" + i, ArrowType.Utf8.INSTANCE)));
      catalog.put(new TableName("j", "t" + i), log.create(TableLocation.of(dir.resolve("t" + i)), schema));
      tables.add(i);
    }
    Collections.shuffle(tables, random);
    List<String> conditions = new ArrayList<>();
    for (int k = 1; k < n; k++) {
      int i = tables.get(k);
      int j = tables.get(random.nextInt(k));
      conditions.add(random.nextBoolean() ? "a" + i + " = b" + j : "b" + i + " = a" + j);
    }
    conditions.add("a" + tables.get(random.nextInt(n)) + " = 10");
    Collections.shuffle(conditions, random);
    Collections.shuffle(tables, random);
    return "SELECT " + String.join(", ", tables.stream().map(i -> "x" + i).toList())
        + " FROM " + String.join(", ", tables.stream().map(i -> "j.t" + i).toList())
        + " WHERE " + String.join(" AND ", conditions);
  }
}
