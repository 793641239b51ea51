package dev.lake.sql.tpch;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.sql.PreparedQuery;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.TableName;
import io.trino.tpch.TpchTable;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * All 22 TPC-H queries at scale factor 0.01 over the {@code log} engine, each answer compared
 * with DuckDB's over the same generated data: floats within a relative tolerance, rows in order
 * wherever ORDER BY defines one. Each query runs serially (one thread) and in parallel (three
 * workers, more than this machine's cores, so morsels really interleave: parallel join builds,
 * probes in pipelines and partial aggregates).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlTpchDifferentialTest {
  static final double SCALE = 0.01;

  @TempDir static Path dir;
  private BufferAllocator allocator;
  private TableEngine log;
  private final List<TableHandle> handles = new ArrayList<>();
  private Connection duck;
  private SqlEngine serial;
  private SqlEngine parallel;

  @BeforeAll
  void load() throws Exception {
    allocator = new RootAllocator();
    log = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow()
        .create(engineProperties());
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      s.execute("SET threads TO 1");
    }
    MapCatalog catalog = new MapCatalog();
    for (TpchTable<?> table : TpchTable.getTables()) {
      TableHandle handle = log.create(TableLocation.of(dir.resolve(table.getTableName())), TpchData.schema(table));
      handles.add(handle);
      TpchData.load(table, SCALE, handle, allocator, 25_000);
      catalog.put(new TableName("tpch", table.getTableName()), handle);
      TpchData.loadDuckDb(table, SCALE, duck, dir);
    }
    serial = new SqlEngine(catalog, Long.MAX_VALUE, 1);
    parallel = new SqlEngine(catalog, Long.MAX_VALUE, 3);
  }

  /** The log engine's properties; subclasses run the same queries over other table settings. */
  Map<String, String> engineProperties() {
    return Map.of("log.block.rows", "4096");
  }

  @AfterAll
  void close() throws Exception {
    duck.close();
    handles.forEach(TableHandle::close);
    log.close();
    allocator.close();
  }

  /** All 22; {@code -Dlake.tpch.queries=3,19} runs only those (for debugging one query). */
  static IntStream queries() {
    String only = System.getProperty("lake.tpch.queries", "");
    if (only.isBlank()) {
      return IntStream.rangeClosed(1, 22);
    }
    return java.util.Arrays.stream(only.split(",")).mapToInt(s -> Integer.parseInt(s.trim()));
  }

  /** Each query with one thread and with three. */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> queriesAndThreads() {
    return queries().boxed().flatMap(q -> java.util.stream.Stream.of(
        org.junit.jupiter.params.provider.Arguments.of(q, 1),
        org.junit.jupiter.params.provider.Arguments.of(q, 3)));
  }

  @ParameterizedTest(name = "Q{0} threads={1}")
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  @MethodSource("queriesAndThreads")
  void answerMatchesDuckDb(int q, int threads) throws Exception {
    String text = TpchQueries.query(q, SCALE);
    List<List<Object>> expected;
    try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery(text)) {
      expected = Results.read(rs);
    }
    PreparedQuery prepared = (threads == 1 ? serial : parallel).prepare(text);
    List<List<Object>> actual;
    try (BufferAllocator child = allocator.newChildAllocator("Q" + q + "-" + threads, 0, Long.MAX_VALUE);
        ArrowReader reader = prepared.execute(child)) {
      actual = Results.read(reader);
    }
    boolean ordered = text.toLowerCase(java.util.Locale.ROOT).contains("order by");
    Results.assertSame("Q" + q, expected, actual, ordered);
    if (q != 6) {
      org.junit.jupiter.api.Assertions.assertFalse(expected.isEmpty(), "Q" + q + " has an answer");
    }
  }
}
