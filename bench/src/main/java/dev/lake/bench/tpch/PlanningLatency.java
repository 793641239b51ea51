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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Planning latency with the plan cache off: {@code SqlEngine.prepare} of a statement, timed
 * alone (parse, validate, optimise, physical plan; nothing executes), over the TPC-H tables a
 * {@code bench/tpch} run generated into {@code --dir}. Prints p50 and p90 per statement.
 *
 * <pre>bench/planning [--dir /tmp/lake-tpch-sf0.1] [--sf 0.1] [--runs 2000] [--warmup 2000]
 *     [--only &lt;part of a statement's name&gt;]</pre>
 */
public final class PlanningLatency {
  private PlanningLatency() {}

  public static void main(String[] args) throws Exception {
    double sf = 0.1;
    int runs = 2000;
    int warmups = 2000;
    Path dir = null;
    String only = null;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--sf" -> sf = Double.parseDouble(args[i + 1]);
        case "--runs" -> runs = Integer.parseInt(args[i + 1]);
        case "--warmup" -> warmups = Integer.parseInt(args[i + 1]);
        case "--dir" -> dir = Path.of(args[i + 1]);
        case "--only" -> only = args[i + 1];
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
    if (only != null) {
      String wanted = only.toLowerCase(Locale.ROOT);
      statements.keySet().removeIf(name -> !name.toLowerCase(Locale.ROOT).contains(wanted));
      if (statements.isEmpty()) {
        throw new IllegalArgumentException("no statement's name contains " + only);
      }
    }
    try (TableEngine log = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow().create(Map.of())) {
      MapCatalog catalog = new MapCatalog();
      for (TpchTable<?> table : TpchTable.getTables()) {
        TableLocation location = TableLocation.of(dir.resolve("log").resolve(table.getTableName()));
        catalog.put(new TableName("tpch", table.getTableName()),
            log.open(location).orElseThrow(() -> new IllegalStateException("missing " + location)));
      }
      SqlEngine engine = new SqlEngine(catalog, Long.MAX_VALUE, 1, null, 0);
      System.out.printf(Locale.ROOT, "%-38s %10s %10s %10s%n", "statement (plan cache off)", "p50 ms", "p90 ms",
          "p50 CPU ms");
      // The planning thread's CPU time as well: on a loaded machine it varies less than wall time.
      java.lang.management.ThreadMXBean threadBean = java.lang.management.ManagementFactory.getThreadMXBean();
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
        Arrays.sort(times[s]);
        Arrays.sort(cpu[s]);
        System.out.printf(Locale.ROOT, "%-38s %10.3f %10.3f %10.3f%n", name,
            times[s][runs / 2] / 1e6, times[s][runs * 9 / 10] / 1e6, cpu[s][runs / 2] / 1e6);
        s++;
      }
    }
  }
}
