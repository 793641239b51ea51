package dev.lake.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.expr.And;
import dev.lake.engine.expr.Between;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Comparison;
import dev.lake.engine.expr.Expression;
import dev.lake.engine.expr.In;
import dev.lake.engine.expr.IsNull;
import dev.lake.engine.expr.Literal;
import dev.lake.engine.expr.Not;
import dev.lake.engine.expr.Or;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link TableEngine} must show. A subclass names the engine and where fresh
 * tables go; every test here then runs against it. Engines are expected to be on real storage
 * (a directory, an S3-compatible server), never a mock.
 *
 * <p>Rows of the contract table {@code (id bigint not null, name utf8, score double)} are a
 * function of {@code id}: {@code name} is {@code "n<id>"} or null when {@code id % 7 == 0},
 * {@code score} is {@code id / 2}. Empty appends must throw {@link IllegalArgumentException};
 * everything else that fails is an {@link EngineException} subclass named in the SPI.
 */
public abstract class TableEngineContract {

  protected static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

  private static final ArrowType INT64 = new ArrowType.Int(64, true);

  protected BufferAllocator allocator;
  private TableEngine engine;

  /** A new engine; closed after each test. */
  protected abstract TableEngine newEngine();

  /** A location no table has used, on the storage under test. */
  protected abstract TableLocation freshLocation();

  /**
   * Whether {@link TableEngine#maintain} compacts and expires; an engine that does not must
   * refuse it with {@link CapabilityNotSupportedException}.
   */
  protected abstract boolean supportsMaintenance();

  /** Rows per append in the pruning test; engines with large minimum block sizes may raise it. */
  protected int pruningRowsPerAppend() {
    return 5_000;
  }

  protected final TableEngine engine() {
    return engine;
  }

  @BeforeEach
  void startContract() {
    allocator = new RootAllocator();
    engine = newEngine();
  }

  @AfterEach
  void stopContract() {
    engine.close();
    long leaked = allocator.getAllocatedMemory();
    allocator.close();
    assertEquals(0, leaked, "buffers leaked");
  }

  // ---- create, open, drop

  @Test
  void createdTableOpensAtInitialVersionWithItsSchemaAndNoRows() {
    TableLocation location = freshLocation();
    engine.create(location, SCHEMA).close();
    try (TableHandle table = engine.open(location).orElseThrow()) {
      assertEquals(Version.INITIAL, table.currentVersion());
      assertEquals(SCHEMA.getFields(), table.schema().getFields());
      assertEquals(0, table.latestSnapshot().rowCount());
      assertEquals(List.of(), readIds(table.latestSnapshot(), ScanRequest.of(List.of("id"))));
    }
  }

  @Test
  void openOfAnEmptyLocationIsEmpty() {
    assertTrue(engine.open(freshLocation()).isEmpty());
  }

  @Test
  void createOverAnExistingTableIsTableExistsAndChangesNothing() {
    TableLocation location = freshLocation();
    try (TableHandle table = engine.create(location, SCHEMA)) {
      append(table, op(1), 0, 10);
    }
    assertThrows(TableExistsException.class, () -> engine.create(location, SCHEMA));
    try (TableHandle table = engine.open(location).orElseThrow()) {
      assertEquals(Version.of(1), table.currentVersion());
      assertEquals(10, table.latestSnapshot().rowCount());
    }
  }

  @Test
  void dropRemovesTheTableAndIsIdempotent() {
    TableLocation location = freshLocation();
    try (TableHandle table = engine.create(location, SCHEMA)) {
      append(table, op(1), 0, 10);
    }
    engine.drop(location);
    assertTrue(engine.open(location).isEmpty());
    engine.drop(location);
    engine.create(location, SCHEMA).close();
  }

  // ---- append, versions, time travel

  @Test
  void eachAppendIsOneVersionAndEveryVersionStaysReadable() {
    TableLocation location = freshLocation();
    try (TableHandle table = engine.create(location, SCHEMA)) {
      assertEquals(Version.of(1), append(table, op(1), 0, 100));
      assertEquals(Version.of(2), append(table, op(2), 100, 50));
      assertEquals(Version.of(3), append(table, op(3), 150, 1));
    }
    try (TableEngine other = newEngine(); TableHandle table = other.open(location).orElseThrow()) {
      assertEquals(Version.of(3), table.currentVersion());
      long[] expected = {0, 100, 150, 151};
      for (int v = 0; v <= 3; v++) {
        Snapshot s = table.snapshot(Version.of(v));
        assertEquals(Version.of(v), s.version());
        assertEquals(expected[v], s.rowCount(), "rowCount of version " + v);
        assertEquals(range(0, expected[v]), sorted(readIds(s, ScanRequest.of(List.of("id")))),
            "rows of version " + v);
      }
    }
  }

  @Test
  void versionsListTimestampsAndOperationsOldestFirst() {
    TableLocation location = freshLocation();
    try (TableHandle table = engine.create(location, SCHEMA)) {
      append(table, op(1), 0, 5);
      append(table, op(2), 5, 5);
      List<VersionInfo> versions = table.versions();
      assertEquals(List.of(Version.of(0), Version.of(1), Version.of(2)),
          versions.stream().map(VersionInfo::version).toList());
      assertEquals(Optional.empty(), versions.get(0).operation());
      assertEquals(Optional.of(op(1)), versions.get(1).operation());
      assertEquals(Optional.of(op(2)), versions.get(2).operation());
      assertFalse(versions.get(2).committedAt().isBefore(versions.get(1).committedAt()));
    }
  }

  @Test
  void rowCountIsExactWithNullsAndManyAppends() {
    try (TableHandle table = engine.create(freshLocation(), SCHEMA)) {
      long total = 0;
      for (int i = 1; i <= 6; i++) {
        append(table, op(i), total, i * 37);
        total += i * 37;
      }
      assertEquals(total, table.latestSnapshot().rowCount());
      assertEquals(total, readIds(table.latestSnapshot(), ScanRequest.of(List.of("id"))).size());
    }
  }

  @Test
  void snapshotOfAFutureVersionIsNeverCommittedNotExpired() {
    try (TableHandle table = engine.create(freshLocation(), SCHEMA)) {
      VersionNotFoundException e = assertThrows(VersionNotFoundException.class,
          () -> table.snapshot(Version.of(5)));
      assertFalse(e.expired(), e.getMessage());
      assertEquals(Version.of(5), e.version());
    }
  }

  // ---- bad input

  @Test
  void appendWithAnotherSchemaIsSchemaMismatchAndWritesNothing() throws Exception {
    Schema other = new Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
        SCHEMA.getFields().get(1), SCHEMA.getFields().get(2)));
    try (TableHandle table = engine.create(freshLocation(), SCHEMA)) {
      append(table, op(1), 0, 10);
      try (ArrowReader reader = reader(other, 0, 10)) {
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class,
            () -> table.append(op(2), reader));
        assertTrue(e.getMessage().contains("'id'"), e.getMessage());
      }
      assertEquals(Version.of(1), table.currentVersion());
      assertEquals(10, table.latestSnapshot().rowCount());
    }
  }

  @Test
  void appendWithNoColumnsIsSchemaMismatchAndWritesNothing() throws Exception {
    try (TableHandle table = engine.create(freshLocation(), SCHEMA);
        ArrowReader reader = reader(new Schema(List.of()), 0, 0)) {
      assertThrows(SchemaMismatchException.class, () -> table.append(op(1), reader));
      assertEquals(Version.INITIAL, table.currentVersion());
    }
  }

  @Test
  void emptyAppendIsRejectedAndWritesNothing() throws Exception {
    try (TableHandle table = engine.create(freshLocation(), SCHEMA);
        ArrowReader reader = reader(SCHEMA, 0, 0)) {
      assertThrows(IllegalArgumentException.class, () -> table.append(op(1), reader));
      assertEquals(Version.INITIAL, table.currentVersion());
      assertEquals(Optional.empty(), table.reconcileAppend(op(1)));
    }
  }

  // ---- idempotency

  @Test
  void replayOfACommittedOperationReturnsItsVersionAndAddsNoRows() {
    try (TableHandle table = engine.create(freshLocation(), SCHEMA)) {
      Version first = append(table, op(1), 0, 20);
      append(table, op(2), 20, 20);
      assertEquals(first, append(table, op(1), 0, 20));
      assertEquals(Version.of(2), table.currentVersion());
      assertEquals(40, table.latestSnapshot().rowCount());
    }
  }

  @Test
  void replayWithAnotherDigestIsCommitConflict() {
    try (TableHandle table = engine.create(freshLocation(), SCHEMA)) {
      AppendOperation original = op(1);
      append(table, original, 0, 20);
      AppendOperation tampered = new AppendOperation(original.tenant(), original.table(),
          original.operationId(), digest("something else"));
      assertThrows(CommitConflictException.class, () -> append(table, tampered, 0, 20));
      assertEquals(Version.of(1), table.currentVersion());
    }
  }

  @Test
  void reconcileFindsTheVersionOfACommittedOperationAndNothingForOthers() {
    TableLocation location = freshLocation();
    try (TableHandle table = engine.create(location, SCHEMA)) {
      append(table, op(1), 0, 5);
      append(table, op(2), 5, 5);
    }
    try (TableEngine other = newEngine(); TableHandle table = other.open(location).orElseThrow()) {
      assertEquals(Optional.of(Version.of(2)), table.reconcileAppend(op(2)));
      assertEquals(Optional.of(Version.of(1)), table.reconcileAppend(op(1)));
      assertEquals(Optional.empty(), table.reconcileAppend(op(3)));
    }
  }

  // ---- scans

  @Test
  void projectionReturnsOnlyTheRequestedColumnsInTheirOrder() throws Exception {
    try (TableHandle table = engine.create(freshLocation(), SCHEMA)) {
      append(table, op(1), 0, 30);
      Snapshot s = table.latestSnapshot();
      ScanRequest request = ScanRequest.of(List.of("score", "id"));
      List<String> seen = new ArrayList<>();
      for (ScanUnit unit : s.plan(request).units()) {
        try (ArrowReader reader = s.open(unit, request, allocator)) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          assertEquals(List.of("score", "id"),
              root.getSchema().getFields().stream().map(Field::getName).toList());
          while (reader.loadNextBatch()) {
            Float8Vector score = (Float8Vector) root.getVector(0);
            BigIntVector id = (BigIntVector) root.getVector(1);
            for (int i = 0; i < root.getRowCount(); i++) {
              assertEquals(id.get(i) / 2.0, score.get(i));
              seen.add(Long.toString(id.get(i)));
            }
          }
        }
      }
      assertEquals(30, seen.size());
    }
  }

  @Test
  void pruningNeverLosesARowThatMatches() {
    int per = pruningRowsPerAppend();
    try (TableHandle table = engine.create(freshLocation(), SCHEMA)) {
      for (int i = 0; i < 4; i++) {
        append(table, op(i + 1), (long) i * per, per);
      }
      long n = 4L * per;
      Snapshot s = table.latestSnapshot();
      ColumnRef id = new ColumnRef("id");
      record Case(Expression filter, LongPredicate matches) {}
      List<Case> cases = List.of(
          new Case(new Between(id, lit(n / 3), lit(n / 3 + n / 100)), x -> x >= n / 3 && x <= n / 3 + n / 100),
          new Case(new Comparison(Comparison.Op.EQ, id, lit(per)), x -> x == per),
          new Case(new Comparison(Comparison.Op.LT, id, lit(7)), x -> x < 7),
          new Case(new Comparison(Comparison.Op.GE, id, lit(n - 3)), x -> x >= n - 3),
          new Case(new Not(new Comparison(Comparison.Op.LT, id, lit(n - 10))), x -> x >= n - 10),
          new Case(new Or(List.of(new Comparison(Comparison.Op.EQ, id, lit(1)),
              new Comparison(Comparison.Op.EQ, id, lit(n - 1)))), x -> x == 1 || x == n - 1),
          new Case(new In(id, List.of(lit(2), lit(per + 2), lit(n + 50))), x -> x == 2 || x == per + 2),
          new Case(new And(List.of(new Comparison(Comparison.Op.GT, id, lit(10)),
              new IsNull(new ColumnRef("name")))), x -> x > 10 && x % 7 == 0),
          new Case(new Comparison(Comparison.Op.GT, id, lit(n + 5)), x -> false));
      for (Case c : cases) {
        ScanRequest request = ScanRequest.of(List.of("id")).withFilter(c.filter());
        Snapshot.ScanPlan plan = s.plan(request);
        Set<Long> read = new HashSet<>(readIds(s, request));
        for (long x = 0; x < n; x++) {
          if (c.matches().test(x)) {
            assertTrue(read.contains(x), "row " + x + " lost by pruning for " + c.filter());
          }
        }
        assertTrue(plan.blocksPruned() <= plan.blocksTotal());
      }
    }
  }

  // ---- nested columns

  @Test
  void nestedColumnsReadBackExactlyWithNullsAtEveryLevel() throws Exception {
    TableLocation location = freshLocation();
    List<String> all = NestedRows.SCHEMA.getFields().stream().map(Field::getName).toList();
    try (TableHandle table = engine.create(location, NestedRows.SCHEMA)) {
      appendNested(table, op(1), 0, 300);
      appendNested(table, op(2), 300, 250);
    }
    try (TableEngine other = newEngine(); TableHandle table = other.open(location).orElseThrow()) {
      assertEquals(NestedRows.SCHEMA.getFields(), table.schema().getFields());
      Snapshot s = table.latestSnapshot();
      assertEquals(550, s.rowCount());
      assertEquals(range(0, 550), sorted(readNested(s, ScanRequest.of(all))));
      assertEquals(range(0, 300), sorted(readNested(table.snapshot(Version.of(1)), ScanRequest.of(all))));
      assertEquals(range(0, 550),
          sorted(readNested(s, ScanRequest.of(List.of("events", "id", "meta", "embedding")))));
      ScanRequest filtered = ScanRequest.of(List.of("id", "video", "tags"))
          .withFilter(new Between(new ColumnRef("id"), lit(100), lit(120)));
      assertTrue(new HashSet<>(readNested(s, filtered)).containsAll(range(100, 121)),
          "a filter on a flat column of a nested table loses no row");
    }
  }

  private void appendNested(TableHandle table, AppendOperation operation, long first, int rows) {
    try (VectorSchemaRoot root = NestedRows.batch(NestedRows.SCHEMA, allocator, first, rows);
        ArrowReader reader = new RecordBatchReader(allocator, NestedRows.SCHEMA,
            List.of(new VectorUnloader(root).getRecordBatch()))) {
      table.append(operation, reader);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Reads {@code request} (whose columns include {@code id}), checking every value read. */
  private List<Long> readNested(Snapshot snapshot, ScanRequest request) throws java.io.IOException {
    List<Long> ids = new ArrayList<>();
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        assertEquals(request.columns(), root.getSchema().getFields().stream().map(Field::getName).toList());
        while (reader.loadNextBatch()) {
          ids.addAll(NestedRows.assertRows(root));
        }
      }
    }
    return ids;
  }

  // ---- concurrency

  @Test
  void concurrentAppendsGetContiguousVersionsAndEveryBatchExactlyOnce() throws Exception {
    TableLocation location = freshLocation();
    engine.create(location, SCHEMA).close();
    int threads = 4;
    int each = 5;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<Version>>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        results.add(pool.submit(() -> {
          List<Version> got = new ArrayList<>();
          try (TableHandle table = engine.open(location).orElseThrow()) {
            for (int i = 0; i < each; i++) {
              long batch = thread * 100L + i;
              got.add(append(table, op(batch), batch * 10, 10));
            }
          }
          return got;
        }));
      }
      TreeSet<Long> versions = new TreeSet<>();
      for (Future<List<Version>> f : results) {
        for (Version v : f.get()) {
          assertTrue(versions.add(v.number()), "version " + v + " acknowledged twice");
        }
      }
      assertEquals(threads * each, versions.size());
      assertEquals(1L, versions.first());
      assertEquals((long) threads * each, versions.last());
      try (TableHandle table = engine.open(location).orElseThrow()) {
        assertEquals(Version.of(threads * each), table.currentVersion());
        List<Long> ids = sorted(readIds(table.latestSnapshot(), ScanRequest.of(List.of("id"))));
        List<Long> expected = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          for (int i = 0; i < each; i++) {
            expected.addAll(range((t * 100L + i) * 10, (t * 100L + i) * 10 + 10));
          }
        }
        Collections.sort(expected);
        assertEquals(expected, ids);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- maintenance

  @Test
  void compactionCommitsOneVersionWithExactlyTheSameRows() {
    TableLocation location = freshLocation();
    try (TableHandle table = engine.create(location, SCHEMA)) {
      for (int i = 0; i < 6; i++) {
        append(table, op(i + 1), i * 50L, 50);
      }
      List<Long> before = sorted(readIds(table.latestSnapshot(), ScanRequest.of(List.of("id"))));
      MaintenancePolicy policy = MaintenancePolicy.compactOnly(64L << 20, 2);
      if (!supportsMaintenance()) {
        assertThrows(CapabilityNotSupportedException.class, () -> engine.maintain(location, policy));
        assertEquals(Version.of(6), table.currentVersion());
        return;
      }
      Optional<Version> compacted = engine.maintain(location, policy);
      assertEquals(Optional.of(Version.of(7)), compacted);
      assertEquals(Version.of(7), table.currentVersion());
      Snapshot after = table.latestSnapshot();
      assertEquals(300, after.rowCount());
      assertEquals(before, sorted(readIds(after, ScanRequest.of(List.of("id")))));
      assertEquals(range(0, 150), sorted(readIds(table.snapshot(Version.of(3)), ScanRequest.of(List.of("id")))));
      assertEquals(Version.of(8), append(table, op(99), 300, 1));
    }
  }

  @Test
  void expiredVersionIsVersionNotFoundSayingExpiredAndRetainedOnesStayExact() {
    TableLocation location = freshLocation();
    try (TableHandle table = engine.create(location, SCHEMA)) {
      for (int i = 0; i < 5; i++) {
        append(table, op(i + 1), i * 20L, 20);
      }
      MaintenancePolicy policy = new MaintenancePolicy(64L << 20, 2, 2, Duration.ZERO);
      if (!supportsMaintenance()) {
        assertThrows(CapabilityNotSupportedException.class, () -> engine.maintain(location, policy));
        assertEquals(20, readIds(table.snapshot(Version.of(1)), ScanRequest.of(List.of("id"))).size());
        return;
      }
      engine.maintain(location, policy);
    }
    try (TableEngine other = newEngine(); TableHandle table = other.open(location).orElseThrow()) {
      long latest = table.currentVersion().number();
      VersionNotFoundException e = assertThrows(VersionNotFoundException.class,
          () -> table.snapshot(Version.of(1)));
      assertTrue(e.expired(), e.getMessage());
      assertTrue(e.getMessage().contains("expired"), e.getMessage());
      assertEquals(List.of(latest - 1, latest),
          table.versions().stream().map(v -> v.version().number()).toList());
      assertEquals(range(0, 100), sorted(readIds(table.latestSnapshot(), ScanRequest.of(List.of("id")))));
      assertEquals(range(0, 100), sorted(readIds(table.snapshot(Version.of(latest - 1)), ScanRequest.of(List.of("id")))));
      VersionNotFoundException future = assertThrows(VersionNotFoundException.class,
          () -> table.snapshot(Version.of(latest + 1)));
      assertFalse(future.expired());
    }
  }

  @Test
  void readerPinnedToAVersionThatExpiresGetsAnErrorOrItsExactRowsNeverOthers() {
    TableLocation location = freshLocation();
    try (TableHandle table = engine.create(location, SCHEMA)) {
      for (int i = 0; i < 4; i++) {
        append(table, op(i + 1), i * 20L, 20);
      }
      Snapshot pinned = table.snapshot(Version.of(1));
      if (!supportsMaintenance()) {
        assertThrows(CapabilityNotSupportedException.class,
            () -> engine.maintain(location, MaintenancePolicy.expireOnly(1, Duration.ZERO)));
        return;
      }
      // compact first so the segments version 1 reads are no longer live, then expire
      engine.maintain(location, new MaintenancePolicy(64L << 20, 2, 1, Duration.ZERO));
      try {
        assertEquals(range(0, 20), sorted(readIds(pinned, ScanRequest.of(List.of("id")))));
      } catch (VersionNotFoundException e) {
        assertTrue(e.expired(), e.getMessage());
        assertEquals(Version.of(1), e.version());
      }
    }
  }

  @Test
  void maintenanceOfAMissingTableFailsAndCreatesNothing() {
    TableLocation location = freshLocation();
    EngineException e = assertThrows(EngineException.class,
        () -> engine.maintain(location, MaintenancePolicy.compactOnly(1 << 20, 2)));
    if (supportsMaintenance()) {
      assertFalse(e instanceof CapabilityNotSupportedException);
    } else {
      assertInstanceOf(CapabilityNotSupportedException.class, e);
    }
    assertTrue(engine.open(location).isEmpty());
  }

  // ---- helpers for subclasses and tests

  protected static AppendOperation op(long n) {
    return new AppendOperation("contract", "t", new UUID(0x1234, n), digest("batch-" + n));
  }

  protected static String digest(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(d);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Literal lit(long v) {
    return new Literal(INT64, v);
  }

  protected final Version append(TableHandle table, AppendOperation operation, long first, int rows) {
    try (ArrowReader reader = reader(SCHEMA, first, rows)) {
      return table.append(operation, reader);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** One batch of contract rows {@code first .. first+rows-1} with {@code schema}'s columns. */
  protected final ArrowReader reader(Schema schema, long first, int rows) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      for (FieldVector v : root.getFieldVectors()) {
        for (int i = 0; i < rows; i++) {
          long id = first + i;
          switch (v) {
            case BigIntVector b -> b.setSafe(i, id);
            case org.apache.arrow.vector.IntVector b -> b.setSafe(i, (int) id);
            case VarCharVector s -> {
              if (id % 7 == 0) {
                s.setNull(i);
              } else {
                s.setSafe(i, ("n" + id).getBytes(StandardCharsets.UTF_8));
              }
            }
            case Float8Vector f -> f.setSafe(i, id / 2.0);
            default -> throw new IllegalArgumentException("no contract data for " + v.getField());
          }
        }
      }
      root.setRowCount(rows);
      List<org.apache.arrow.vector.ipc.message.ArrowRecordBatch> batches = new ArrayList<>();
      if (rows > 0) {
        batches.add(new VectorUnloader(root).getRecordBatch());
      }
      return new RecordBatchReader(allocator, schema, batches);
    }
  }

  /** Every id a full read of {@code request} (whose columns include {@code id}) returns. */
  protected final List<Long> readIds(Snapshot snapshot, ScanRequest request) {
    List<Long> ids = new ArrayList<>();
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        while (reader.loadNextBatch()) {
          BigIntVector id = (BigIntVector) root.getVector("id");
          for (int i = 0; i < root.getRowCount(); i++) {
            ids.add(id.get(i));
          }
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return ids;
  }

  protected static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }

  protected static List<Long> sorted(List<Long> ids) {
    List<Long> copy = new ArrayList<>(ids);
    Collections.sort(copy);
    return copy;
  }
}
