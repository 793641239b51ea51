package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestData.ALL_TYPES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import dev.lake.engine.expr.Between;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Literal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogEngineTest {

  @TempDir Path dir;
  private RootAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  private Version append(TableHandle table, AppendOperation op, long first, int... sizes) throws IOException {
    try (ArrowReader reader = LogTestData.reader(table.schema(), allocator, first, sizes)) {
      return table.append(op, reader);
    }
  }

  @Test
  void handleThatLastReadBeforeAnExpiryPassedItFindsTheVersionsCommittedSince() throws IOException {
    TableLocation location = TableLocation.of(dir.resolve("t"));
    try (TableEngine engine = LogTestData.engine(100, 8 * 1024);
        TableHandle reader = engine.create(location, ALL_TYPES);
        TableEngine writerEngine = LogTestData.engine(100, 8 * 1024);
        TableHandle writer = writerEngine.open(location).orElseThrow()) {
      append(writer, LogTestData.op(1), 0, 10);
      assertEquals(10, reader.snapshot(Version.of(1)).rowCount());
      for (int i = 2; i <= 4; i++) {
        append(writer, LogTestData.op(i), (i - 1) * 10L, 10);
      }
      // Compaction (version 5), then expiry deletes the entries 2..4 the reader never read.
      writerEngine.maintain(location, new dev.lake.engine.MaintenancePolicy(64L << 20, 2, 1,
          java.time.Duration.ZERO));
      assertEquals(40, reader.snapshot(Version.of(5)).rowCount());
      assertThrows(dev.lake.engine.VersionNotFoundException.class,
          () -> reader.snapshot(Version.of(6)));
    }
  }

  @Test
  void everyTypeRoundTripsWithNullsAcrossBlocksAndSegments() throws IOException {
    TableLocation location = TableLocation.of(dir.resolve("t"));
    try (TableEngine engine = LogTestData.engine(100, 8 * 1024);
        TableHandle table = engine.create(location, ALL_TYPES)) {
      Version v = append(table, LogTestData.op(1), 0, 250, 1, 777, 100);
      assertEquals(Version.of(1), v);
      Snapshot snapshot = table.latestSnapshot();
      assertEquals(1128, snapshot.rowCount());
      ScanRequest all = ScanRequest.of(LogTestData.columnNames(ALL_TYPES));
      Snapshot.ScanPlan plan = snapshot.plan(all);
      assertTrue(plan.units().size() > 1, "expected several segments, got " + plan.units().size());
      assertEquals(12, plan.blocksTotal());
      assertEquals(0, plan.blocksPruned());
      List<List<Object>> rows = LogTestData.readAll(snapshot, all, allocator);
      assertEquals(1128, rows.size());
      for (int id = 0; id < rows.size(); id++) {
        assertEquals(LogTestData.expectedRow(all.columns(), id), rows.get(id), "row " + id);
      }
    }
  }

  @Test
  void columnStatisticsMergeEveryBlockFooterOfTheVersion() throws IOException {
    try (TableEngine engine = LogTestData.engine(64, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir), ALL_TYPES)) {
      append(table, LogTestData.op(1), 0, 250);
      append(table, LogTestData.op(2), 1000, 100);
      Snapshot snapshot = table.latestSnapshot();
      for (String column : List.of("id", "i32", "day", "f64", "name")) {
        long nulls = 0;
        Comparable<Object> min = null;
        Comparable<Object> max = null;
        for (long id : java.util.stream.LongStream.concat(
            java.util.stream.LongStream.range(0, 250), java.util.stream.LongStream.range(1000, 1100)).toArray()) {
          Object v = LogTestData.value(column, id);
          if (v == null) {
            nulls++;
            continue;
          }
          @SuppressWarnings("unchecked")
          Comparable<Object> n = (Comparable<Object>) (Object) (v instanceof Number x && !(v instanceof Double)
              ? Long.valueOf(x.longValue()) : v);
          min = min == null || n.compareTo(min) < 0 ? n : min;
          max = max == null || n.compareTo(max) > 0 ? n : max;
        }
        dev.lake.engine.ColumnStatistics stats = snapshot.statistics(column).orElseThrow();
        assertEquals(nulls, stats.nullCount(), column);
        if (column.equals("name")) {
          assertEquals(null, stats.min(), "strings have no numeric bounds");
        } else {
          assertEquals(min, stats.min(), column);
          assertEquals(max, stats.max(), column);
        }
      }
      assertEquals(java.util.OptionalLong.of(1100), snapshot.statistics("id").orElseThrow().integralRange());
      org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> snapshot.statistics("nope"));
    }
  }

  @Test
  void scanReturnsOnlyRequestedColumnsInRequestedOrder() throws IOException {
    try (TableEngine engine = LogTestData.engine(64, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir), ALL_TYPES)) {
      append(table, LogTestData.op(1), 0, 300);
      List<String> columns = List.of("name", "id", "amount", "flag");
      ScanRequest request = ScanRequest.of(columns);
      Snapshot snapshot = table.latestSnapshot();
      for (var unit : snapshot.plan(request).units()) {
        try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
          assertEquals(columns, LogTestData.columnNames(reader.getVectorSchemaRoot().getSchema()));
        }
      }
      List<List<Object>> rows = LogTestData.readAll(snapshot, request, allocator);
      assertEquals(300, rows.size());
      for (int id = 0; id < 300; id++) {
        assertEquals(LogTestData.expectedRow(columns, id), rows.get(id));
      }
      assertEquals(300, LogTestData.readAll(snapshot, ScanRequest.of(List.of()), allocator).size());
    }
  }

  @Test
  void narrowRangeOnSortedColumnReadsFewBlocks() throws IOException {
    try (TableEngine engine = LogTestData.engine(1000, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir), ALL_TYPES)) {
      append(table, LogTestData.op(1), 0, 40_000, 60_000);
      Snapshot snapshot = table.latestSnapshot();
      ArrowType int64 = new ArrowType.Int(64, true);
      ScanRequest request = ScanRequest.of(List.of("id")).withFilter(new Between(
          new ColumnRef("id"), new Literal(int64, 50_000L), new Literal(int64, 50_999L)));
      Snapshot.ScanPlan plan = snapshot.plan(request);
      assertEquals(100, plan.blocksTotal());
      assertEquals(99, plan.blocksPruned());
      List<List<Object>> rows = LogTestData.readAll(snapshot, request, allocator);
      assertEquals(1000, rows.size());
      assertEquals(50_000L, rows.getFirst().getFirst());
      assertEquals(50_999L, rows.getLast().getFirst());
    }
  }

  @Test
  void snapshotOfAnEarlierVersionSeesOnlyItsAppends() throws IOException {
    try (TableEngine engine = LogTestData.engine(128, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir), ALL_TYPES)) {
      append(table, LogTestData.op(1), 0, 100);
      append(table, LogTestData.op(2), 100, 200);
      append(table, LogTestData.op(3), 300, 300);
      assertEquals(Version.of(3), table.currentVersion());
      assertEquals(0, table.snapshot(Version.INITIAL).rowCount());
      assertEquals(0, LogTestData.readAll(table.snapshot(Version.INITIAL), ScanRequest.of(List.of("id")), allocator).size());
      Snapshot first = table.snapshot(Version.of(1));
      List<List<Object>> rows = LogTestData.readAll(first, ScanRequest.of(List.of("id")), allocator);
      assertEquals(100, rows.size());
      assertEquals(99L, rows.getLast().getFirst());
      assertEquals(300, table.snapshot(Version.of(2)).rowCount());
      assertEquals(600, table.latestSnapshot().rowCount());
    }
  }

  @Test
  void freshEngineSeesEveryVersionAndOperation() throws IOException {
    TableLocation location = TableLocation.of(dir);
    List<AppendOperation> ops = List.of(LogTestData.op(1), LogTestData.op(2));
    try (TableEngine engine = LogTestData.engine(128, 1 << 20);
        TableHandle table = engine.create(location, ALL_TYPES)) {
      append(table, ops.get(0), 0, 10);
      append(table, ops.get(1), 10, 20);
    }
    try (TableEngine engine = LogTestData.engine(128, 1 << 20);
        TableHandle table = engine.open(location).orElseThrow()) {
      assertEquals(Version.of(2), table.currentVersion());
      assertEquals(ALL_TYPES, table.schema());
      List<VersionInfo> versions = table.versions();
      assertEquals(3, versions.size());
      assertEquals(Optional.empty(), versions.get(0).operation());
      assertEquals(Optional.of(ops.get(0)), versions.get(1).operation());
      assertEquals(Optional.of(ops.get(1)), versions.get(2).operation());
      List<List<Object>> rows = LogTestData.readAll(
          table.latestSnapshot(), ScanRequest.of(LogTestData.columnNames(ALL_TYPES)), allocator);
      assertEquals(30, rows.size());
      for (int id = 0; id < 30; id++) {
        assertEquals(LogTestData.expectedRow(LogTestData.columnNames(ALL_TYPES), id), rows.get(id));
      }
    }
  }

  @Test
  void replayOfACommittedOperationReturnsItsVersionWithoutWriting() throws IOException {
    try (TableEngine engine = LogTestData.engine(128, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir), ALL_TYPES)) {
      AppendOperation op = LogTestData.op(7);
      assertEquals(Optional.empty(), table.reconcileAppend(op));
      assertEquals(Version.of(1), append(table, op, 0, 10));
      long segments = countSegments();
      assertEquals(Version.of(1), append(table, op, 0, 10));
      assertEquals(Version.of(1), table.currentVersion());
      assertEquals(segments, countSegments());
      assertEquals(Optional.of(Version.of(1)), table.reconcileAppend(op));
      assertEquals(10, table.latestSnapshot().rowCount());
    }
  }

  @Test
  void replayWithDifferentDigestIsConflict() throws IOException {
    try (TableEngine engine = LogTestData.engine(128, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir), ALL_TYPES)) {
      UUID id = UUID.randomUUID();
      append(table, LogTestData.op(id, "a"), 0, 10);
      assertThrows(CommitConflictException.class, () -> append(table, LogTestData.op(id, "b"), 0, 10));
      assertThrows(CommitConflictException.class, () -> table.reconcileAppend(LogTestData.op(id, "b")));
      assertEquals(Version.of(1), table.currentVersion());
    }
  }

  @Test
  void serviceLoaderFindsTheLogEngine() {
    TableEngineFactory factory = ServiceLoader.load(TableEngineFactory.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log"))
        .findFirst()
        .orElseThrow();
    try (TableEngine engine = factory.create(Map.of())) {
      assertEquals("log", engine.name());
    }
  }

  @Test
  void invalidPropertyIsRejectedNamingIt() {
    var e = assertThrows(dev.lake.engine.EngineException.class,
        () -> new LogEngineFactory().create(Map.of("log.block.rows", "zero")));
    assertTrue(e.getMessage().contains("log.block.rows"), e.getMessage());
  }

  @Test
  void dropRemovesTheTableAndIsIdempotent() throws IOException {
    TableLocation location = TableLocation.of(dir.resolve("t"));
    try (TableEngine engine = LogTestData.engine(128, 1 << 20)) {
      try (TableHandle table = engine.create(location, ALL_TYPES)) {
        append(table, LogTestData.op(1), 0, 10);
      }
      engine.drop(location);
      assertTrue(Files.notExists(dir.resolve("t")));
      engine.drop(location);
      assertEquals(Optional.empty(), engine.open(location));
      try (TableHandle again = engine.create(location, ALL_TYPES)) {
        assertEquals(Version.INITIAL, again.currentVersion());
      }
    }
  }

  @Test
  void unsupportedColumnTypeIsRejectedAtCreate() {
    var schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        LogTestData.nullable("x", new ArrowType.Interval(org.apache.arrow.vector.types.IntervalUnit.DAY_TIME))));
    try (TableEngine engine = LogTestData.engine(128, 1 << 20)) {
      assertThrows(IllegalArgumentException.class, () -> engine.create(TableLocation.of(dir), schema));
      assertEquals(Optional.empty(), engine.open(TableLocation.of(dir)));
    }
  }

  private long countSegments() throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir.resolve("data"))) {
      s.forEach(files::add);
    }
    return files.size();
  }
}
