package dev.lake.engine.lance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.CapabilityNotSupportedException;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.MaintenancePolicy;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import dev.lake.engine.expr.And;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Comparison;
import dev.lake.engine.expr.In;
import dev.lake.engine.expr.IsNull;
import dev.lake.engine.expr.Literal;
import dev.lake.engine.expr.Not;
import dev.lake.engine.expr.Or;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.LongStream;
import dev.lake.engine.RecordBatchReader;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LanceEngineTest {

  static TableEngine engine;
  @TempDir Path dir;
  BufferAllocator allocator;

  @BeforeAll
  static void startEngine() {
    engine = ServiceLoader.load(TableEngineFactory.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("lance"))
        .findFirst().orElseThrow()
        .create(Map.of("lance.file.max-rows", "1000"));
  }

  @AfterAll
  static void stopEngine() {
    engine.close();
  }

  @BeforeEach
  void allocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void allocatorClosesClean() {
    allocator.close(); // throws if a test leaked a buffer
  }

  TableLocation location(String name) {
    return TableLocation.of(dir.resolve(name));
  }

  Version append(TableHandle table, long from, int count) throws Exception {
    try (ArrowReader rows = TestData.rows(allocator, from, count, 700)) {
      return table.append(TestData.operation("rows " + from + "+" + count), rows);
    }
  }

  static ScanRequest all() {
    return ScanRequest.of(List.of("id", "name", "score"));
  }

  static Literal i64(long v) {
    return new Literal(new ArrowType.Int(64, true), v);
  }

  @Test
  void createAppendScanGivesOneVersionPerAppend() throws Exception {
    try (TableHandle t = engine.create(location("t"), TestData.SCHEMA)) {
      assertEquals(Version.INITIAL, t.currentVersion());
      assertEquals(0, t.latestSnapshot().rowCount());
      assertEquals(Version.of(1), append(t, 0, 2500));
      assertEquals(Version.of(2), append(t, 2500, 500));
      Snapshot s = t.latestSnapshot();
      assertEquals(3000, s.rowCount());
      assertEquals(4, s.plan(all()).units().size(), "2500 rows at 1000 per file, then 500");
      assertEquals(LongStream.range(0, 3000).boxed().toList(), TestData.ids(s, all(), allocator).stream().sorted().toList());
      assertEquals(List.of(Version.of(0), Version.of(1), Version.of(2)),
          t.versions().stream().map(VersionInfo::version).toList());
    }
  }

  @Test
  void batchesWithMisalignedBuffersAreAppendedIntact() throws Exception {
    // Every buffer of the batch starts 1 byte past a 16-byte boundary, as a log block's column
    // buffers may: Lance's reader would abort the process on them, so they are copied aligned.
    List<ArrowRecordBatch> misaligned = new ArrayList<>();
    try (ArrowReader rows = TestData.rows(allocator, 0, 300, 300)) {
      rows.loadNextBatch();
      try (ArrowRecordBatch batch = new VectorUnloader(rows.getVectorSchemaRoot()).getRecordBatch()) {
        long size = 0;
        for (ArrowBuf b : batch.getBuffers()) {
          size += 1 + b.readableBytes() + 15;
        }
        List<ArrowBuf> slices = new ArrayList<>();
        try (ArrowBuf block = allocator.buffer(size + 16)) {
          long at = (16 - block.memoryAddress() % 16) % 16;
          for (ArrowBuf b : batch.getBuffers()) {
            long start = at + 1;
            block.setBytes(start, b, 0, b.readableBytes());
            ArrowBuf slice = block.slice(start, b.readableBytes());
            assertEquals(1, slice.memoryAddress() % 16);
            slices.add(slice);
            at = (start + b.readableBytes() + 15) / 16 * 16;
          }
          misaligned.add(new ArrowRecordBatch(batch.getLength(), batch.getNodes(), slices));
        }
      }
    }
    try (TableHandle t = engine.create(location("t"), TestData.SCHEMA)) {
      try (ArrowReader rows = new RecordBatchReader(allocator, TestData.SCHEMA, misaligned)) {
        assertEquals(Version.of(1), t.append(TestData.operation("misaligned"), rows));
      }
      Snapshot s = t.latestSnapshot();
      assertEquals(300, s.rowCount());
      assertEquals(LongStream.range(0, 300).boxed().toList(), TestData.ids(s, all(), allocator).stream().sorted().toList());
      List<String> names = new ArrayList<>();
      double scores = 0;
      for (var unit : s.plan(all()).units()) {
        try (ArrowReader reader = s.open(unit, all(), allocator)) {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            for (int i = 0; i < root.getRowCount(); i++) {
              names.add(String.valueOf(root.getVector("name").getObject(i)));
              scores += ((Float8Vector) root.getVector("score")).get(i);
            }
          }
        }
      }
      assertEquals(30, names.stream().filter("null"::equals).count());
      assertTrue(names.contains("row-299") && names.contains("row-1"), names.toString());
      assertEquals(22425.0, scores, "score = id / 2 over ids 0..299");
    }
  }

  @Test
  void snapshotOfOldVersionIsTimeTravel() throws Exception {
    try (TableHandle t = engine.create(location("t"), TestData.SCHEMA)) {
      append(t, 0, 100);
      append(t, 100, 100);
      Snapshot v1 = t.snapshot(Version.of(1));
      assertEquals(100, v1.rowCount());
      assertEquals(LongStream.range(0, 100).boxed().toList(), TestData.ids(v1, all(), allocator));
      var e = assertThrows(dev.lake.engine.VersionNotFoundException.class, () -> t.snapshot(Version.of(7)));
      assertFalse(e.expired());
    }
  }

  @Test
  void filterAndProjectionArePushedIntoLance() throws Exception {
    try (TableHandle t = engine.create(location("t"), TestData.SCHEMA)) {
      append(t, 0, 3000);
      Snapshot s = t.latestSnapshot();
      ScanRequest req = ScanRequest.of(List.of("name", "id"))
          .withFilter(new And(List.of(
              new Comparison(Comparison.Op.GE, new ColumnRef("id"), i64(100)),
              new Comparison(Comparison.Op.LT, new ColumnRef("id"), i64(120)),
              new Not(new IsNull(new ColumnRef("name"))))));
      List<Long> ids = new ArrayList<>();
      for (var unit : s.plan(req).units()) {
        try (ArrowReader r = s.open(unit, req, allocator)) {
          while (r.loadNextBatch()) {
            var root = r.getVectorSchemaRoot();
            assertEquals(List.of("name", "id"), root.getSchema().getFields().stream().map(f -> f.getName()).toList());
            for (int i = 0; i < root.getRowCount(); i++) {
              ids.add(((BigIntVector) root.getVector(1)).get(i));
              assertEquals("row-" + ids.getLast(), new String(((VarCharVector) root.getVector(0)).get(i)));
            }
          }
        }
      }
      List<Long> expected = LongStream.range(100, 120).filter(v -> v % 10 != 0).boxed().toList();
      assertEquals(expected, ids);
      ScanRequest orIn = ScanRequest.of(List.of("id")).withFilter(new Or(List.of(
          new In(new ColumnRef("id"), List.of(i64(5), i64(2999))),
          new Comparison(Comparison.Op.EQ, new ColumnRef("name"), new Literal(new ArrowType.Utf8(), "row-'7'")),
          new Comparison(Comparison.Op.LT, new ColumnRef("score"),
              new Literal(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), 1.0)))));
      assertEquals(List.of(0L, 1L, 5L, 2999L), TestData.ids(s, orIn, allocator).stream().sorted().toList());
    }
  }

  @Test
  void untranslatableFilterPartsAreLeftToTheExecutorAndLimitIsHonoured() throws Exception {
    try (TableHandle t = engine.create(location("t"), TestData.SCHEMA)) {
      append(t, 0, 500);
      Snapshot s = t.latestSnapshot();
      // a string literal against a numeric column is not translated: the AND keeps only id < 50
      ScanRequest req = ScanRequest.of(List.of("id")).withFilter(new And(List.of(
          new Comparison(Comparison.Op.LT, new ColumnRef("id"), i64(50)),
          new Comparison(Comparison.Op.EQ, new ColumnRef("id"), new Literal(new ArrowType.Utf8(), "x")))))
          .withLimit(5);
      assertEquals(50, TestData.ids(s, req, allocator).size(), "a limit is not pushed with a partial filter");
      ScanRequest exact = ScanRequest.of(List.of("id"))
          .withFilter(new Comparison(Comparison.Op.LT, new ColumnRef("id"), i64(50))).withLimit(5);
      assertEquals(5, TestData.ids(s, exact, allocator).size());
      ScanRequest none = ScanRequest.of(List.of());
      long rows = 0;
      for (var unit : s.plan(none).units()) {
        try (ArrowReader r = s.open(unit, none, allocator)) {
          while (r.loadNextBatch()) {
            rows += r.getVectorSchemaRoot().getRowCount();
          }
        }
      }
      assertEquals(500, rows);
    }
  }

  @Test
  void takeReadsRowsByPositionInRequestedOrder() throws Exception {
    try (TableHandle t = engine.create(location("t"), TestData.SCHEMA)) {
      append(t, 0, 2500);
      Snapshot s = t.latestSnapshot();
      List<Long> got = new ArrayList<>();
      try (ArrowReader r = s.take(new long[] {2499, 3, 1500, 3}, List.of("id", "name"), allocator)) {
        while (r.loadNextBatch()) {
          BigIntVector id = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
          for (int i = 0; i < r.getVectorSchemaRoot().getRowCount(); i++) {
            got.add(id.get(i));
          }
        }
      }
      assertEquals(List.of(2499L, 3L, 1500L, 3L), got);
      assertThrows(IndexOutOfBoundsException.class, () -> s.take(new long[] {2500}, List.of("id"), allocator));
    }
  }

  @Test
  void takeIsRefusedByEnginesWithoutRandomAccess() {
    Snapshot plain = new Snapshot() {
      public Version version() { return Version.INITIAL; }
      public org.apache.arrow.vector.types.pojo.Schema schema() { return TestData.SCHEMA; }
      public long rowCount() { return 0; }
      public ScanPlan plan(ScanRequest r) { return new ScanPlan(List.of(), 0, 0); }
      public ArrowReader open(dev.lake.engine.ScanUnit u, ScanRequest r, BufferAllocator a) { throw new AssertionError(); }
    };
    assertThrows(CapabilityNotSupportedException.class, () -> plain.take(new long[] {0}, List.of("id"), allocator));
  }

  @Test
  void replayReturnsTheOriginalVersionAndADifferentDigestIsAConflict() throws Exception {
    TableLocation loc = location("t");
    try (TableHandle t = engine.create(loc, TestData.SCHEMA)) {
      AppendOperation op = TestData.operation("payload");
      try (ArrowReader rows = TestData.rows(allocator, 0, 10, 10)) {
        assertEquals(Version.of(1), t.append(op, rows));
      }
      try (ArrowReader rows = TestData.rows(allocator, 0, 10, 10)) {
        assertEquals(Version.of(1), t.append(op, rows), "an identical replay writes nothing");
      }
      assertEquals(10, t.latestSnapshot().rowCount());
      AppendOperation forged = new AppendOperation(op.tenant(), op.table(), op.operationId(), "0".repeat(64));
      try (ArrowReader rows = TestData.rows(allocator, 0, 10, 10)) {
        assertThrows(CommitConflictException.class, () -> t.append(forged, rows));
      }
      try (TableHandle fresh = engine.open(loc).orElseThrow()) {
        assertEquals(Version.of(1), fresh.reconcileAppend(op).orElseThrow(),
            "a new handle finds the commit from the transaction properties");
        assertTrue(fresh.reconcileAppend(TestData.operation("never")).isEmpty());
        assertEquals(op, fresh.versions().get(1).operation().orElseThrow());
      }
    }
  }

  @Test
  void appendWithoutRowsIsRejected() throws Exception {
    try (TableHandle t = engine.create(location("t"), TestData.SCHEMA);
        ArrowReader rows = TestData.rows(allocator, 0, 0, 10)) {
      assertThrows(IllegalArgumentException.class, () -> t.append(TestData.operation("none"), rows));
      assertEquals(Version.INITIAL, t.currentVersion());
    }
  }

  @Test
  void schemaMismatchIsAPreciseErrorAndWritesNothing() throws Exception {
    var other = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        org.apache.arrow.vector.types.pojo.Field.notNullable("id", new ArrowType.Int(32, true))));
    try (TableHandle t = engine.create(location("t"), other);
        ArrowReader rows = TestData.rows(allocator, 0, 10, 10)) {
      var e = assertThrows(dev.lake.engine.SchemaMismatchException.class, () -> t.append(TestData.operation("x"), rows));
      assertTrue(e.getMessage().contains("column 'id' is Int(32, true) in the table but Int(64, true)"), e.getMessage());
      assertEquals(Version.INITIAL, t.currentVersion());
    }
  }

  @Test
  void aPathThatIsNotALanceDatasetIsACorruptTable() throws Exception {
    Path junk = dir.resolve("junk");
    java.nio.file.Files.createDirectories(junk);
    java.nio.file.Files.writeString(junk.resolve("notes.txt"), "not lance");
    var e = assertThrows(dev.lake.engine.CorruptTableException.class, () -> engine.open(TableLocation.of(junk)));
    assertTrue(e.getMessage().contains("not a Lance dataset"), e.getMessage());
    assertTrue(engine.open(location("absent")).isEmpty());
  }

  @Test
  void createOverAnExistingDatasetIsTableExists() {
    engine.create(location("t"), TestData.SCHEMA).close();
    assertThrows(dev.lake.engine.TableExistsException.class, () -> engine.create(location("t"), TestData.SCHEMA));
    assertThrows(IllegalArgumentException.class,
        () -> engine.create(location("u"), new org.apache.arrow.vector.types.pojo.Schema(List.of())));
  }

  @Test
  void expiredVersionIsAClearErrorAndCompactionKeepsTheRows() throws Exception {
    TableLocation loc = location("t");
    try (TableHandle t = engine.create(loc, TestData.SCHEMA)) {
      for (int i = 0; i < 5; i++) {
        append(t, i * 100L, 100);
      }
      assertEquals(5, t.latestSnapshot().plan(all()).units().size());
      Version compacted = engine.maintain(loc, MaintenancePolicy.compactOnly(64L << 20, 2)).orElseThrow();
      assertTrue(compacted.compareTo(Version.of(5)) > 0);
      Snapshot s = t.latestSnapshot();
      assertEquals(compacted, s.version());
      assertEquals(1, s.plan(all()).units().size());
      assertEquals(LongStream.range(0, 500).boxed().toList(), TestData.ids(s, all(), allocator).stream().sorted().toList());
      assertTrue(engine.maintain(loc, MaintenancePolicy.compactOnly(64L << 20, 2)).isEmpty(), "nothing left to compact");

      engine.maintain(loc, MaintenancePolicy.expireOnly(1, Duration.ZERO));
      assertEquals(List.of(compacted), t.versions().stream().map(VersionInfo::version).toList());
      var e = assertThrows(dev.lake.engine.VersionNotFoundException.class, () -> t.snapshot(Version.of(2)));
      assertTrue(e.expired(), e.getMessage());
      assertEquals(500, t.latestSnapshot().rowCount());
      assertEquals(Version.of(compacted.number() + 1), append(t, 500, 1));
    }
    assertThrows(dev.lake.engine.VersionNotFoundException.class,
        () -> engine.maintain(location("absent"), MaintenancePolicy.expireOnly(1, Duration.ZERO)));
  }

  @Test
  void dropRemovesTheDatasetAndIsIdempotent() throws Exception {
    TableLocation loc = location("t");
    try (TableHandle t = engine.create(loc, TestData.SCHEMA)) {
      append(t, 0, 10);
    }
    engine.drop(loc);
    assertFalse(java.nio.file.Files.exists(loc.localPath()));
    assertTrue(engine.open(loc).isEmpty());
    engine.drop(loc);
  }

  @Test
  void concurrentAppendersLoseNoCommit() throws Exception {
    TableLocation loc = location("t");
    engine.create(loc, TestData.SCHEMA).close();
    int writers = 8;
    int appendsEach = 3;
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.Set<Version> versions = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
    for (int w = 0; w < writers; w++) {
      int writer = w;
      threads.add(Thread.ofPlatform().start(() -> {
        try (TableHandle t = engine.open(loc).orElseThrow()) {
          start.await();
          for (int i = 0; i < appendsEach; i++) {
            long from = (writer * appendsEach + i) * 10L;
            try (ArrowReader rows = TestData.rows(allocator, from, 10, 10)) {
              versions.add(t.append(TestData.operation("w" + writer + "i" + i), rows));
            }
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      }));
    }
    start.countDown();
    for (Thread th : threads) {
      th.join(60_000);
    }
    assertEquals(List.of(), failures);
    assertEquals(writers * appendsEach, versions.size(), "every append got its own version");
    try (TableHandle t = engine.open(loc).orElseThrow()) {
      assertEquals(Version.of(writers * appendsEach), t.currentVersion());
      assertEquals(LongStream.range(0, writers * appendsEach * 10L).boxed().toList(),
          TestData.ids(t.latestSnapshot(), all(), allocator).stream().sorted().toList());
    }
  }
}
