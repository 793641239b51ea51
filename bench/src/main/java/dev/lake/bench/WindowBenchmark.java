package dev.lake.bench;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
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
 * Window functions over the same events through lake (a {@code log} table) and DuckDB
 * (in-process), with the same threads: row_number and rank over 1,000 partitions, lag, a
 * sliding ROWS sum and a 1-day RANGE sum on a timestamp. Each query sums the window's values, so
 * one row crosses the client boundary; the set-up checks that both engines give the same sum.
 * {@link Compare} prints the two side by side with their ratio.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(java.util.concurrent.TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
    "--add-modules=jdk.incubator.vector", "-Xmx6g"})
public class WindowBenchmark {

  /** The windowed expression of each query, by name. */
  static final Map<String, String> WINDOWS = Map.of(
      "rowNumber", "row_number() OVER (PARTITION BY part ORDER BY ts)",
      "rank", "rank() OVER (PARTITION BY part ORDER BY v)",
      "lag", "lag(v) OVER (PARTITION BY part ORDER BY ts)",
      "rowsSum", "sum(v) OVER (PARTITION BY part ORDER BY ts ROWS BETWEEN 99 PRECEDING AND CURRENT ROW)",
      "rangeDay", "sum(v) OVER (PARTITION BY part ORDER BY ts"
          + " RANGE BETWEEN INTERVAL '1' DAY PRECEDING AND CURRENT ROW)");

  private static final Schema SCHEMA = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.notNullable("part", new ArrowType.Int(32, true)),
      Field.notNullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
      Field.notNullable("v", new ArrowType.Int(64, true))));
  private static final int BATCH_ROWS = 65_536;
  private static final long EPOCH_MS = 1_704_067_200_000L;

  @Param("10000000")
  public long rows;

  @Param({"rowNumber", "rank", "lag", "rowsSum", "rangeDay"})
  public String window;

  /** Threads of both engines. */
  @Param("2")
  public int threads;

  private Path directory;
  private BufferAllocator allocator;
  private TableEngine engine;
  private TableHandle table;
  private PreparedQuery lakeQuery;
  private Connection duckdb;
  private String query;

  static long part(long i) {
    return (i * 2_654_435_761L) % 1000;
  }

  static long v(long i) {
    return (i * 7919) % 1000;
  }

  /** Events 3 s apart: about 29 per partition and day. */
  static long tsMillis(long i) {
    return EPOCH_MS + i * 3000;
  }

  @Setup(Level.Trial)
  public void load() throws Exception {
    query = "SELECT sum(w) AS total FROM (SELECT " + WINDOWS.get(window) + " AS w FROM bench.events) AS t";
    directory = Files.createTempDirectory("lake-bench");
    allocator = new RootAllocator();
    engine = ScanFilterAggregateBenchmark.logEngine();
    table = engine.create(TableLocation.of(directory.resolve("events")), SCHEMA);
    for (long first = 0; first < rows; first += BATCH_ROWS) {
      int count = (int) Math.min(BATCH_ROWS, rows - first);
      try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
        root.getFieldVectors().forEach(v -> v.setInitialCapacity(count));
        root.allocateNew();
        for (int r = 0; r < count; r++) {
          long i = first + r;
          ((BigIntVector) root.getVector("id")).set(r, i);
          ((IntVector) root.getVector("part")).set(r, (int) part(i));
          ((TimeStampMicroTZVector) root.getVector("ts")).set(r, tsMillis(i) * 1000);
          ((BigIntVector) root.getVector("v")).set(r, v(i));
        }
        root.setRowCount(count);
        var batch = new VectorUnloader(root).getRecordBatch();
        try (ArrowReader reader = new RecordBatchReader(allocator, SCHEMA, List.of(batch))) {
          table.append(operation(first), reader);
        }
      }
    }
    SqlEngine sql = new SqlEngine(new MapCatalog().put(new TableName("bench", "events"), table),
        Long.MAX_VALUE, threads);
    lakeQuery = sql.prepare(query);
    duckdb = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement statement = duckdb.createStatement()) {
      statement.execute("SET threads TO " + threads);
      statement.execute("CREATE SCHEMA bench");
      statement.execute("CREATE TABLE bench.events AS SELECT i AS id,"
          + " CAST((i * 2654435761) % 1000 AS INTEGER) AS part, epoch_ms(" + EPOCH_MS + " + i * 3000) AS ts,"
          + " (i * 7919) % 1000 AS v FROM range(" + rows + ") AS r(i)");
    }
    long lakeTotal = lake();
    long duckTotal = duckdb();
    if (lakeTotal != duckTotal) {
      throw new IllegalStateException(window + ": lake and DuckDB disagree: " + lakeTotal + " vs " + duckTotal);
    }
  }

  @Benchmark
  public long lake() throws IOException {
    try (ArrowReader reader = lakeQuery.execute(allocator)) {
      long total = 0;
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          total += ((Number) root.getVector(0).getObject(r)).longValue();
        }
      }
      return total;
    }
  }

  @Benchmark
  public long duckdb() throws SQLException {
    try (Statement statement = duckdb.createStatement(); ResultSet result = statement.executeQuery(query)) {
      long total = 0;
      while (result.next()) {
        total += result.getLong(1);
      }
      return total;
    }
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    duckdb.close();
    table.close();
    engine.close();
    allocator.close();
    ScanFilterAggregateBenchmark.deleteTree(directory);
  }

  private static AppendOperation operation(long first) {
    return AppendOperation.of("bench", "bench.events", UUID.randomUUID(),
        HexFormat.of().parseHex(String.format("%064x", first + 1)));
  }
}
