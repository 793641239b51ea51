package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.exec.QueryControl;
import dev.lake.sql.tpch.MapCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parallel hash joins over the {@code log} engine (tables of several segments, so several
 * morsels), checked against the serial plan: the same rows with one worker and with several,
 * bit for bit the same whatever the number of workers; then how a parallel join stops (timeout,
 * cancel) and how its heap counts against the memory budget.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlParallelJoinTest {

  private static final Schema ITEMS = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.nullable("order_id", new ArrowType.Int(64, true)),
      Field.notNullable("qty", new ArrowType.Int(32, true)),
      Field.nullable("price", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      Field.nullable("tag", ArrowType.Utf8.INSTANCE)));
  private static final Schema ORDERS = new Schema(List.of(
      Field.notNullable("order_id", new ArrowType.Int(64, true)),
      Field.nullable("customer", ArrowType.Utf8.INSTANCE),
      Field.notNullable("status", ArrowType.Utf8.INSTANCE)));
  private static final String[] TAGS = {"red", "green", "blue", "amber", null};
  private static final String[] STATUS = {"open", "shipped", "returned"};
  private static final int ITEM_SEGMENTS = 8;
  private static final int ITEMS_PER_SEGMENT = 10_000;
  private static final int ORDER_SEGMENTS = 4;
  private static final int ORDERS_PER_SEGMENT = 5_000;

  /** A self-join with about 1,000 matches per row: 80 million pairs, many seconds of work. */
  private static final String LONG_QUERY = "SELECT count(*), sum(a.qty + b.qty) FROM shop.items a"
      + " JOIN shop.items b ON a.id % 80 = b.id % 80";

  private static final String KEPT_SIDE_BUILT = "SELECT o.customer, count(*), min(o.order_id) FROM shop.orders o"
      + " WHERE o.status = 'open' AND o.order_id %% 7 = 1 AND %s (SELECT 1 FROM shop.items i"
      + " WHERE i.order_id = o.order_id AND i.qty > 2) GROUP BY o.customer";
  private static final List<String> QUERIES = List.of(
      // inner join under a grouped aggregate: parallel build, probes in the aggregate's pipeline
      "SELECT o.status, count(*), sum(i.qty), sum(i.price), min(i.id), max(o.customer)"
          + " FROM shop.items i JOIN shop.orders o ON i.order_id = o.order_id"
          + " GROUP BY o.status ORDER BY o.status",
      // left join with a residual condition
      "SELECT i.tag, count(o.order_id), count(*), sum(i.price) FROM shop.items i"
          + " LEFT JOIN shop.orders o ON i.order_id = o.order_id AND o.status <> 'returned'"
          + " GROUP BY i.tag ORDER BY i.tag NULLS FIRST",
      // semi join
      "SELECT count(*), sum(qty) FROM shop.items"
          + " WHERE order_id IN (SELECT order_id FROM shop.orders WHERE status = 'open')",
      // anti join
      "SELECT tag, count(*) FROM shop.items i"
          + " WHERE NOT EXISTS (SELECT 1 FROM shop.orders o WHERE o.order_id = i.order_id)"
          + " GROUP BY tag ORDER BY tag NULLS FIRST",
      // two keys, one a string, with NULLs on both sides
      "SELECT count(*), sum(a.qty), sum(b.price) FROM shop.items a"
          + " JOIN shop.items b ON a.tag = b.tag AND a.qty = b.qty",
      // a chain of joins feeding one aggregate
      "SELECT o.customer, count(*), sum(b.qty) FROM shop.items a"
          + " JOIN shop.orders o ON a.order_id = o.order_id"
          + " JOIN shop.items b ON b.order_id = o.order_id AND b.id <> a.id"
          + " GROUP BY o.customer ORDER BY o.customer NULLS FIRST",
      // many groups (80,000 partial rows): the final merge is partitioned across the workers
      "SELECT i.id % 70000, i.tag, o.customer, count(*), sum(i.price), max(o.status) FROM shop.items i"
          + " LEFT JOIN shop.orders o ON i.order_id = o.order_id"
          + " GROUP BY i.id % 70000, i.tag, o.customer ORDER BY 1, 2 NULLS FIRST, 3 NULLS FIRST",
      // a join whose result is sorted, not aggregated: probes gathered on the workers
      "SELECT i.id, i.price, o.customer FROM shop.items i JOIN shop.orders o"
          + " ON i.order_id = o.order_id WHERE i.qty < 40 ORDER BY i.id",
      // the query's result is the join: gathered in morsel order, the serial plan's row order
      "SELECT i.id, i.price, o.customer FROM shop.items i JOIN shop.orders o"
          + " ON i.order_id = o.order_id WHERE i.qty < 40",
      // a limit closes the gather early
      "SELECT i.id, o.status FROM shop.items i JOIN shop.orders o ON i.order_id = o.order_id LIMIT 7",
      // a non-decomposable aggregate over gathered probes
      "SELECT count(DISTINCT o.customer), count(*) FROM shop.items i"
          + " JOIN shop.orders o ON i.order_id = o.order_id WHERE i.tag = 'red'",
      // Few orders against all items: the orders are built, the items stream past them.
      KEPT_SIDE_BUILT.formatted("EXISTS"),
      KEPT_SIDE_BUILT.formatted("NOT EXISTS"));

  @TempDir static Path dir;
  private BufferAllocator root;
  private BufferAllocator allocator;
  private TableEngine log;
  private final List<TableHandle> handles = new ArrayList<>();
  private MapCatalog catalog;

  @BeforeAll
  void load() throws IOException {
    root = new RootAllocator();
    log = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow()
        .create(Map.of("log.block.rows", "1000"));
    catalog = new MapCatalog();
    Random random = new Random(11);
    TableHandle items = log.create(TableLocation.of(dir.resolve("items")), ITEMS);
    for (int s = 0; s < ITEM_SEGMENTS; s++) {
      try (VectorSchemaRoot batch = VectorSchemaRoot.create(ITEMS, root)) {
        batch.allocateNew();
        for (int i = 0; i < ITEMS_PER_SEGMENT; i++) {
          long id = (long) s * ITEMS_PER_SEGMENT + i;
          ((BigIntVector) batch.getVector("id")).setSafe(i, id);
          if (random.nextInt(50) == 0) {
            ((BigIntVector) batch.getVector("order_id")).setNull(i);
          } else {
            ((BigIntVector) batch.getVector("order_id")).setSafe(i, random.nextInt(25_000));
          }
          ((IntVector) batch.getVector("qty")).setSafe(i, random.nextInt(1000));
          if (random.nextInt(20) == 0) {
            ((Float8Vector) batch.getVector("price")).setNull(i);
          } else {
            ((Float8Vector) batch.getVector("price")).setSafe(i, random.nextDouble() * 100);
          }
          setString(batch.getVector("tag"), i, TAGS[random.nextInt(TAGS.length)]);
        }
        batch.setRowCount(ITEMS_PER_SEGMENT);
        append(items, batch, s);
      }
    }
    TableHandle orders = log.create(TableLocation.of(dir.resolve("orders")), ORDERS);
    for (int s = 0; s < ORDER_SEGMENTS; s++) {
      try (VectorSchemaRoot batch = VectorSchemaRoot.create(ORDERS, root)) {
        batch.allocateNew();
        for (int i = 0; i < ORDERS_PER_SEGMENT; i++) {
          ((BigIntVector) batch.getVector("order_id")).setSafe(i, (long) s * ORDERS_PER_SEGMENT + i);
          setString(batch.getVector("customer"), i,
              random.nextInt(10) == 0 ? null : "customer#" + random.nextInt(300));
          setString(batch.getVector("status"), i, STATUS[random.nextInt(STATUS.length)]);
        }
        batch.setRowCount(ORDERS_PER_SEGMENT);
        append(orders, batch, s);
      }
    }
    handles.add(items);
    handles.add(orders);
    catalog.put(new TableName("shop", "items"), items).put(new TableName("shop", "orders"), orders);
  }

  private static void setString(FieldVector vector, int i, String value) {
    if (value == null) {
      ((VarCharVector) vector).setNull(i);
    } else {
      ((VarCharVector) vector).setSafe(i, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  private void append(TableHandle table, VectorSchemaRoot batch, int s) throws IOException {
    try (RecordBatchReader reader = new RecordBatchReader(root, batch.getSchema(),
        List.of(new VectorUnloader(batch).getRecordBatch()))) {
      table.append(new AppendOperation("t", "shop", UUID.randomUUID(), String.format("%064x", s)), reader);
    }
  }

  @AfterAll
  void close() {
    handles.forEach(TableHandle::close);
    log.close();
    root.close();
  }

  @org.junit.jupiter.api.BeforeEach
  void child() {
    allocator = root.newChildAllocator("test", 0, Long.MAX_VALUE);
  }

  @AfterEach
  void noLeaks() {
    assertEquals(0, allocator.getAllocatedMemory(), "every buffer and heap charge released");
    allocator.close();
    assertTrue(workersGone(), "no query worker still runs after its query");
  }

  @Test
  void parallelJoinsAnswerAsTheSerialPlanAndTheSameWithAnyNumberOfWorkers() {
    SqlEngine serial = new SqlEngine(catalog, Long.MAX_VALUE, 1);
    List<SqlEngine> parallel = List.of(new SqlEngine(catalog, Long.MAX_VALUE, 2),
        new SqlEngine(catalog, Long.MAX_VALUE, 3), new SqlEngine(catalog, Long.MAX_VALUE, 5));
    for (String query : QUERIES) {
      List<List<Object>> expected = rows(serial, query, QueryControl.create());
      assertTrue(expected.size() > 0, query);
      List<List<Object>> first = null;
      for (SqlEngine engine : parallel) {
        List<List<Object>> actual = rows(engine, query, QueryControl.create());
        assertClose(expected, actual, query);
        if (first == null) {
          first = actual;
        } else {
          assertEquals(first, actual, "same answer, to the last bit, with any number of workers: " + query);
        }
      }
    }
  }

  @Test
  void aSemiJoinBuildingItsKeptSideGathersTheStreamedSideOnTheWorkers() {
    for (String form : List.of("EXISTS", "NOT EXISTS")) {
      List<String> plan = rows(new SqlEngine(catalog, Long.MAX_VALUE, 2), "EXPLAIN " + KEPT_SIDE_BUILT.formatted(form),
          QueryControl.create()).stream().map(r -> (String) r.getFirst()).toList();
      String join = form.equals("EXISTS") ? "HashJoin SEMI (build left)" : "HashJoin ANTI (build left)";
      int at = -1;
      for (int i = 0; i < plan.size(); i++) {
        at = plan.get(i).contains(join) ? i : at;
      }
      assertTrue(at >= 0, plan.toString());
      assertTrue(plan.get(at + 1).contains("Gather (pipeline on 2 workers"), plan.toString());
    }
  }

  @Test
  void keysMatchingManyRowsAreJoinedInBoundedBatches() throws IOException {
    // 200 probe rows, each matching the ~8,000 items of its id % 10 class: 1.6 million pairs.
    SqlEngine engine = new SqlEngine(catalog, Long.MAX_VALUE, 3);
    Map<Long, long[]> classes = new java.util.HashMap<>();
    for (List<Object> r : rows(engine, "SELECT id % 10, count(*), sum(qty), count(CASE WHEN qty < 5 THEN 1 END)"
        + " FROM shop.items GROUP BY id % 10", QueryControl.create())) {
      classes.put((Long) r.get(0), new long[] {(Long) r.get(1), (Long) r.get(2), (Long) r.get(3)});
    }
    long pairs = 0;
    long qty = 0;
    for (long id = 0; id < 200; id++) {
      long[] c = classes.get(id % 10);
      pairs += c[0];
      qty += c[1];
    }
    // The LEFT join below keeps pairs whose quantities add up to less than 10: counted here.
    List<List<Object>> items = rows(engine, "SELECT id, qty FROM shop.items", QueryControl.create());
    int[] qtyById = new int[items.size()];
    items.forEach(r -> qtyById[(int) (long) (Long) r.get(0)] = (Integer) r.get(1));
    long leftRows = 0;
    long leftMatches = 0;
    for (int a = 0; a < 200; a++) {
      long m = 0;
      for (int b = a % 10; b < qtyById.length; b += 10) {
        if (qtyById[a] + qtyById[b] < 10) {
          m++;
        }
      }
      leftRows += Math.max(1, m);
      leftMatches += m;
    }
    long rows = 0;
    int largest = 0;
    try (ArrowReader reader = engine.prepare("SELECT a.id, b.id FROM shop.items a JOIN shop.items b"
        + " ON a.id % 10 = b.id % 10 WHERE a.id < 200").execute(allocator)) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
        largest = Math.max(largest, reader.getVectorSchemaRoot().getRowCount());
      }
    }
    assertEquals(pairs, rows);
    assertTrue(largest <= 1 << 17, "largest batch " + largest + " rows");
    assertEquals(List.of(List.of(pairs, qty)), rows(engine, "SELECT count(*), sum(b.qty) FROM shop.items a"
        + " JOIN shop.items b ON a.id % 10 = b.id % 10 WHERE a.id < 200", QueryControl.create()));
    // LEFT with a residual: a row's candidates span several batches; it is NULL-extended only
    // when none of them passes.
    assertEquals(List.of(List.of(leftRows, leftMatches)), rows(engine, "SELECT count(*), count(b.id)"
        + " FROM shop.items a LEFT JOIN shop.items b ON a.id % 10 = b.id % 10 AND a.qty + b.qty < 10"
        + " WHERE a.id < 200", QueryControl.create()));
  }

  @Test
  void explainShowsTheParallelBuildAndTheAggregateOverTheProbes() {
    List<String> plan = rows(new SqlEngine(catalog, Long.MAX_VALUE, 2), "EXPLAIN " + QUERIES.getFirst(),
        QueryControl.create()).stream().map(r -> (String) r.getFirst()).toList();
    assertTrue(plan.stream().anyMatch(l -> l.contains("ParallelHashAggregate")), plan.toString());
    assertTrue(plan.stream().anyMatch(l -> l.contains("HashJoin INNER") && l.contains("build=parallel threads=2")),
        plan.toString());
    List<String> gathered = rows(new SqlEngine(catalog, Long.MAX_VALUE, 2), "EXPLAIN " + QUERIES.get(7),
        QueryControl.create()).stream().map(r -> (String) r.getFirst()).toList();
    assertTrue(gathered.get(1).contains("Gather (pipeline on 2 workers"), gathered.toString());
    List<String> serial = rows(new SqlEngine(catalog, Long.MAX_VALUE, 1), "EXPLAIN " + QUERIES.getFirst(),
        QueryControl.create()).stream().map(r -> (String) r.getFirst()).toList();
    assertTrue(serial.stream().noneMatch(l -> l.contains("parallel") || l.contains("Parallel")), serial.toString());
  }

  @Test
  void aTimedOutParallelJoinStopsItsWorkersPromptlyAndTheNextQueryRuns() {
    SqlEngine engine = new SqlEngine(catalog, Long.MAX_VALUE, 3);
    PreparedQuery query = engine.prepare(LONG_QUERY);
    long start = System.nanoTime();
    SqlException e = assertThrows(SqlException.class,
        () -> rows(query, QueryControl.create().withTimeout(Duration.ofMillis(200))));
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertEquals(SqlException.Kind.TIMED_OUT, e.kind(), e.getMessage());
    assertTrue(e.getMessage().contains("timed out after 200 ms"), e.getMessage());
    assertTrue(millis < 1_500, "stopped " + millis + " ms after the start, 200 ms timeout");
    assertTrue(workersGone(), "every worker of the plan has stopped");
    assertEquals(0, allocator.getAllocatedMemory());
    assertEquals(List.of(List.of(20_000L)),
        rows(engine, "SELECT count(*) FROM shop.orders", QueryControl.create()));
  }

  @Test
  void aTimedOutGatheredJoinStopsItsWorkers() {
    PreparedQuery query = new SqlEngine(catalog, Long.MAX_VALUE, 3).prepare(
        "SELECT a.id, b.id FROM shop.items a JOIN shop.items b ON a.id % 80 = b.id % 80");
    long start = System.nanoTime();
    SqlException e = assertThrows(SqlException.class,
        () -> rows(query, QueryControl.create().withTimeout(Duration.ofMillis(200))));
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertEquals(SqlException.Kind.TIMED_OUT, e.kind(), e.getMessage());
    assertTrue(millis < 1_500, "stopped " + millis + " ms after the start, 200 ms timeout");
    assertTrue(workersGone());
  }

  @Test
  void theEnginesQueryTimeoutAppliesToEveryExecution() {
    SqlEngine engine = new SqlEngine(catalog, Long.MAX_VALUE, 2, Duration.ofMillis(200));
    SqlException e = assertThrows(SqlException.class, () -> rows(engine, LONG_QUERY, QueryControl.create()));
    assertEquals(SqlException.Kind.TIMED_OUT, e.kind(), e.getMessage());
    assertTrue(workersGone());
    assertEquals(List.of(List.of(20_000L)),
        rows(engine, "SELECT count(*) FROM shop.orders", QueryControl.create()));
  }

  @Test
  void aCancelledParallelJoinStopsPromptly() throws Exception {
    PreparedQuery query = new SqlEngine(catalog, Long.MAX_VALUE, 3).prepare(LONG_QUERY);
    QueryControl control = QueryControl.create();
    Thread canceller = Thread.ofPlatform().start(() -> {
      try {
        Thread.sleep(200);
      } catch (InterruptedException ignored) {
        Thread.currentThread().interrupt();
      }
      control.cancel();
    });
    long start = System.nanoTime();
    SqlException e = assertThrows(SqlException.class, () -> rows(query, control));
    long millis = (System.nanoTime() - start) / 1_000_000;
    canceller.join();
    assertEquals(SqlException.Kind.CANCELLED, e.kind(), e.getMessage());
    assertTrue(millis < 1_500, "stopped " + millis + " ms after the start, cancelled after 200 ms");
    assertTrue(workersGone());
  }

  @Test
  void aJoinWhoseBuildSideExceedsTheBudgetIsResourceExhaustedAndLeaksNothing() {
    // Each build row of this self-join holds about 60 bytes of heap: 80,000 rows need ~5 MB,
    // while the Arrow buffers in flight stay far below the 2 MiB budget.
    String query = "SELECT count(*), sum(b.price) FROM shop.items a JOIN shop.items b ON a.id = b.id";
    for (int threads : new int[] {1, 3}) {
      SqlException e = overBudget(query, threads);
      // The build side runs the budget out: its heap, or a buffer of the scan feeding it (the
      // build side's bytes leave little room, so either allocation may be the one to find it full).
      assertTrue(threads > 1 || e.getMessage().contains("hash join build side needs") || duringBuild(e),
          e.getMessage());
      SqlEngine roomy = new SqlEngine(catalog, 64L << 20, threads);
      assertEquals(80_000L, rows(roomy, query, QueryControl.create()).getFirst().getFirst());
    }
  }

  @Test
  void aJoinBuildingItsKeptSideOverTheBudgetIsResourceExhaustedAndLeaksNothing() {
    // The 40,000 even items are the kept side, built (about 2.4 MB of heap against a 2 MiB
    // budget); all 80,000 items stream past them.
    String query = "SELECT count(*) FROM shop.items a WHERE a.id % 2 = 0 AND NOT EXISTS "
        + "(SELECT 1 FROM shop.items b WHERE b.id = a.id AND b.qty <> a.qty)";
    for (int threads : new int[] {1, 3}) {
      SqlEngine roomy = new SqlEngine(catalog, 64L << 20, threads);
      List<String> plan = rows(roomy, "EXPLAIN " + query, QueryControl.create()).stream()
          .map(r -> (String) r.getFirst()).toList();
      assertTrue(plan.stream().anyMatch(l -> l.contains("HashJoin ANTI (build left)")), plan.toString());
      overBudget(query, threads);
      assertEquals(40_000L, rows(roomy, query, QueryControl.create()).getFirst().getFirst());
    }
  }

  @Test
  void anAggregateWhoseGroupsExceedTheBudgetIsResourceExhaustedAndLeaksNothing() {
    // 80,000 groups of about 50 heap bytes each: ~4 MB of heap. With workers, an Arrow buffer
    // may be the allocation that finds the budget full.
    String query = "SELECT id, count(*), sum(qty) FROM shop.items GROUP BY id";
    assertTrue(overBudget(query, 1).getMessage().contains("hash aggregate needs"));
    overBudget(query, 3);
  }

  /** Whether {@code e} was thrown while a hash join's build side was read. */
  private static boolean duringBuild(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      for (StackTraceElement frame : t.getStackTrace()) {
        if (frame.getClassName().equals("dev.lake.exec.op.JoinTable") && frame.getMethodName().equals("build")) {
          return true;
        }
      }
    }
    return false;
  }

  /** Runs {@code query} under a 2 MiB budget: RESOURCE_EXHAUSTED naming it, nothing left behind. */
  private SqlException overBudget(String query, int threads) {
    long budget = 2L << 20;
    SqlEngine small = new SqlEngine(catalog, budget, threads);
    SqlException e = assertThrows(SqlException.class, () -> rows(small, query, QueryControl.create()));
    assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED, e.kind(), e.getMessage());
    assertTrue(e.getMessage().contains("query memory budget of " + budget + " bytes exceeded"), e.getMessage());
    assertEquals(0, allocator.getAllocatedMemory());
    assertTrue(workersGone());
    return e;
  }

  @Test
  void theProcessBudgetBoundsTheHeapOfJoinsToo() {
    String query = "SELECT count(*) FROM shop.items a JOIN shop.items b ON a.id = b.id";
    try (BufferAllocator process = allocator.newChildAllocator("process", 0, 2L << 20)) {
      SqlException e = assertThrows(SqlException.class, () -> {
        try (ArrowReader reader = new SqlEngine(catalog, Long.MAX_VALUE, 2).prepare(query).execute(process)) {
          while (reader.loadNextBatch()) {
            assertTrue(reader.getVectorSchemaRoot().getRowCount() >= 0);
          }
        }
      });
      assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED, e.kind(), e.getMessage());
      assertTrue(e.getMessage().contains((2L << 20) + " bytes"), e.getMessage());
      assertEquals(0, process.getAllocatedMemory());
    }
  }

  private List<List<Object>> rows(SqlEngine engine, String sql, QueryControl control) {
    return rows(engine.prepare(sql), control);
  }

  private List<List<Object>> rows(PreparedQuery query, QueryControl control) {
    List<List<Object>> out = new ArrayList<>();
    try (ArrowReader reader = query.execute(allocator, control)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        for (int r = 0; r < batch.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : batch.getFieldVectors()) {
            row.add(SqlFixture.value(v, r));
          }
          out.add(row);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Equal rows; doubles (sums merged from partials in another order) to 1e-12 relative. */
  private static void assertClose(List<List<Object>> expected, List<List<Object>> actual, String query) {
    assertEquals(expected.size(), actual.size(), query);
    for (int r = 0; r < expected.size(); r++) {
      for (int c = 0; c < expected.get(r).size(); c++) {
        Object e = expected.get(r).get(c);
        Object a = actual.get(r).get(c);
        if (e instanceof Double x && a instanceof Double y) {
          assertEquals(x, y, Math.abs(x) * 1e-12, query + " row " + r + " column " + c);
        } else {
          assertEquals(e, a, query + " row " + r + " column " + c);
        }
      }
    }
  }

  /**
   * Whether no query worker thread runs any lake code (waits up to a second for them to leave
   * their stages): workers are pooled, so an idle one is alive but parked in the pool.
   */
  static boolean workersGone() {
    long deadline = System.nanoTime() + 1_000_000_000L;
    while (true) {
      boolean alive = Thread.getAllStackTraces().entrySet().stream()
          .anyMatch(e -> e.getKey().getName().startsWith("lake-sql-worker") && e.getKey().isAlive()
              && Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().startsWith("dev.lake.")));
      if (!alive) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.onSpinWait();
    }
  }
}
