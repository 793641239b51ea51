package dev.lake.bench.tpch;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.log.LogEngineFactory;
import dev.lake.sql.tpch.TpchData;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Bytes on disk of the TPC-H tables in the {@code log} format under each
 * {@code log.compression} (none, fast, small) beside the same rows written by DuckDB as Parquet
 * with zstd in the same run, printed as ratios; then the load time of each setting and the time
 * of a full scan of lineitem (every column, every batch, from the page cache: the files were
 * just written), medians of {@code --runs} after {@code --warmup} scans. Not JMH: each figure is
 * one pass over the data.
 *
 * <pre>bench/log-size --sf 0.1 --runs 5</pre>
 */
public final class LogSizeBench {

  private static final List<String> SETTINGS = List.of("none", "fast", "small");

  private LogSizeBench() {}

  public static void main(String[] args) throws Exception {
    double sf = 0.1;
    int runs = 5;
    int warmups = 2;
    Path dir = null;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--sf" -> sf = Double.parseDouble(args[i + 1]);
        case "--runs" -> runs = Integer.parseInt(args[i + 1]);
        case "--warmup" -> warmups = Integer.parseInt(args[i + 1]);
        case "--dir" -> dir = Path.of(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (dir == null) {
      dir = Files.createTempDirectory("lake-log-size");
    }
    Map<String, Map<String, Long>> bytes = new LinkedHashMap<>();
    Map<String, Double> loadSeconds = new LinkedHashMap<>();
    Map<String, Double> scanMs = new LinkedHashMap<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      for (String setting : SETTINGS) {
        Map<String, Long> sizes = new LinkedHashMap<>();
        try (TableEngine engine = new LogEngineFactory().create(Map.of("log.compression", setting))) {
          long start = System.nanoTime();
          TableHandle lineitem = null;
          for (TpchTable<?> table : TpchTable.getTables()) {
            Path location = dir.resolve(setting).resolve(table.getTableName());
            TableHandle handle = engine.create(TableLocation.of(location), TpchData.schema(table));
            TpchData.load(table, sf, handle, allocator, 1_000_000);
            sizes.put(table.getTableName(), size(location.resolve("data")));
            if (table.getTableName().equals("lineitem")) {
              lineitem = handle;
            } else {
              handle.close();
            }
          }
          loadSeconds.put(setting, (System.nanoTime() - start) / 1e9);
          try (TableHandle h = lineitem) {
            scanMs.put(setting, scanMedian(h, allocator, warmups, runs));
          }
        }
        bytes.put(setting, sizes);
      }
    }
    Map<String, Long> parquet = new LinkedHashMap<>();
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:" + dir.resolve("duck.db"));
        Statement st = duck.createStatement()) {
      for (TpchTable<?> table : TpchTable.getTables()) {
        TpchData.loadDuckDb(table, sf, duck, dir);
        Path file = dir.resolve(table.getTableName() + ".parquet");
        st.execute("COPY " + table.getTableName() + " TO '" + file + "' (FORMAT parquet, COMPRESSION zstd)");
        parquet.put(table.getTableName(), Files.size(file));
      }
    }
    System.out.printf(Locale.ROOT, "%nTPC-H SF %s bytes on disk: log (none, fast, small) vs DuckDB Parquet-zstd%n", sf);
    System.out.printf(Locale.ROOT, "%-9s %13s %13s %13s %13s %7s %7s %7s%n", "table", "none", "fast", "small",
        "parquet-zstd", "none/pq", "fast/pq", "small/pq");
    long[] totals = new long[4];
    for (String table : parquet.keySet()) {
      long[] row = {bytes.get("none").get(table), bytes.get("fast").get(table), bytes.get("small").get(table),
          parquet.get(table)};
      for (int i = 0; i < 4; i++) {
        totals[i] += row[i];
      }
      print(table, row);
    }
    print("all", totals);
    System.out.printf(Locale.ROOT, "%nload (s) and full lineitem scan from the page cache (ms, median of %d), "
        + "ratio to none%n", runs);
    for (String setting : SETTINGS) {
      System.out.printf(Locale.ROOT, "%-6s load %6.1f s  scan %8.1f ms  %5.2fx%n", setting, loadSeconds.get(setting),
          scanMs.get(setting), scanMs.get(setting) / scanMs.get("none"));
    }
    deleteTree(dir);
  }

  private static void print(String table, long[] row) {
    System.out.printf(Locale.ROOT, "%-9s %,13d %,13d %,13d %,13d %6.2fx %6.2fx %6.2fx%n", table, row[0], row[1],
        row[2], row[3], (double) row[0] / row[3], (double) row[1] / row[3], (double) row[2] / row[3]);
  }

  /** Median time of a full scan of every column of the table, in ms. */
  private static double scanMedian(TableHandle handle, BufferAllocator allocator, int warmups, int runs)
      throws IOException {
    Snapshot snapshot = handle.latestSnapshot();
    List<String> columns = TpchTable.LINE_ITEM.getColumns().stream()
        .map(TpchColumn::getColumnName).toList();
    ScanRequest request = ScanRequest.of(columns);
    double[] times = new double[runs];
    long rows = 0;
    for (int r = -warmups; r < runs; r++) {
      long start = System.nanoTime();
      rows = 0;
      for (ScanUnit unit : snapshot.plan(request).units()) {
        try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
          while (reader.loadNextBatch()) {
            rows += reader.getVectorSchemaRoot().getRowCount();
          }
        }
      }
      if (r >= 0) {
        times[r] = (System.nanoTime() - start) / 1e6;
      }
    }
    if (rows == 0) {
      throw new IllegalStateException("lineitem scanned no rows");
    }
    Arrays.sort(times);
    return times[runs / 2];
  }

  private static long size(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      long total = 0;
      for (Path f : files.toList()) {
        total += Files.size(f);
      }
      return total;
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
