package dev.lake.bench;

import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the comparison benchmarks and prints each lake figure beside its peer's, measured in the
 * same run, with the ratio lake/peer (below 1 means lake is faster). Any JMH option may be given
 * (for example {@code -p rows=1000000 -wi 1 -i 3}).
 */
public final class Compare {

  private Compare() {}

  public static void main(String[] args) throws Exception {
    CommandLineOptions given = new CommandLineOptions(args);
    var options = new OptionsBuilder().parent(given);
    if (given.getIncludes().isEmpty()) {
      options.include(ScanFilterAggregateBenchmark.class.getSimpleName());
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    print(results);
  }

  private static void print(Collection<RunResult> results) throws RunnerException {
    Map<String, Map<String, double[]>> byParams = new TreeMap<>();
    String unit = "";
    for (RunResult result : results) {
      String label = result.getParams().getBenchmark();
      String method = label.substring(label.lastIndexOf('.') + 1);
      String benchmark = label.substring(0, label.lastIndexOf('.'));
      benchmark = benchmark.substring(benchmark.lastIndexOf('.') + 1);
      StringBuilder params = new StringBuilder(benchmark);
      for (String key : result.getParams().getParamsKeys()) {
        params.append(' ').append(key).append('=').append(result.getParams().getParam(key));
      }
      var primary = result.getPrimaryResult();
      unit = primary.getScoreUnit();
      byParams.computeIfAbsent(params.toString(), k -> new TreeMap<>())
          .put(method, new double[] {primary.getScore(), primary.getScoreError()});
    }
    System.out.println();
    System.out.printf("%-60s %14s %14s %8s%n", "comparison (" + unit + ")", "lake", "duckdb",
        "ratio");
    for (var entry : byParams.entrySet()) {
      double[] lake = entry.getValue().get("lake");
      double[] peer = entry.getValue().get("duckdb");
      if (lake == null || peer == null) {
        continue;
      }
      System.out.printf("%-60s %8.2f±%-5.2f %8.2f±%-5.2f %7.2fx%n", entry.getKey(), lake[0],
          lake[1], peer[0], peer[1], lake[0] / peer[0]);
    }
    printBySystem(byParams, unit);
  }

  /**
   * For benchmarks whose methods are named {@code <operation>_<system>} ({@link LanceBenchmark}):
   * one line per operation with every system's score and its ratio to the first system measured
   * listed for that operation ({@link #SYSTEMS} order: lance first).
   */
  private static void printBySystem(Map<String, Map<String, double[]>> byParams, String unit) {
    for (var entry : byParams.entrySet()) {
      Map<String, Map<String, double[]>> byOperation = new LinkedHashMap<>();
      for (String method : bySystem(entry.getValue().keySet())) {
        int split = method.indexOf('_');
        if (split > 0) {
          byOperation.computeIfAbsent(method.substring(0, split), k -> new LinkedHashMap<>())
              .put(method.substring(split + 1), entry.getValue().get(method));
        }
      }
      if (byOperation.isEmpty()) {
        continue;
      }
      System.out.println();
      System.out.println(entry.getKey() + " (" + unit + "; ratio = system / first system)");
      for (var op : byOperation.entrySet()) {
        StringBuilder line = new StringBuilder(String.format("%-10s", op.getKey()));
        double base = op.getValue().values().iterator().next()[0];
        for (var system : op.getValue().entrySet()) {
          double[] score = system.getValue();
          line.append(String.format("  %s %.3f±%.3f (%.2fx)", system.getKey(), score[0], score[1], score[0] / base));
        }
        System.out.println(line);
      }
    }
  }

  /** Systems in the order {@link #printBySystem} lists them; others follow. */
  private static final List<String> SYSTEMS = List.of("lance", "lanceIn", "log", "parquet");

  /** Sorts {@code op_system} method names by operation, then by {@link #SYSTEMS}. */
  private static List<String> bySystem(Collection<String> methods) {
    return methods.stream().sorted(Comparator
        .comparing((String m) -> m.indexOf('_') > 0 ? m.substring(0, m.indexOf('_')) : m)
        .thenComparingInt(m -> {
          int i = SYSTEMS.indexOf(m.indexOf('_') > 0 ? m.substring(m.indexOf('_') + 1) : "");
          return i < 0 ? SYSTEMS.size() : i;
        })).toList();
  }
}
