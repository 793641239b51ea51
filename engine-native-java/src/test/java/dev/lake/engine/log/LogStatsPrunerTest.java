package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestData.ALL_TYPES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.expr.And;
import dev.lake.engine.expr.Between;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Comparison;
import dev.lake.engine.expr.Comparison.Op;
import dev.lake.engine.expr.Expression;
import dev.lake.engine.expr.In;
import dev.lake.engine.expr.IsNull;
import dev.lake.engine.expr.Literal;
import dev.lake.engine.expr.Not;
import dev.lake.engine.expr.Or;
import dev.lake.engine.log.segment.BlockMeta;
import dev.lake.engine.log.segment.ChunkMeta;
import dev.lake.engine.log.segment.ColumnStats;
import dev.lake.engine.log.segment.StatsPruner;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogStatsPrunerTest {

  private static final ArrowType I64 = new ArrowType.Int(64, true);
  private static final ArrowType F64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  private static final Schema XS = new Schema(List.of(
      LogTestData.nullable("x", I64), LogTestData.nullable("y", I64)));

  private static Literal lit(long v) {
    return new Literal(I64, v);
  }

  private static final ColumnRef X = new ColumnRef("x");

  private static BlockMeta block(int rows, ColumnStats x) {
    ColumnStats y = new ColumnStats(0, 0L, 1000L, true);
    return new BlockMeta(rows, List.of(
        new ChunkMeta(8, 1, 0, List.of(1L), x), new ChunkMeta(9, 1, 0, List.of(1L), y)));
  }

  private static final BlockMeta RANGE = block(100, new ColumnStats(0, 10L, 20L, true));
  private static final BlockMeta RANGE_WITH_NULLS = block(100, new ColumnStats(3, 10L, 20L, true));
  private static final BlockMeta ALL_NULL = block(100, new ColumnStats(100, null, null, false));
  private static final BlockMeta SINGLE = block(100, new ColumnStats(0, 15L, 15L, true));

  private final StatsPruner pruner = new StatsPruner(XS);

  @Test
  void comparisonsPruneOutsideTheRange() {
    assertFalse(pruner.mayMatch(new Comparison(Op.EQ, X, lit(5)), RANGE));
    assertTrue(pruner.mayMatch(new Comparison(Op.EQ, X, lit(15)), RANGE));
    assertFalse(pruner.mayMatch(new Comparison(Op.GT, X, lit(20)), RANGE));
    assertTrue(pruner.mayMatch(new Comparison(Op.GE, X, lit(20)), RANGE));
    assertFalse(pruner.mayMatch(new Comparison(Op.LT, X, lit(10)), RANGE));
    assertTrue(pruner.mayMatch(new Comparison(Op.LE, X, lit(10)), RANGE));
    assertFalse(pruner.mayMatch(new Comparison(Op.LT, lit(25), X), RANGE), "literal on the left");
    assertFalse(pruner.mayMatch(new Between(X, lit(21), lit(30)), RANGE));
    assertTrue(pruner.mayMatch(new Between(X, lit(0), lit(10)), RANGE));
    assertFalse(pruner.mayMatch(new In(X, List.of(lit(1), lit(30))), RANGE));
    assertTrue(pruner.mayMatch(new In(X, List.of(lit(1), lit(12))), RANGE));
  }

  @Test
  void nullSemanticsFollowSql() {
    assertFalse(pruner.mayMatch(new Comparison(Op.EQ, X, lit(15)), ALL_NULL), "= on all-null");
    assertFalse(pruner.mayMatch(new Not(new Comparison(Op.EQ, X, lit(5))), ALL_NULL), "NOT = on all-null");
    assertFalse(pruner.mayMatch(new Comparison(Op.NE, X, lit(5)), ALL_NULL));
    assertFalse(pruner.mayMatch(new Comparison(Op.EQ, X, new Literal(I64, null)), RANGE), "= NULL");
    assertFalse(pruner.mayMatch(new In(X, List.of(new Literal(I64, null))), RANGE));
    assertFalse(pruner.mayMatch(new IsNull(X), RANGE));
    assertTrue(pruner.mayMatch(new IsNull(X), RANGE_WITH_NULLS));
    assertTrue(pruner.mayMatch(new IsNull(X), ALL_NULL));
    assertFalse(pruner.mayMatch(new Not(new IsNull(X)), ALL_NULL));
    assertTrue(pruner.mayMatch(new Not(new IsNull(X)), RANGE_WITH_NULLS));
    assertFalse(pruner.mayMatch(new Or(List.of(new Comparison(Op.EQ, X, lit(5)), new IsNull(X))), RANGE));
    assertTrue(pruner.mayMatch(new Or(List.of(new Comparison(Op.EQ, X, lit(5)), new IsNull(X))), RANGE_WITH_NULLS));
    // NOT (x > 30) is TRUE for every non-null row of the range block.
    assertTrue(pruner.mayMatch(new Not(new Comparison(Op.GT, X, lit(30))), RANGE));
    assertFalse(pruner.mayMatch(new Not(new Comparison(Op.GT, X, lit(5))), RANGE));
  }

  @Test
  void singleValuedBlocksPruneInequality() {
    assertFalse(pruner.mayMatch(new Comparison(Op.NE, X, lit(15)), SINGLE));
    assertFalse(pruner.mayMatch(new Not(new Comparison(Op.EQ, X, lit(15))), SINGLE));
    assertTrue(pruner.mayMatch(new Comparison(Op.NE, X, lit(14)), SINGLE));
    BlockMeta inexact = block(100, new ColumnStats(0, 15L, 15L, false));
    assertTrue(pruner.mayMatch(new Comparison(Op.NE, X, lit(15)), inexact));
  }

  @Test
  void unknownShapesNeverPrune() {
    assertTrue(pruner.mayMatch(new Comparison(Op.EQ, X, new ColumnRef("y")), RANGE));
    assertTrue(pruner.mayMatch(new Comparison(Op.EQ, new ColumnRef("nope"), lit(1)), RANGE));
    assertTrue(pruner.mayMatch(new Comparison(Op.EQ, X, new Literal(ArrowType.Utf8.INSTANCE, "a")), RANGE));
    assertTrue(pruner.mayMatch(new Comparison(Op.EQ, X,
        new Literal(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), 5L)), RANGE));
    assertTrue(pruner.mayMatch(new Comparison(Op.LT, X, new Literal(F64, Double.NaN)), RANGE));
    assertTrue(pruner.mayMatch(new Comparison(Op.EQ, X, lit(5)), block(100, new ColumnStats(0, null, null, false))));
  }

  @Test
  void numericLiteralsOfOtherTypesCompareByValue() {
    assertTrue(pruner.mayMatch(new Comparison(Op.LT, X, new Literal(F64, 10.5)), RANGE));
    assertFalse(pruner.mayMatch(new Comparison(Op.LT, X, new Literal(F64, 9.5)), RANGE));
    assertFalse(pruner.mayMatch(new Comparison(Op.GT, X,
        new Literal(new ArrowType.Decimal(10, 2, 128), new BigDecimal("20.01"))), RANGE));
    assertTrue(pruner.mayMatch(new Comparison(Op.GT, X, new Literal(F64, Double.NEGATIVE_INFINITY)), RANGE));
  }

  /**
   * End to end over real segments: for each predicate, every row that satisfies it is still in
   * the pruned scan, and selective predicates prune blocks.
   */
  @Test
  void pruningNeverDropsAMatchingRow(@TempDir Path dir) throws IOException {
    int rows = 2000;
    try (RootAllocator allocator = new RootAllocator();
        TableEngine engine = LogTestData.engine(50, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir), ALL_TYPES)) {
      try (ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 0, rows)) {
        table.append(LogTestData.op(1), reader);
      }
      Snapshot snapshot = table.latestSnapshot();
      String longName = "ü".repeat(40) + "1320";
      Map<Expression, LongPredicate> cases = new LinkedHashMap<>();
      cases.put(new Comparison(Op.EQ, new ColumnRef("name"), new Literal(ArrowType.Utf8.INSTANCE, longName)),
          id -> longName.equals(LogTestData.value("name", id)));
      cases.put(new Comparison(Op.EQ, new ColumnRef("name"), new Literal(ArrowType.Utf8.INSTANCE, "name-1234")),
          id -> "name-1234".equals(LogTestData.value("name", id)));
      cases.put(new Comparison(Op.GE, new ColumnRef("name"), new Literal(ArrowType.Utf8.INSTANCE, "ü")),
          id -> LogTestData.value("name", id) instanceof String s && s.startsWith("ü"));
      cases.put(new Comparison(Op.LT, new ColumnRef("f32"), new Literal(F64, -2.0)),
          id -> LogTestData.value("f32", id) instanceof Float f && f < -2.0);
      cases.put(new Comparison(Op.EQ, new ColumnRef("day"), new Literal(new ArrowType.Date(DateUnit.DAY), 777L)),
          id -> Integer.valueOf(777).equals(LogTestData.value("day", id)));
      cases.put(new Comparison(Op.GT, new ColumnRef("ts"),
          new Literal(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), 1_700_000_000_000_000L + 1990L * 1_000_000L)),
          id -> LogTestData.value("ts", id) instanceof Long t && t > 1_700_000_000_000_000L + 1990L * 1_000_000L);
      cases.put(new Comparison(Op.LE, new ColumnRef("amount"),
          new Literal(new ArrowType.Decimal(20, 4, 128), new BigDecimal("-5"))),
          id -> LogTestData.value("amount", id) instanceof BigDecimal d && d.compareTo(new BigDecimal("-5")) <= 0);
      cases.put(new And(List.of(new Comparison(Op.EQ, new ColumnRef("flag"), new Literal(ArrowType.Bool.INSTANCE, true)),
          new Comparison(Op.LT, new ColumnRef("i64"), new Literal(I64, -4_900_000_000L)))),
          id -> Boolean.TRUE.equals(LogTestData.value("flag", id))
              && LogTestData.value("i64", id) instanceof Long v && v < -4_900_000_000L);
      cases.put(new Not(new Comparison(Op.GE, new ColumnRef("id"), lit(30))), id -> id < 30);
      for (var c : cases.entrySet()) {
        ScanRequest request = ScanRequest.of(List.of("id")).withFilter(c.getKey());
        Snapshot.ScanPlan plan = snapshot.plan(request);
        Set<Long> returned = new HashSet<>();
        LogTestData.readAll(snapshot, request, allocator).forEach(r -> returned.add((Long) r.getFirst()));
        int matching = 0;
        for (long id = 0; id < rows; id++) {
          if (c.getValue().test(id)) {
            matching++;
            assertTrue(returned.contains(id), "row " + id + " pruned for " + c.getKey());
          }
        }
        assertTrue(matching > 0, "no row matches " + c.getKey());
        // Long utf8 values sit in every block, so only the other predicates are selective.
        boolean selective = !(c.getKey() instanceof Comparison cmp
            && cmp.right() instanceof Literal l && l.value() instanceof String v && v.startsWith("ü"));
        assertTrue(!selective || plan.blocksPruned() > 0, "nothing pruned for " + c.getKey());
      }
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }

  @Test
  void longUtf8BoundsAreTruncatedSafely() {
    Schema s = new Schema(List.of(LogTestData.nullable("s", ArrowType.Utf8.INSTANCE)));
    byte[] min = "abc".getBytes(StandardCharsets.UTF_8);
    byte[] max = "abd".getBytes(StandardCharsets.UTF_8);
    BlockMeta b = new BlockMeta(10, List.of(new ChunkMeta(8, 1, 0, List.of(1L), new ColumnStats(0, min, max, false))));
    StatsPruner p = new StatsPruner(s);
    ColumnRef ref = new ColumnRef("s");
    assertTrue(p.mayMatch(new Comparison(Op.EQ, ref, new Literal(ArrowType.Utf8.INSTANCE, "abcz")), b));
    assertFalse(p.mayMatch(new Comparison(Op.EQ, ref, new Literal(ArrowType.Utf8.INSTANCE, "abe")), b));
    assertFalse(p.mayMatch(new Comparison(Op.LT, ref, new Literal(ArrowType.Utf8.INSTANCE, "abc")), b));
  }
}
