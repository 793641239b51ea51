package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL over the real {@code log} engine (small blocks, several versions, nulls), checked against
 * answers computed row by row in Java, and block pruning by statistics observed through the
 * engine's scan plans.
 */
class SqlOverLogTableTest {

  private static final TableName TABLE = new TableName("robots", "episodes");
  private static final Schema SCHEMA = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.nullable("robot", ArrowType.Utf8.INSTANCE),
      Field.notNullable("steps", new ArrowType.Int(32, true)),
      Field.nullable("duration_s", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
  private static final String[] ROBOTS = {"atlas", "spot", "franka", null};
  private static final int BATCH = 20_000;

  record Row(long id, String robot, int steps, Double duration) {}

  @TempDir Path dir;
  private BufferAllocator allocator;
  private TableEngine log;
  private TableHandle table;
  private final List<Snapshot.ScanPlan> plans = new ArrayList<>();
  private final List<Row> rows = new ArrayList<>();
  private SqlEngine sql;

  @BeforeEach
  void load() throws Exception {
    allocator = new RootAllocator();
    log = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow()
        .create(Map.of("log.block.rows", "1000"));
    table = log.create(TableLocation.of(dir.resolve("episodes")), SCHEMA);
    Random random = new Random(7);
    for (int version = 1; version <= 3; version++) {
      try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
        root.allocateNew();
        for (int i = 0; i < BATCH; i++) {
          long id = rows.size();
          String robot = ROBOTS[random.nextInt(ROBOTS.length)];
          int steps = random.nextInt(1000);
          Double duration = random.nextInt(10) == 0 ? null : random.nextDouble() * 60;
          rows.add(new Row(id, robot, steps, duration));
          ((BigIntVector) root.getVector("id")).setSafe(i, id);
          if (robot == null) {
            ((VarCharVector) root.getVector("robot")).setNull(i);
          } else {
            ((VarCharVector) root.getVector("robot")).setSafe(i, robot.getBytes());
          }
          ((IntVector) root.getVector("steps")).setSafe(i, steps);
          if (duration == null) {
            ((Float8Vector) root.getVector("duration_s")).setNull(i);
          } else {
            ((Float8Vector) root.getVector("duration_s")).setSafe(i, duration);
          }
        }
        root.setRowCount(BATCH);
        try (RecordBatchReader reader = new RecordBatchReader(allocator, SCHEMA,
            List.of(new VectorUnloader(root).getRecordBatch()))) {
          table.append(new AppendOperation("t", TABLE.toString(), UUID.randomUUID(),
              String.format("%064x", version)), reader);
        }
      }
    }
    sql = new SqlEngine(new RecordingCatalog());
  }

  @AfterEach
  void close() {
    table.close();
    log.close();
    allocator.close();
  }

  @Test
  void rangePredicateOnTheSortedIdPrunesBlocksAndCountsExactly() throws Exception {
    List<List<Object>> result = run(
        "SELECT count(*), sum(steps) FROM robots.episodes WHERE id BETWEEN 31000 AND 31499");
    List<Row> expected = rows.stream().filter(r -> r.id() >= 31000 && r.id() <= 31499).toList();
    assertEquals(List.of(List.of((long) expected.size(),
        expected.stream().mapToLong(Row::steps).sum())), result);
    Snapshot.ScanPlan plan = plans.getLast();
    assertEquals(60, plan.blocksTotal());
    assertEquals(59, plan.blocksPruned(), "only the block holding ids 31000..31999 is read");
  }

  @Test
  void morselParallelAggregationMatchesSerialAndIsDeterministic() throws Exception {
    String query = "SELECT robot, count(*), sum(duration_s), avg(steps), min(id), max(duration_s) "
        + "FROM (SELECT * FROM robots.episodes WHERE steps < 900) t GROUP BY robot";
    SqlEngine serial = new SqlEngine(new RecordingCatalog(), Long.MAX_VALUE, 1);
    SqlEngine parallel = new SqlEngine(new RecordingCatalog(), Long.MAX_VALUE, 4);
    List<Object> plan = rows(parallel, "EXPLAIN " + query).stream().map(r -> r.get(0)).toList();
    assertTrue(plan.stream().anyMatch(l -> ((String) l).contains("ParallelHashAggregate")), plan.toString());
    Comparator<List<Object>> byRobot = Comparator.comparing(r -> String.valueOf(r.get(0)));
    List<List<Object>> expected = new ArrayList<>(rows(serial, query));
    expected.sort(byRobot);
    List<List<Object>> first = null;
    for (int run = 0; run < 5; run++) {
      List<List<Object>> actual = new ArrayList<>(rows(parallel, query));
      actual.sort(byRobot);
      assertEquals(expected.size(), actual.size());
      for (int r = 0; r < expected.size(); r++) {
        for (int c = 0; c < expected.get(r).size(); c++) {
          Object e = expected.get(r).get(c);
          Object a = actual.get(r).get(c);
          if (e instanceof Double x) {
            assertEquals(x, (Double) a, Math.abs(x) * 1e-12, "row " + r + " column " + c);
          } else {
            assertEquals(e, a, "row " + r + " column " + c);
          }
        }
      }
      if (first == null) {
        first = actual;
      } else {
        assertEquals(first, actual, "same answer, to the last bit, on every run");
      }
    }
  }

  @Test
  void interruptedQueryStopsItsWorkersAndReleasesEverything() throws Exception {
    SqlEngine parallel = new SqlEngine(new RecordingCatalog(), Long.MAX_VALUE, 4);
    for (String query : List.of(
        "SELECT robot, sum(steps) FROM (SELECT * FROM robots.episodes) t GROUP BY robot",
        "SELECT a.id FROM robots.episodes a JOIN robots.episodes b ON a.id = b.id")) {
      try (ArrowReader reader = parallel.prepare(query).execute(allocator)) {
        Thread.currentThread().interrupt();
        SqlException e = assertThrows(SqlException.class, reader::loadNextBatch);
        assertTrue(Thread.interrupted(), "the interrupt stays visible to the caller");
        assertEquals(SqlException.Kind.CANCELLED, e.kind());
        assertTrue(e.getMessage().contains("cancelled"), e.getMessage());
      } finally {
        Thread.interrupted();
      }
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }

  @Test
  void explainShowsThePushedPredicateAndThePrunedBlocks() throws Exception {
    List<Object> lines = run("EXPLAIN SELECT count(*) FROM robots.episodes WHERE id BETWEEN 31000 AND 31499")
        .stream().map(r -> r.get(0)).toList();
    String scan = (String) lines.getLast();
    assertTrue(scan.contains("Scan lake.robots.episodes"), lines.toString());
    assertTrue(scan.contains("pushed="), scan);
    assertTrue(scan.contains("blocks=60 pruned=59"), scan);
    List<Object> joined = run("EXPLAIN SELECT a.robot, count(*) FROM robots.episodes a "
        + "JOIN robots.episodes b ON a.id = b.id WHERE a.id < 1000 GROUP BY a.robot")
        .stream().map(r -> r.get(0)).toList();
    assertTrue(joined.stream().anyMatch(l -> ((String) l).contains("HashJoin INNER")), joined.toString());
    assertTrue(joined.stream().anyMatch(l -> ((String) l).contains("pruned=59")), joined.toString());
  }

  @Test
  void groupedAggregatesWithNullsMatchRowByRowAnswers() throws Exception {
    Predicate<Row> where = r -> (r.duration() != null && r.duration() > 30) || r.robot() == null;
    Map<String, long[]> expected = new TreeMap<>(java.util.Comparator.nullsFirst(String::compareTo));
    for (Row r : rows) {
      if (where.test(r)) {
        long[] agg = expected.computeIfAbsent(r.robot(), k -> new long[] {0, 0, 0});
        agg[0]++;
        agg[1] += r.steps();
        agg[2] += r.duration() == null ? 0 : 1;
      }
    }
    List<List<Object>> result = run("SELECT robot, count(*), sum(steps), count(duration_s)"
        + " FROM robots.episodes WHERE duration_s > 30 OR robot IS NULL"
        + " GROUP BY robot ORDER BY robot NULLS FIRST");
    List<List<Object>> want = new ArrayList<>();
    expected.forEach((robot, agg) -> want.add(java.util.Arrays.asList(robot, agg[0], agg[1], agg[2])));
    assertEquals(want, result);
  }

  @Test
  void olderVersionsAnswerFromTheirOwnRows() throws Exception {
    for (int version = 1; version <= 3; version++) {
      long expected = rows.stream().limit((long) version * BATCH)
          .filter(r -> "spot".equals(r.robot())).count();
      assertEquals(List.of(List.<Object>of(expected)), run("SELECT count(*) FROM robots.episodes"
          + " FOR VERSION AS OF " + version + " WHERE robot = 'spot'"));
    }
  }

  @Test
  void topRowsByDurationMatch() throws Exception {
    List<Row> sorted = rows.stream().filter(r -> r.duration() != null)
        .sorted(java.util.Comparator.comparing(Row::duration).reversed()
            .thenComparing(Row::id)).limit(7).toList();
    List<List<Object>> result = run("SELECT id, duration_s FROM robots.episodes"
        + " WHERE duration_s IS NOT NULL ORDER BY duration_s DESC, id LIMIT 7");
    assertEquals(sorted.stream().map(r -> List.<Object>of(r.id(), r.duration())).toList(), result);
  }

  private List<List<Object>> run(String query) throws Exception {
    return rows(sql, query);
  }

  private List<List<Object>> rows(SqlEngine engine, String query) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (ArrowReader reader = engine.prepare(query).execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (var vector : root.getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text t ? t.toString()
                : value instanceof Integer i ? i.longValue() : value);
          }
          out.add(row);
        }
      }
    }
    return out;
  }

  /** Serves the table and records every scan plan the engine makes, to observe pruning. */
  private final class RecordingCatalog implements SqlCatalog {
    @Override
    public List<String> schemaNames() {
      return List.of(TABLE.schema());
    }

    @Override
    public List<String> tableNames(String schema) {
      return schema.equals(TABLE.schema()) ? List.of(TABLE.table()) : List.of();
    }

    @Override
    public Optional<TableHandle> openTable(TableName name) {
      return name.equals(TABLE) ? Optional.of(new RecordingHandle()) : Optional.empty();
    }
  }

  private final class RecordingHandle implements TableHandle {
    @Override public TableLocation location() { return table.location(); }
    @Override public Schema schema() { return table.schema(); }
    @Override public Version currentVersion() { return table.currentVersion(); }
    @Override public List<VersionInfo> versions() { return table.versions(); }
    @Override public Version append(AppendOperation op, ArrowReader batches) {
      throw new IllegalStateException("read only");
    }
    @Override public Optional<Version> reconcileAppend(AppendOperation op) {
      return table.reconcileAppend(op);
    }
    @Override public void close() {}

    @Override
    public Snapshot snapshot(Version version) {
      Snapshot inner = table.snapshot(version);
      return new Snapshot() {
        @Override public Version version() { return inner.version(); }
        @Override public Schema schema() { return inner.schema(); }
        @Override public long rowCount() { return inner.rowCount(); }
        @Override public ScanPlan plan(ScanRequest request) {
          ScanPlan plan = inner.plan(request);
          plans.add(Objects.requireNonNull(plan));
          return plan;
        }
        @Override public ArrowReader open(dev.lake.engine.ScanUnit unit, ScanRequest request,
            BufferAllocator alloc) {
          return inner.open(unit, request, alloc);
        }
      };
    }
  }
}
