package dev.lake.bench;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.sql.PreparedQuery;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.TableName;
import dev.lake.sql.tpch.MapCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The same scan-filter-aggregate query over the same rows, through lake's engine on a {@code log}
 * table and through DuckDB in-process, with the same number of threads. {@link Compare} prints
 * the two side by side with their ratio.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "--add-modules=jdk.incubator.vector", "-Xmx6g"})
public class ScanFilterAggregateBenchmark {

  static final String QUERY = "SELECT robot, count(*) AS episodes, sum(steps) AS steps,"
      + " avg(duration_s) AS avg_duration, max(reward) AS best_reward"
      + " FROM bench.episodes WHERE success AND duration_s > 20 GROUP BY robot";

  private static final int BATCH_ROWS = 65_536;

  @Param("5000000")
  public long rows;

  /** Threads DuckDB may use; lake's engine runs a query on one thread today. */
  @Param("1")
  public int threads;

  private Path directory;
  private BufferAllocator allocator;
  private TableEngine engine;
  private TableHandle table;
  private PreparedQuery lakeQuery;
  private Connection duckdb;

  @Setup(Level.Trial)
  public void load() throws Exception {
    directory = Files.createTempDirectory("lake-bench");
    allocator = new RootAllocator();
    engine = logEngine();
    table = engine.create(TableLocation.of(directory.resolve("episodes")), EpisodeData.SCHEMA);
    for (long first = 0; first < rows; first += BATCH_ROWS) {
      int count = (int) Math.min(BATCH_ROWS, rows - first);
      try (VectorSchemaRoot root = VectorSchemaRoot.create(EpisodeData.SCHEMA, allocator)) {
        EpisodeData.fill(root, first, count);
        var batch = new VectorUnloader(root).getRecordBatch();
        try (ArrowReader reader =
            new RecordBatchReader(allocator, EpisodeData.SCHEMA, List.of(batch))) {
          table.append(operation(first), reader);
        }
      }
    }
    SqlEngine sql = new SqlEngine(new MapCatalog().put(new TableName("bench", "episodes"), table));
    lakeQuery = sql.prepare(QUERY);

    duckdb = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement statement = duckdb.createStatement()) {
      statement.execute("SET threads TO " + threads);
      statement.execute("CREATE SCHEMA bench");
      statement.execute("CREATE TABLE bench.episodes (episode_id BIGINT NOT NULL, robot VARCHAR"
          + " NOT NULL, success BOOLEAN NOT NULL, steps INTEGER NOT NULL, duration_s DOUBLE NOT NULL,"
          + " reward DOUBLE)");
    }
    try (DuckDBAppender appender =
        ((DuckDBConnection) duckdb).createAppender("bench", "episodes")) {
      for (long i = 0; i < rows; i++) {
        appender.beginRow();
        appender.append(i);
        appender.append(EpisodeData.robot(i));
        appender.append(EpisodeData.success(i));
        appender.append(EpisodeData.steps(i));
        appender.append(EpisodeData.durationS(i));
        Double reward = EpisodeData.reward(i);
        if (reward == null) {
          appender.appendNull();
        } else {
          appender.append(reward.doubleValue());
        }
        appender.endRow();
      }
    }
    Map<String, Long> lakeSteps = lakeStepsByRobot();
    Map<String, Long> duckSteps = duckdbStepsByRobot();
    if (!lakeSteps.equals(duckSteps)) {
      throw new IllegalStateException("lake and DuckDB disagree: " + lakeSteps + " vs " + duckSteps);
    }
  }

  @Benchmark
  public long lake() throws IOException {
    long groups = 0;
    try (ArrowReader reader = lakeQuery.execute(allocator)) {
      while (reader.loadNextBatch()) {
        groups += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return groups;
  }

  @Benchmark
  public long duckdb() throws SQLException {
    long groups = 0;
    try (Statement statement = duckdb.createStatement();
        ResultSet result = statement.executeQuery(QUERY)) {
      while (result.next()) {
        groups++;
      }
    }
    return groups;
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    duckdb.close();
    table.close();
    engine.close();
    allocator.close();
    deleteTree(directory);
  }

  /** Deletes {@code directory} and everything under it. */
  static void deleteTree(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private Map<String, Long> lakeStepsByRobot() throws IOException {
    Map<String, Long> steps = new TreeMap<>();
    try (ArrowReader reader = lakeQuery.execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          steps.put(String.valueOf(root.getVector("robot").getObject(r)),
              ((Number) root.getVector("steps").getObject(r)).longValue());
        }
      }
    }
    return steps;
  }

  private Map<String, Long> duckdbStepsByRobot() throws SQLException {
    Map<String, Long> steps = new TreeMap<>();
    try (Statement statement = duckdb.createStatement();
        ResultSet result = statement.executeQuery(QUERY)) {
      while (result.next()) {
        steps.put(result.getString("robot"), result.getLong("steps"));
      }
    }
    return steps;
  }

  static TableEngine logEngine() {
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      if (factory.name().equals("log")) {
        return factory.create(Map.of());
      }
    }
    throw new IllegalStateException("the log engine is not on the class path");
  }

  private static AppendOperation operation(long first) {
    byte[] digest = new byte[32];
    System.arraycopy(HexFormat.of().parseHex(String.format("%064x", first)), 0, digest, 0, 32);
    return AppendOperation.of("bench", "bench.episodes", UUID.randomUUID(), digest);
  }
}
