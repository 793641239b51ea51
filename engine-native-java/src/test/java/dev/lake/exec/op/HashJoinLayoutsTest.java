package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.exec.Batch;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.LongUnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Every join type returns what a nested loop over the same rows returns, whichever index the
 * build side gets: the direct layout (dense integer keys), the bucketed layout (one sparse key) or
 * chains (composite keys whose first key is not selective). Rows are {@code (k1, k2, v)} on both
 * sides, with NULL keys, duplicate keys and negative keys.
 */
class HashJoinLayoutsTest {
  private static final SqlType LONG = SqlType.of(SqlType.Kind.INT64, true);

  @Test
  void denseKeysUseTheDirectLayoutAndMatchANestedLoop() {
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int seed = 0; seed < 6; seed++) {
        List<List<Object>> build = rows(new Random(seed), 300, 60, v -> v - 20);
        List<List<Object>> probe = rows(new Random(seed + 100), 500, 80, v -> v - 30);
        // Each key at most once (the slot holds the row), and a NULL key now and then.
        List<List<Object>> unique = new ArrayList<>();
        for (long k = -20; k < 40; k++) {
          Long key = k % 7 == 0 ? null : k;
          unique.add(Arrays.asList(key, key, k * 3 % 100));
        }
        for (HashJoinOperator.Type type : HashJoinOperator.Type.values()) {
          for (boolean residual : new boolean[] {false, true}) {
            assertJoinMatchesNestedLoop(build, probe, type, 1, residual, allocator, Layout.DIRECT);
            assertJoinMatchesNestedLoop(unique, probe, type, 1, residual, allocator, Layout.DIRECT);
          }
        }
      }
    }
  }

  @Test
  void sparseKeysUseTheBucketedLayoutAndMatchANestedLoop() {
    try (BufferAllocator allocator = new RootAllocator()) {
      LongUnaryOperator spread = v -> v * 1_000_003L - 5;
      List<List<Object>> build = rows(new Random(7), 300, 60, spread);
      List<List<Object>> probe = rows(new Random(8), 500, 80, spread);
      for (HashJoinOperator.Type type : HashJoinOperator.Type.values()) {
        assertJoinMatchesNestedLoop(build, probe, type, 1, true, allocator, Layout.BUCKETED);
        assertJoinMatchesNestedLoop(build, probe, type, 1, false, allocator, Layout.BUCKETED);
      }
    }
  }

  @Test
  void compositeKeysIndexTheSelectiveKeyOrFallBackToChains() {
    try (BufferAllocator allocator = new RootAllocator()) {
      // k1 in 0..3 repeats on most rows: indexing it would walk long runs, so a selective k2 is
      // indexed instead, or, when k2 is sparse, the rows are chained by hash.
      List<List<Object>> build = twoKeys(new Random(11), 400, v -> v);
      List<List<Object>> probe = twoKeys(new Random(12), 400, v -> v);
      List<List<Object>> sparseBuild = twoKeys(new Random(11), 400, v -> v * 1_000_003L);
      List<List<Object>> sparseProbe = twoKeys(new Random(12), 400, v -> v * 1_000_003L);
      for (HashJoinOperator.Type type : HashJoinOperator.Type.values()) {
        for (boolean residual : new boolean[] {false, true}) {
          assertJoinMatchesNestedLoop(build, probe, type, 2, residual, allocator, Layout.DIRECT);
          assertJoinMatchesNestedLoop(sparseBuild, sparseProbe, type, 2, residual, allocator, Layout.CHAINED);
        }
      }
    }
  }

  @Test
  void innerJoinOnUniqueKeysKeepsTheProbeRowsAndSelectsTheMatchedOnes() {
    try (BufferAllocator allocator = new RootAllocator()) {
      List<List<Object>> build = new ArrayList<>();
      for (long k = 0; k < 100; k++) {
        build.add(Arrays.asList(k, k, k * 10));
      }
      // Keys 0..119 and a NULL: 100 of 121 rows match, each once.
      List<List<Object>> probe = new ArrayList<>();
      for (long k = 119; k >= 0; k--) {
        probe.add(Arrays.asList(k, k, k));
      }
      probe.add(Arrays.asList(null, null, 1L));
      JoinSpec spec = spec(HashJoinOperator.Type.INNER, 1, false);
      try (Operator buildInput = values(build, allocator);
          JoinTable table = JoinTable.build(buildInput, spec, 1, allocator);
          HashJoinOperator join = new HashJoinOperator(values(probe, allocator), () -> table, false, spec,
              allocator)) {
        Batch batch = join.next();
        assertEquals(121, batch.root().getRowCount(), "the probe batch's rows, taken over");
        assertEquals(100, batch.count(), "the matched rows, selected");
        for (int i = 0; i < batch.count(); i++) {
          long key = (Long) batch.root().getVector(0).getObject(batch.row(i));
          assertEquals(99 - i, key, "probe order");
          assertEquals(key * 10, batch.root().getVector(5).getObject(batch.row(i)), "build value");
        }
        assertNull(join.next());
      }
      assertJoinMatchesNestedLoop(build, probe, HashJoinOperator.Type.INNER, 1, false, allocator, Layout.DIRECT);
    }
  }

  @Test
  void emptyAndAllNullBuildSidesMatchNothing() {
    try (BufferAllocator allocator = new RootAllocator()) {
      List<List<Object>> probe = rows(new Random(3), 50, 10, v -> v);
      List<List<Object>> allNull = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        allNull.add(Arrays.asList(null, (long) i, (long) i));
      }
      for (HashJoinOperator.Type type : HashJoinOperator.Type.values()) {
        assertJoinMatchesNestedLoop(List.of(), probe, type, 1, false, allocator, null);
        assertJoinMatchesNestedLoop(allNull, probe, type, 1, false, allocator, null);
      }
    }
  }

  @Test
  void aSmallBuildSideSkipsTheProbeRowsItsHashFilterRejectsAndStillMatchesANestedLoop() {
    try (BufferAllocator allocator = new RootAllocator()) {
      LongUnaryOperator spread = v -> v * 1_000_003L - 5;
      // 40 build rows: 30 sparse keys, one of them on 10 rows, and NULLs.
      List<List<Object>> build = rows(new Random(21), 40, 30, spread);
      for (int i = 0; i < 10; i++) {
        build.add(Arrays.asList(spread.applyAsLong(7), spread.applyAsLong(7), (long) i * 9));
      }
      // Probe batches of 6,000 rows whose keys mostly miss: about 1% hit, NULLs among them.
      List<List<List<Object>>> batches = new ArrayList<>();
      Random random = new Random(22);
      for (int b = 0; b < 3; b++) {
        List<List<Object>> batch = new ArrayList<>();
        for (int i = 0; i < 6_000; i++) {
          int pick = random.nextInt(100);
          Long k = pick == 0 ? null : pick == 1 ? spread.applyAsLong(random.nextInt(30))
              : spread.applyAsLong(1_000 + random.nextInt(1_000_000));
          batch.add(Arrays.asList(k, k, (long) random.nextInt(100)));
        }
        batches.add(batch);
      }
      // A last batch where every row hits: the filter stops being used after it.
      List<List<Object>> hits = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        long k = spread.applyAsLong(i % 30);
        hits.add(Arrays.asList(k, k, (long) i % 100));
      }
      batches.add(hits);
      batches.add(batches.get(0));
      for (HashJoinOperator.Type type : HashJoinOperator.Type.values()) {
        for (boolean residual : new boolean[] {false, true}) {
          assertJoinMatchesNestedLoop(build, batches, type, 1, residual, allocator, Layout.BUCKETED, true);
        }
      }
      // Composite keys are chained; the filter covers their combined hash.
      List<List<Object>> twoKeyBuild = twoKeys(new Random(23), 60, spread);
      List<List<Object>> twoKeyProbe = twoKeys(new Random(24), 20_000, v -> spread.applyAsLong(v % 3_000));
      for (HashJoinOperator.Type type : HashJoinOperator.Type.values()) {
        assertJoinMatchesNestedLoop(twoKeyBuild, List.of(twoKeyProbe), type, 2, false, allocator, Layout.CHAINED,
            true);
      }
    }
  }

  @Test
  void aFilteredProbeBatchWhoseMatchesExceedOneOutputContinuesAfterTheLastRowProbed() {
    try (BufferAllocator allocator = new RootAllocator()) {
      // 100 build rows share one sparse key; 1,396 of 60,000 probe rows carry it: 139,600 pairs,
      // more than one output batch holds, so the probe stops inside the filtered rows and resumes.
      long key = 123_456_789_011L;
      List<List<Object>> build = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        build.add(Arrays.asList(key, key, (long) i));
      }
      build.add(Arrays.asList(5L, 5L, 1L));
      List<List<Object>> probe = new ArrayList<>();
      for (int i = 0; i < 60_000; i++) {
        long k = i % 43 == 0 ? key : 1_000_000_000L + i * 7L;
        probe.add(Arrays.asList(k, k, (long) i));
      }
      assertEquals(1_396, probe.stream().filter(r -> r.getFirst().equals(key)).count());
      for (HashJoinOperator.Type type : HashJoinOperator.Type.values()) {
        assertJoinMatchesNestedLoop(build, List.of(probe), type, 1, false, allocator, Layout.BUCKETED, true);
      }
    }
  }

  @Test
  void keptBuildRowsComeInBuildOrderInBatchesOfBoundedSize() {
    try (BufferAllocator allocator = new RootAllocator()) {
      // 150,000 build rows with keys 0..149,999 (a NULL every 1,000th); the probe has the even keys.
      List<List<Object>> build = new ArrayList<>();
      for (long k = 0; k < 150_000; k++) {
        Long key = k % 1_000 == 999 ? null : k;
        build.add(Arrays.asList(key, key, k));
      }
      List<List<Object>> probe = new ArrayList<>();
      for (long k = 0; k < 150_000; k += 2) {
        probe.add(Arrays.asList(k, k, 0L));
      }
      for (HashJoinOperator.Type type : List.of(HashJoinOperator.Type.RIGHT_SEMI, HashJoinOperator.Type.RIGHT_ANTI)) {
        JoinSpec spec = spec(type, 1, false);
        List<Long> values = new ArrayList<>();
        List<Integer> batchSizes = new ArrayList<>();
        try (Operator buildInput = values(build, allocator);
            JoinTable table = JoinTable.build(buildInput, spec, 1, allocator);
            HashJoinOperator join = new HashJoinOperator(values(probe, allocator), () -> table, false, spec,
                allocator)) {
          Batch batch;
          while ((batch = join.next()) != null) {
            batchSizes.add(batch.count());
            for (int i = 0; i < batch.count(); i++) {
              values.add((Long) batch.root().getVector(2).getObject(batch.row(i)));
            }
          }
        }
        List<Long> expected = new ArrayList<>();
        for (long k = 0; k < 150_000; k++) {
          boolean matched = k % 2 == 0 && k % 1_000 != 999;
          if (matched == (type == HashJoinOperator.Type.RIGHT_SEMI)) {
            expected.add(k);
          }
        }
        assertEquals(expected, values, type + ": the kept build rows, in build order");
        assertTrue(batchSizes.size() > 1 && batchSizes.stream().allMatch(n -> n <= HashJoinOperator.BUILD_ROWS_PER_BATCH),
            type + " " + batchSizes);
      }
    }
  }

  @Test
  void aBuildSideOverTheFilterLimitHasNoFilter() {
    try (BufferAllocator allocator = new RootAllocator()) {
      List<List<Object>> build = rows(new Random(31), JoinTable.FILTER_MAX_ROWS + 1, 1 << 30, v -> v * 1_000_003L);
      JoinSpec spec = spec(HashJoinOperator.Type.INNER, 1, false);
      try (Operator input = values(build, allocator); JoinTable table = JoinTable.build(input, spec, 1, allocator)) {
        assertEquals(null, table.hashFilter);
      }
      try (Operator input = values(build.subList(0, 1000), allocator);
          JoinTable table = JoinTable.build(input, spec, 1, allocator)) {
        // 32 bits a row, rounded up to a power of two.
        assertEquals(32_768 / 64, table.hashFilter.length);
      }
    }
  }

  private enum Layout { DIRECT, BUCKETED, CHAINED }

  private static void assertJoinMatchesNestedLoop(List<List<Object>> build, List<List<List<Object>>> probeBatches,
      HashJoinOperator.Type type, int keys, boolean residual, BufferAllocator allocator, Layout layout,
      boolean filtered) {
    JoinSpec spec = spec(type, keys, residual);
    List<List<Object>> actual = new ArrayList<>();
    try (Operator buildInput = values(build, allocator);
        JoinTable table = JoinTable.build(buildInput, spec, 1, allocator)) {
      assertEquals(layout == Layout.BUCKETED, table.bucketStart != null, "bucketed layout");
      assertEquals(layout == Layout.CHAINED, table.head != null, "chained layout");
      assertEquals(filtered, table.hashFilter != null, "hash filter");
      List<Operator> inputs = new ArrayList<>();
      for (List<List<Object>> batch : probeBatches) {
        inputs.add(values(batch, allocator));
      }
      try (HashJoinOperator join = new HashJoinOperator(new UnionAllOperator(inputs), () -> table, false, spec,
          allocator)) {
        actual.addAll(drain(join));
      }
    }
    List<List<Object>> expected = new ArrayList<>();
    if (type.keepsBuildRows() || type == HashJoinOperator.Type.FULL) {
      // Whether a build row is kept depends on every probe batch.
      expected.addAll(nestedLoop(build, probeBatches.stream().flatMap(List::stream).toList(), type, keys, residual));
    } else {
      for (List<List<Object>> batch : probeBatches) {
        expected.addAll(nestedLoop(build, batch, type, keys, residual));
      }
    }
    expected.sort(Comparator.comparing(Object::toString));
    actual.sort(Comparator.comparing(Object::toString));
    assertEquals(expected.size(), actual.size(), type + " keys=" + keys + " residual=" + residual + ": rows");
    assertEquals(expected, actual, type + " keys=" + keys + " residual=" + residual);
  }

  private static void assertJoinMatchesNestedLoop(List<List<Object>> build, List<List<Object>> probe,
      HashJoinOperator.Type type, int keys, boolean residual, BufferAllocator allocator, Layout layout) {
    JoinSpec spec = spec(type, keys, residual);
    List<List<Object>> actual = new ArrayList<>();
    try (Operator buildInput = values(build, allocator);
        JoinTable table = JoinTable.build(buildInput, spec, 1, allocator)) {
      if (layout != null) {
        assertEquals(layout == Layout.DIRECT, table.directFirst != null || table.directStart != null,
            "direct layout");
        assertEquals(layout == Layout.BUCKETED, table.bucketStart != null, "bucketed layout");
        assertEquals(layout == Layout.CHAINED, table.head != null, "chained layout");
      }
      try (HashJoinOperator join = new HashJoinOperator(values(probe, allocator), () -> table, false, spec,
          allocator)) {
        actual.addAll(drain(join));
      }
    }
    List<List<Object>> expected = nestedLoop(build, probe, type, keys, residual);
    if (type == HashJoinOperator.Type.LEFT || type == HashJoinOperator.Type.FULL) {
      // A LEFT join emits a probe batch's matches, then its unmatched rows (FULL: then the
      // unmatched build rows).
      expected.sort(Comparator.comparing(Object::toString));
      actual.sort(Comparator.comparing(Object::toString));
    }
    assertEquals(expected.size(), actual.size(), type + " keys=" + keys + " residual=" + residual + ": rows");
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), actual.get(i), type + " keys=" + keys + " residual=" + residual + ": row " + i);
    }
  }

  /** Whether probe row {@code p} matches build row {@code b}: equal non-null keys, and p.v < b.v. */
  private static boolean matches(List<Object> p, List<Object> b, int keys, boolean residual) {
    boolean match = true;
    for (int k = 0; k < keys; k++) {
      match &= p.get(k) != null && Objects.equals(p.get(k), b.get(k));
    }
    if (match && residual) {
      match = p.get(2) != null && b.get(2) != null && (Long) p.get(2) < (Long) b.get(2);
    }
    return match;
  }

  /** Every row the join returns, in its order. */
  private static List<List<Object>> drain(Operator join) {
    List<List<Object>> rows = new ArrayList<>();
    Batch batch;
    while ((batch = join.next()) != null) {
      for (int i = 0; i < batch.count(); i++) {
        List<Object> row = new ArrayList<>();
        for (int c = 0; c < batch.root().getFieldVectors().size(); c++) {
          row.add(batch.root().getVector(c).getObject(batch.row(i)));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** The reference: for each probe row in order, its matching build rows in order (FULL: then the unmatched build rows). */
  private static List<List<Object>> nestedLoop(List<List<Object>> build, List<List<Object>> probe,
      HashJoinOperator.Type type, int keys, boolean residual) {
    List<List<Object>> out = new ArrayList<>();
    if (type.keepsBuildRows()) {
      // The build rows, in order, that some probe row matches (RIGHT_SEMI) or none does.
      for (List<Object> b : build) {
        boolean any = probe.stream().anyMatch(p -> matches(p, b, keys, residual));
        if (any == (type == HashJoinOperator.Type.RIGHT_SEMI)) {
          out.add(b);
        }
      }
      return out;
    }
    for (List<Object> p : probe) {
      boolean any = false;
      for (List<Object> b : build) {
        if (matches(p, b, keys, residual)) {
          any = true;
          if (type == HashJoinOperator.Type.INNER || type == HashJoinOperator.Type.LEFT
              || type == HashJoinOperator.Type.FULL) {
            List<Object> row = new ArrayList<>(p);
            row.addAll(b);
            out.add(row);
          }
        }
      }
      if ((type == HashJoinOperator.Type.SEMI && any) || (type == HashJoinOperator.Type.ANTI && !any)) {
        out.add(p);
      } else if ((type == HashJoinOperator.Type.LEFT || type == HashJoinOperator.Type.FULL) && !any) {
        List<Object> row = new ArrayList<>(p);
        row.addAll(Arrays.asList(null, null, null));
        out.add(row);
      }
    }
    if (type == HashJoinOperator.Type.FULL) {
      // Then the build rows no probe row matches, with NULL probe columns.
      for (List<Object> b : build) {
        if (probe.stream().noneMatch(p -> matches(p, b, keys, residual))) {
          List<Object> row = new ArrayList<>(Arrays.asList(null, null, null));
          row.addAll(b);
          out.add(row);
        }
      }
    }
    return out;
  }

  /** Rows {@code (k1, k2, v)}: k1 from {@code keys} values (mapped), a tenth NULL; k2 = k1. */
  private static List<List<Object>> rows(Random random, int n, int keys, LongUnaryOperator map) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Long k = random.nextInt(10) == 0 ? null : map.applyAsLong(random.nextInt(keys));
      rows.add(Arrays.asList(k, k, random.nextInt(10) == 0 ? null : (long) random.nextInt(100)));
    }
    return rows;
  }

  /** Rows {@code (k1, k2, v)}: k1 in 0..3, k2 (mapped) nearly unique per row, some NULL. */
  private static List<List<Object>> twoKeys(Random random, int n, LongUnaryOperator map) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Long k2 = random.nextInt(20) == 0 ? null : map.applyAsLong(random.nextInt(n * 2));
      rows.add(Arrays.asList((long) random.nextInt(4), k2, (long) random.nextInt(100)));
    }
    return rows;
  }

  private static JoinSpec spec(HashJoinOperator.Type type, int keys, boolean residual) {
    List<Expr> probeKeys = new ArrayList<>();
    List<Expr> buildKeys = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      probeKeys.add(new Expr.Column(k, "p" + k, LONG));
      buildKeys.add(new Expr.Column(k, "b" + k, LONG));
    }
    Expr condition = residual ? new Expr.Call(Expr.Op.LT,
        List.of(new Expr.Column(2, "pv", LONG), new Expr.Column(5, "bv", LONG)), SqlType.of(SqlType.Kind.BOOL, true))
        : null;
    List<Field> combined = new ArrayList<>(schema("p").getFields());
    combined.addAll(schema("b").getFields());
    return new JoinSpec(type, probeKeys, buildKeys, new boolean[keys], condition, List.of(LONG, LONG, LONG),
        List.of(LONG, LONG, LONG), new Schema(combined));
  }

  private static Schema schema(String prefix) {
    ArrowType.Int bigint = new ArrowType.Int(64, true);
    return new Schema(List.of(Field.nullable(prefix + "k1", bigint), Field.nullable(prefix + "k2", bigint),
        Field.nullable(prefix + "v", bigint)));
  }

  private static Operator values(List<List<Object>> rows, BufferAllocator allocator) {
    return new ValuesOperator(schema("x"), List.of(LONG, LONG, LONG), rows, allocator);
  }
}
