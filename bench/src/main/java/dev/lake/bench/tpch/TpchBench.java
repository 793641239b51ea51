package dev.lake.bench.tpch;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.TableName;
import dev.lake.sql.tpch.MapCatalog;
import dev.lake.sql.tpch.TpchData;
import dev.lake.sql.tpch.TpchQueries;
import io.trino.tpch.TpchTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.ServiceLoader;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * TPC-H in lake (over the {@code log} format) and in DuckDB on the same machine: generates the
 * data once per scale factor into {@code --dir} (reused by later runs), then runs each query
 * {@code --runs} times in each engine after {@code --warmup} runs (3) and prints the medians, the ratio
 * lake/DuckDB and their geometric mean; then the memory-bandwidth bound of Q6's columns. With
 * several thread counts ({@code --threads 1,2}) each query runs at each count in turn, both
 * engines with the same count, in the same process over the same data. The last columns are the
 * process's CPU time during lake's and DuckDB's runs (medians, from {@code getrusage}) and their
 * ratio: on a shared machine, where other work stretches wall times unevenly, CPU time shows what
 * each engine's plan costs in work, whatever share of the cores it was given.
 *
 * <pre>bench/tpch [--sf 1] [--runs 5] [--warmup 3] [--threads 1[,2...]] [--queries 1,6]
 *            [--dir /tmp/lake-tpch-sf1] [--sql "SELECT ... FROM lineitem"]... [--plans fresh|cached]</pre>
 *
 * {@code --plans fresh} (the default) plans every run in both engines: lake with its plan cache
 * off, DuckDB through {@code executeQuery}. {@code --plans cached} measures a statement a server
 * sees again: lake keeps its plan (the plan cache checks the tables' versions each run), DuckDB
 * executes one {@code PreparedStatement} prepared before the warm-ups.
 *
 * {@code --sql} (repeatable) runs the given statements instead of the numbered queries, for
 * timing the parts of a query; tables are named as in TPC-H, unqualified.
 */
public final class TpchBench {
  private TpchBench() {}

  public static void main(String[] args) throws Exception {
    double sf = 1;
    int runs = 5;
    // lake is a long-running server: its JIT keeps compiling the planner and operators for a few
    // runs of each query, on the same cores (DuckDB's code is compiled ahead of time).
    int warmups = 3;
    List<Integer> threadCounts = new ArrayList<>();
    List<Integer> queries = new ArrayList<>();
    List<String> statements = new ArrayList<>();
    Path dir = null;
    boolean explain = false;
    boolean cachedPlans = false;
    String compression = "none";
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--sf" -> sf = Double.parseDouble(args[i + 1]);
        case "--runs" -> runs = Integer.parseInt(args[i + 1]);
        case "--warmup" -> warmups = Integer.parseInt(args[i + 1]);
        case "--threads" -> Arrays.stream(args[i + 1].split(",")).map(String::trim).map(Integer::parseInt)
            .forEach(threadCounts::add);
        case "--queries" -> Arrays.stream(args[i + 1].split(",")).map(String::trim).map(Integer::parseInt).forEach(queries::add);
        case "--dir" -> dir = Path.of(args[i + 1]);
        case "--explain" -> explain = Boolean.parseBoolean(args[i + 1]);
        case "--sql" -> statements.add(args[i + 1]);
        case "--compression" -> compression = args[i + 1];
        case "--plans" -> cachedPlans = switch (args[i + 1]) {
          case "fresh" -> false;
          case "cached" -> true;
          default -> throw new IllegalArgumentException("--plans takes fresh or cached, not " + args[i + 1]);
        };
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (threadCounts.isEmpty()) {
      threadCounts.add(1);
    }
    if (queries.isEmpty() && statements.isEmpty()) {
      for (int q = 1; q <= 22; q++) {
        queries.add(q);
      }
    }
    if (dir == null) {
      dir = Path.of(System.getProperty("java.io.tmpdir"), "lake-tpch-sf" + sf
          + ("none".equals(compression) ? "" : "-" + compression));
    }
    Files.createDirectories(dir);
    boolean loaded = Files.exists(dir.resolve("loaded"));
    try (BufferAllocator allocator = new RootAllocator();
        TableEngine log = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
            .filter(f -> f.name().equals("log")).findFirst().orElseThrow()
            .create(Map.of("log.compression", compression));
        Connection duck = DriverManager.getConnection("jdbc:duckdb:" + dir.resolve("duck.db"), duckProperties(loaded))) {
      MapCatalog catalog = new MapCatalog();
      List<TableHandle> handles = new ArrayList<>();
      long start = System.nanoTime();
      for (TpchTable<?> table : TpchTable.getTables()) {
        TableLocation location = TableLocation.of(dir.resolve("log").resolve(table.getTableName()));
        TableHandle handle;
        if (loaded) {
          handle = log.open(location).orElseThrow(() -> new IllegalStateException("missing " + location));
        } else {
          handle = log.create(location, TpchData.schema(table));
          long rows = TpchData.load(table, sf, handle, allocator, 1_000_000);
          TpchData.loadDuckDb(table, sf, duck, dir);
          System.out.printf(Locale.ROOT, "loaded %-9s %,12d rows%n", table.getTableName(), rows);
        }
        handles.add(handle);
        catalog.put(new TableName("tpch", table.getTableName()), handle);
      }
      if (!loaded) {
        Files.writeString(dir.resolve("loaded"), "sf=" + sf + "\n");
        System.out.printf(Locale.ROOT, "generated and loaded SF %s in %.1f s%n", sf, (System.nanoTime() - start) / 1e9);
      }
      System.out.printf(Locale.ROOT, "%nTPC-H SF %s, %d runs after %d warm-ups, DuckDB and lake with threads=%s each, %s%n",
          sf, runs, warmups, threadCounts, cachedPlans
              ? "plans kept (lake's plan cache; DuckDB executes one PreparedStatement)"
              : "every run planned afresh (lake's plan cache off; DuckDB executeQuery)");
      System.out.printf(Locale.ROOT, "%-5s %7s %12s %12s %8s %10s %12s %12s %8s%n", "query", "threads", "lake ms",
          "duckdb ms", "ratio", "rows", "lake cpu ms", "duck cpu ms", "cpu ratio");
      double lakeQ6 = Double.NaN;
      double[] logSums = new double[threadCounts.size()];
      double[] cpuLogSums = new double[threadCounts.size()];
      int counted = 0;
      Map<String, String> texts = new LinkedHashMap<>();
      for (int q : queries) {
        texts.put("Q" + q, TpchQueries.query(q, sf));
      }
      for (int i = 0; i < statements.size(); i++) {
        texts.put("S" + (i + 1), statements.get(i));
      }
      for (Map.Entry<String, String> entry : texts.entrySet()) {
        counted++;
        String text = entry.getValue();
        for (int t = 0; t < threadCounts.size(); t++) {
          int threads = threadCounts.get(t);
          try (Statement s = duck.createStatement()) {
            s.execute("SET threads TO " + threads);
          }
          SqlEngine sql = new SqlEngine(catalog, Long.MAX_VALUE, threads, null,
              cachedPlans ? SqlEngine.DEFAULT_PLAN_CACHE_ENTRIES : 0);
          DuckQuery duckQuery = cachedPlans ? new PreparedDuckQuery(duck.prepareStatement(text)) : () -> runDuck(duck, text);
          if (explain) {
            explain(sql, text, cachedPlans, allocator);
          }
          double[] lake = new double[runs];
          double[] peer = new double[runs];
          long rows = 0;
          for (int w = 0; w < warmups; w++) {
            runLake(sql, text, allocator);
            duckQuery.run();
          }
          double[] cpu = new double[runs];
          double[] peerCpu = new double[runs];
          for (int r = 0; r < runs; r++) {
            long c0 = ProcessCpu.nanos();
            long t0 = System.nanoTime();
            rows = runLake(sql, text, allocator);
            lake[r] = (System.nanoTime() - t0) / 1e6;
            cpu[r] = (ProcessCpu.nanos() - c0) / 1e6;
            long c1 = ProcessCpu.nanos();
            long t1 = System.nanoTime();
            duckQuery.run();
            peer[r] = (System.nanoTime() - t1) / 1e6;
            peerCpu[r] = (ProcessCpu.nanos() - c1) / 1e6;
          }
          duckQuery.close();
          double l = median(lake);
          double p = median(peer);
          if (entry.getKey().equals("Q6") && threads == 1) {
            lakeQ6 = l;
          }
          logSums[t] += Math.log(l / p);
          cpuLogSums[t] += Math.log(median(cpu) / median(peerCpu));
          System.out.printf(Locale.ROOT, "%-5s %7d %12.1f %12.1f %7.2fx %10d %12.1f %12.1f %7.2fx%n", entry.getKey(),
              threads, l, p, l / p, rows, median(cpu), median(peerCpu), median(cpu) / median(peerCpu));
        }
      }
      for (int t = 0; t < threadCounts.size(); t++) {
        System.out.printf(Locale.ROOT, "%-5s %7d %12s %12s %7.2fx %10s %12s %12s %7.2fx%n", "geo", threadCounts.get(t),
            "", "", Math.exp(logSums[t] / counted), "", "", "", Math.exp(cpuLogSums[t] / counted));
      }
      bandwidthBound(sf, dir.resolve("log").resolve("lineitem"), lakeQ6);
      if (!Double.isNaN(lakeQ6)) {
        q6BesideBandwidth(new SqlEngine(catalog, Long.MAX_VALUE, 1, null, SqlEngine.DEFAULT_PLAN_CACHE_ENTRIES),
            TpchQueries.query(6, sf), allocator, q6Bytes(sf));
      }
      for (TableHandle h : handles) {
        h.close();
      }
    }
  }

  // With plans kept, the plan the timed runs execute: the text's literals of comparisons bound to
  // the kept plan of its auto-parameterized form (EXPLAIN text plans the literal text instead).
  private static void explain(SqlEngine sql, String text, boolean cachedPlans, BufferAllocator allocator)
      throws Exception {
    if (cachedPlans) {
      for (String line : sql.prepare(text).explain()) {
        System.out.println("  " + line);
      }
      return;
    }
    try (ArrowReader reader = sql.prepare("EXPLAIN " + text).execute(allocator)) {
      while (reader.loadNextBatch()) {
        var v = reader.getVectorSchemaRoot().getVector(0);
        for (int r = 0; r < v.getValueCount(); r++) {
          System.out.println("  " + v.getObject(r));
        }
      }
    }
  }

  private static long runLake(SqlEngine sql, String text, BufferAllocator allocator) throws Exception {
    long rows = 0;
    try (ArrowReader reader = sql.prepare(text).execute(allocator)) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return rows;
  }

  private static long runDuck(Connection duck, String text) throws Exception {
    long rows = 0;
    try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery(text)) {
      while (rs.next()) {
        rows++;
      }
    }
    return rows;
  }

  /** One query in DuckDB, run to its last row. */
  private interface DuckQuery extends AutoCloseable {
    long run() throws Exception;

    @Override
    default void close() throws Exception {}
  }

  /** A statement DuckDB planned once, executed each run. */
  private record PreparedDuckQuery(java.sql.PreparedStatement statement) implements DuckQuery {
    @Override
    public long run() throws Exception {
      long rows = 0;
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          rows++;
        }
      }
      return rows;
    }

    @Override
    public void close() throws Exception {
      statement.close();
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /**
   * Lake's single-thread Q6 and its bound measured at the same moments, in steady state: a fresh
   * engine with its plan kept and a collected heap; each of {@value #BESIDE_RUNS} runs (after
   * {@value #BESIDE_WARMUPS} warm-up pairs) is followed by one pass of the bandwidth loop over
   * {@value #PASS_MIB} MiB off-heap, and that run's bound is Q6's bytes at that pass's rate. This
   * VM's read bandwidth drifts by a fifth or more over seconds as the host's other work comes and
   * goes, for the bandwidth loop as for the query, so a bound taken at another moment compares the
   * query with a machine it did not run on. Prints the medians, the median and quartiles of the
   * per-run ratios, and best against best.
   */
  private static void q6BesideBandwidth(SqlEngine sql, String text, BufferAllocator allocator, double q6Bytes)
      throws Exception {
    try (ReadBandwidth.Passes passes = new ReadBandwidth.Passes(PASS_MIB << 20)) {
      System.gc();
      for (int w = 0; w < BESIDE_WARMUPS; w++) {
        runLake(sql, text, allocator);
        passes.pass();
      }
      double[] lake = new double[BESIDE_RUNS];
      double[] bound = new double[BESIDE_RUNS];
      double[] ratio = new double[BESIDE_RUNS];
      for (int r = 0; r < BESIDE_RUNS; r++) {
        long t0 = System.nanoTime();
        runLake(sql, text, allocator);
        lake[r] = (System.nanoTime() - t0) / 1e6;
        bound[r] = q6Bytes / passes.pass() * 1e3;
        ratio[r] = lake[r] / bound[r];
      }
      double[] sortedRatio = ratio.clone();
      Arrays.sort(sortedRatio);
      double lakeBest = Arrays.stream(lake).min().orElseThrow();
      double boundBest = Arrays.stream(bound).min().orElseThrow();
      System.out.printf(Locale.ROOT, "Q6 beside its bound (%d runs, each followed by one bandwidth pass over %d MiB "
          + "off-heap): lake %.2f ms, bound %.2f ms (%.1f GB/s), medians -> %.2fx; per-run ratio "
          + "median %.2fx (quartiles %.2fx-%.2fx); best against best %.2f / %.2f ms -> %.2fx%n", BESIDE_RUNS, PASS_MIB,
          median(lake), median(bound), q6Bytes / median(bound) / 1e6, median(lake) / median(bound), median(ratio),
          sortedRatio[BESIDE_RUNS / 4], sortedRatio[BESIDE_RUNS * 3 / 4], lakeBest, boundBest, lakeBest / boundBest);
    }
  }

  /** Bytes of Q6's four columns: shipdate 4 bytes, quantity, extendedprice, discount 8 bytes each. */
  private static double q6Bytes(double sf) {
    return 6_001_215 * sf * (4 + 8 + 8 + 8);
  }

  private static final long PASS_MIB = 256;
  /** Below this share of the off-heap rate, lineitem's mapped files are reported as slowly cached. */
  private static final double FRAGMENTED_CACHE = 0.95;
  private static final int BESIDE_WARMUPS = 200;
  private static final int BESIDE_RUNS = 101;

  /**
   * Prints this machine's best single-thread read bandwidth ({@link ReadBandwidth}: off-heap memory
   * and lineitem's mapped files, with a vector loop; a plain loop beside them for comparison), the
   * time Q6's columns need at that rate, and the table's Q6 against it. Each figure is the best of
   * several passes taken now, not while Q6 ran; {@link #q6BesideBandwidth} compares the two alike.
   */
  private static void bandwidthBound(double sf, Path lineitem, double lakeQ6Millis) throws Exception {
    double offHeap = ReadBandwidth.offHeap();
    OptionalDouble files = ReadBandwidth.mappedFiles(lineitem);
    double plain = ReadBandwidth.plainLoop();
    double rate = Math.max(offHeap, files.orElse(0));
    double q6Bytes = q6Bytes(sf);
    double bound = q6Bytes / rate * 1e3;
    System.out.printf(Locale.ROOT, "%nsingle-thread read bandwidth, vector loop, best of 7: off-heap %.1f GB/s, "
        + "lineitem's mapped files %s; a plain long[] loop %.1f GB/s (checksum %d)%n", offHeap / 1e9,
        files.isPresent() ? String.format(Locale.ROOT, "%.1f GB/s", files.getAsDouble() / 1e9) : "too small to measure",
        plain / 1e9, ReadBandwidth.checksum() % 10);
    if (files.isPresent() && files.getAsDouble() < offHeap * FRAGMENTED_CACHE) {
      // Seen once: lineitem cached hours earlier, since left in 4 KiB pages (Q6 1.41-1.50x its
      // bound); read back in large folios, the files streamed as fast as off-heap memory (1.2-1.3x).
      System.out.printf(Locale.ROOT, "note: lineitem's mapped files stream at %.0f%% of off-heap memory; the page cache "
          + "likely holds them in small pages, which slows every scan of them. Dropping them from the cache (for each "
          + "file under %s: dd if=FILE iflag=nocache count=0) lets the engine read them back in huge pages; see "
          + "docs/benchmarks.md%n", files.getAsDouble() / offHeap * 100, lineitem);
    }
    System.out.printf(Locale.ROOT, "Q6 columns %.0f MB -> bound %.1f ms at the best rate, %.1f GB/s%s%n", q6Bytes / 1e6,
        bound, rate / 1e9, Double.isNaN(lakeQ6Millis) ? ""
            : String.format(Locale.ROOT, "; lake's Q6 on one thread in the table above %.1f ms = %.2fx", lakeQ6Millis,
                lakeQ6Millis / bound));
  }

  /** Once loaded, the DuckDB file is opened read-only, so several runs can share it at once. */
  private static Properties duckProperties(boolean loaded) {
    Properties properties = new Properties();
    if (loaded) {
      properties.setProperty("duckdb.read_only", "true");
    }
    return properties;
  }
}
