package dev.lake.bench;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.Snapshot;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The same reads over the same rows ({@link EpisodeData}, {@code episode_id} = row position,
 * sorted) on a {@code lance} table, a {@code log} table (both through lake's SQL engine) and a
 * Parquet file written and read by DuckDB, plus append throughput of the two engines. Methods are
 * named {@code <operation>_<system>}; {@link Compare} prints each operation's systems side by
 * side with their ratios.
 *
 * <ul>
 *   <li>{@code fullScan}: four numeric aggregates over every row;
 *   <li>{@code selective}: the same over a 1% range of {@code episode_id} (sorted, so min/max
 *       statistics can skip the rest);
 *   <li>{@code take100}: 100 random rows, four columns. Lance reads them by position ({@code
 *       take_lance}); the log format has no random access, so its equivalent is the SQL {@code
 *       episode_id IN (100 ids)} (ids are positions here), also run on lance and on Parquet;
 *   <li>{@code append}: one 65 536-row batch appended as one version.
 * </ul>
 *
 * <p>Loaded tables and the Parquet file are cached under {@code java.io.tmpdir} per row count,
 * so each fork loads only once per run. DuckDB runs with one thread, as lake's executor does;
 * Lance's reader decodes with its own thread pool.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "--add-modules=jdk.incubator.vector", "-Xmx6g"})
public class LanceBenchmark {

  private static final String COLUMNS = "count(*), sum(episode_id), sum(steps), sum(duration_s), max(reward)";
  private static final List<String> TAKE_COLUMNS = List.of("episode_id", "robot", "steps", "reward");
  private static final int BATCH_ROWS = 65_536;
  private static final int BATCHES_PER_APPEND = 16; // load in 1M-row versions
  private static final int TAKE = 100;
  private static final int POSITION_SETS = 64;

  @Param("10000000")
  public long rows;

  private BufferAllocator allocator;
  private TableEngine engine;
  private TableHandle table;
  private PreparedQuery fullScan;
  private PreparedQuery selective;
  private PreparedQuery[] inLists;
  private Connection duckdb;
  private String[] duckInLists;
  private long[][] positions;
  private int next;
  private Path appendDirectory;
  private VectorSchemaRoot appendBatch;
  private long appended;

  /** Loads (or reuses) only what the running method reads: one engine's table or the Parquet file. */
  @Setup(Level.Trial)
  public void load(BenchmarkParams params) throws Exception {
    String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
    String system = method.substring(method.indexOf('_') + 1);
    allocator = new RootAllocator();
    positions = randomPositions();
    Path cache = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "lake-lance-bench-" + rows));
    if (method.startsWith("append_")) {
      engine = engine(system);
      appendDirectory = Files.createTempDirectory("lake-append");
      table = engine.create(TableLocation.of(appendDirectory.resolve("t")), EpisodeData.SCHEMA);
      appendBatch = VectorSchemaRoot.create(EpisodeData.SCHEMA, allocator);
      EpisodeData.fill(appendBatch, 0, BATCH_ROWS);
      return;
    }
    if (system.equals("parquet")) {
      Path parquet = cache.resolve("episodes.parquet");
      if (!Files.exists(cache.resolve("parquet.done"))) {
        writeParquet(parquet);
        Files.createFile(cache.resolve("parquet.done"));
      }
      duckdb = DriverManager.getConnection("jdbc:duckdb:");
      try (Statement s = duckdb.createStatement()) {
        s.execute("SET threads TO 1");
        s.execute("CREATE VIEW episodes AS SELECT * FROM read_parquet('" + parquet + "')");
      }
      duckInLists = new String[POSITION_SETS];
      for (int i = 0; i < POSITION_SETS; i++) {
        duckInLists[i] = "SELECT " + String.join(", ", TAKE_COLUMNS) + " FROM episodes WHERE " + inList(positions[i]);
      }
      check(duckCount("SELECT " + COLUMNS + " FROM episodes"));
      return;
    }
    String engineName = system.startsWith("lance") ? "lance" : "log";
    engine = engine(engineName);
    TableLocation location = TableLocation.of(cache.resolve(engineName));
    if (!Files.exists(cache.resolve(engineName + ".done"))) {
      try (TableHandle created = engine.create(location, EpisodeData.SCHEMA)) {
        loadRows(created);
      }
      Files.createFile(cache.resolve(engineName + ".done"));
    }
    table = engine.open(location).orElseThrow();
    SqlEngine sql = new SqlEngine(new MapCatalog().put(new TableName("bench", "episodes"), table));
    fullScan = sql.prepare("SELECT " + COLUMNS + " FROM bench.episodes");
    long low = rows / 2;
    selective = sql.prepare("SELECT " + COLUMNS + " FROM bench.episodes WHERE episode_id BETWEEN " + low
        + " AND " + (low + rows / 100 - 1));
    inLists = new PreparedQuery[POSITION_SETS];
    for (int i = 0; i < POSITION_SETS; i++) {
      inLists[i] = sql.prepare("SELECT " + String.join(", ", TAKE_COLUMNS) + " FROM bench.episodes WHERE "
          + inList(positions[i]));
    }
    check(lakeFirstLong(fullScan));
  }

  @Benchmark
  public long fullScan_lance() throws IOException {
    return drain(fullScan);
  }

  @Benchmark
  public long fullScan_log() throws IOException {
    return drain(fullScan);
  }

  @Benchmark
  public long fullScan_parquet() throws SQLException {
    return duck("SELECT " + COLUMNS + " FROM episodes");
  }

  @Benchmark
  public long selective_lance() throws IOException {
    return drain(selective);
  }

  @Benchmark
  public long selective_log() throws IOException {
    return drain(selective);
  }

  @Benchmark
  public long selective_parquet() throws SQLException {
    long low = rows / 2;
    return duck("SELECT " + COLUMNS + " FROM episodes WHERE episode_id BETWEEN " + low + " AND "
        + (low + rows / 100 - 1));
  }

  /** Lance's random access: 100 rows by position through {@link Snapshot#take}. */
  @Benchmark
  public long take100_lance() throws IOException {
    Snapshot snapshot = table.latestSnapshot();
    long n = 0;
    try (ArrowReader reader = snapshot.take(positions[next++ % POSITION_SETS], TAKE_COLUMNS, allocator)) {
      while (reader.loadNextBatch()) {
        n += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return expect(n);
  }

  /** The same 100 rows as {@code episode_id IN (...)}, planned once, on lance. */
  @Benchmark
  public long take100_lanceIn() throws IOException {
    return expect(drain(inLists[next++ % POSITION_SETS]));
  }

  /** The log format has no take: {@code episode_id IN (...)}, pruned by block min/max. */
  @Benchmark
  public long take100_log() throws IOException {
    return expect(drain(inLists[next++ % POSITION_SETS]));
  }

  @Benchmark
  public long take100_parquet() throws SQLException {
    return expect(duck(duckInLists[next++ % POSITION_SETS]));
  }

  @Benchmark
  public long append_lance() throws IOException {
    return append();
  }

  @Benchmark
  public long append_log() throws IOException {
    return append();
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    if (duckdb != null) {
      duckdb.close();
    }
    if (appendBatch != null) {
      appendBatch.close();
    }
    if (table != null) {
      table.close();
    }
    if (engine != null) {
      engine.close();
    }
    allocator.close();
    if (appendDirectory != null) {
      try (Stream<Path> files = Files.walk(appendDirectory)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private long append() throws IOException {
    ArrowRecordBatch batch = new VectorUnloader(appendBatch).getRecordBatch();
    try (ArrowReader reader = new RecordBatchReader(allocator, EpisodeData.SCHEMA, List.of(batch))) {
      table.append(operation(appended++), reader);
    }
    return appended;
  }

  private long expect(long taken) {
    if (taken != TAKE) {
      throw new IllegalStateException("expected " + TAKE + " rows, got " + taken);
    }
    return taken;
  }

  private long drain(PreparedQuery query) throws IOException {
    long n = 0;
    try (ArrowReader reader = query.execute(allocator)) {
      while (reader.loadNextBatch()) {
        n += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return n;
  }

  private long duck(String sql) throws SQLException {
    long n = 0;
    try (Statement s = duckdb.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      while (r.next()) {
        n++;
      }
    }
    return n;
  }

  private long duckCount(String sql) throws SQLException {
    try (Statement s = duckdb.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getLong(1) * 1_000_003L + r.getLong(3);
    }
  }

  private long lakeFirstLong(PreparedQuery query) throws IOException {
    try (ArrowReader reader = query.execute(allocator)) {
      reader.loadNextBatch();
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      return ((Number) root.getVector(0).getObject(0)).longValue() * 1_000_003L
          + ((Number) root.getVector(2).getObject(0)).longValue();
    }
  }

  /** Every system must hold exactly the generated rows: count and sum(steps) agree. */
  private void check(long fingerprint) {
    long steps = LongStream.range(0, rows).map(EpisodeData::steps).sum();
    long expected = rows * 1_000_003L + steps;
    if (fingerprint != expected) {
      throw new IllegalStateException("loaded data differs from the generator: " + fingerprint + " vs " + expected);
    }
  }

  private void loadRows(TableHandle target) throws IOException {
    long first = 0;
    while (first < rows) {
      List<ArrowRecordBatch> batches = new ArrayList<>();
      long opFirst = first;
      for (int b = 0; b < BATCHES_PER_APPEND && first < rows; b++) {
        int count = (int) Math.min(BATCH_ROWS, rows - first);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(EpisodeData.SCHEMA, allocator)) {
          EpisodeData.fill(root, first, count);
          batches.add(new VectorUnloader(root).getRecordBatch());
        }
        first += count;
      }
      try (ArrowReader reader = new RecordBatchReader(allocator, EpisodeData.SCHEMA, batches)) {
        target.append(operation(opFirst), reader);
      }
    }
  }

  private void writeParquet(Path parquet) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE episodes (episode_id BIGINT NOT NULL, robot VARCHAR NOT NULL,"
            + " success BOOLEAN NOT NULL, steps INTEGER NOT NULL, duration_s DOUBLE NOT NULL, reward DOUBLE)");
      }
      try (DuckDBAppender appender = ((DuckDBConnection) c).createAppender("main", "episodes")) {
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
      try (Statement s = c.createStatement()) {
        s.execute("COPY episodes TO '" + parquet + "' (FORMAT parquet)");
      }
    }
  }

  private long[][] randomPositions() {
    Random random = new Random(42);
    long[][] sets = new long[POSITION_SETS][];
    for (int i = 0; i < POSITION_SETS; i++) {
      sets[i] = random.longs(0, rows).distinct().limit(TAKE).sorted().toArray();
    }
    return sets;
  }

  private static String inList(long[] ids) {
    return "episode_id IN (" + Arrays.stream(ids).mapToObj(Long::toString).collect(Collectors.joining(", ")) + ")";
  }

  private static TableEngine engine(String name) {
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      if (factory.name().equals(name)) {
        return factory.create(Map.of());
      }
    }
    throw new IllegalStateException("no '" + name + "' engine on the class path");
  }

  private static AppendOperation operation(long first) {
    byte[] digest = HexFormat.of().parseHex(String.format("%064x", first));
    return AppendOperation.of("bench", "bench.episodes", UUID.randomUUID(), digest);
  }
}
