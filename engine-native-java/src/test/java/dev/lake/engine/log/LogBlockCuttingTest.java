package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestData.ALL_TYPES;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.log.segment.BlockMeta;
import dev.lake.engine.log.segment.ColumnStats;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Blocks are cut straight from incoming batches where a whole block fits in one, and staged
 * across batches otherwise. With block sizes that are and are not multiples of 8, blocks start
 * mid-byte in the bitmaps and at non-zero offsets; every row and every block statistic must be
 * the same as if the rows had been copied one by one.
 */
class LogBlockCuttingTest {

  private static final int[] BATCHES = {5, 40, 13, 1, 26, 100, 7, 64, 3, 200};
  private static final List<String> BOUNDED = List.of(
      "id", "i8", "i16", "i32", "i64", "f32", "f64", "flag", "day", "ts");

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

  @ParameterizedTest
  @ValueSource(ints = {1, 8, 13, 64, 1000})
  void blocksCutFromBatchesHoldExactRowsAndStatistics(int blockRows) throws IOException {
    int total = 0;
    for (int b : BATCHES) {
      total += b;
    }
    try (TableEngine engine = LogTestData.engine(blockRows, 4 * 1024);
        TableHandle table = engine.create(TableLocation.of(dir.resolve("t" + blockRows)), ALL_TYPES)) {
      try (ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 0, BATCHES)) {
        table.append(LogTestData.op(1), reader);
      }
      Snapshot snapshot = table.latestSnapshot();
      ScanRequest all = ScanRequest.of(LogTestData.columnNames(ALL_TYPES));
      List<List<Object>> rows = LogTestData.readAll(snapshot, all, allocator);
      assertEquals(total, rows.size());
      for (int id = 0; id < total; id++) {
        assertEquals(LogTestData.expectedRow(all.columns(), id), rows.get(id), "row " + id);
      }
      long first = 0;
      int blocks = 0;
      for (ScanUnit unit : snapshot.plan(all).units()) {
        for (BlockMeta block : ((LogScanUnit) unit).footer().blocks()) {
          assertEquals(Math.min(blockRows, total - first), block.rows(), "rows of block " + blocks);
          for (int c = 0; c < ALL_TYPES.getFields().size(); c++) {
            String column = ALL_TYPES.getFields().get(c).getName();
            assertStats(column, first, block.rows(), block.columns().get(c).stats(), blocks);
          }
          first += block.rows();
          blocks++;
        }
      }
      assertEquals(total, first);
      assertEquals((total + blockRows - 1) / blockRows, blocks);
    }
  }

  /** The statistics a block of rows {@code first ..} must carry, computed from the row values. */
  private static void assertStats(String column, long first, int rows, ColumnStats stats, int block) {
    long nulls = 0;
    Comparable<Object> min = null;
    Comparable<Object> max = null;
    for (long id = first; id < first + rows; id++) {
      Object v = LogTestData.value(column, id);
      if (v == null) {
        nulls++;
        continue;
      }
      @SuppressWarnings("unchecked")
      Comparable<Object> x = (Comparable<Object>) normalise(v);
      min = min == null || x.compareTo(min) < 0 ? x : min;
      max = max == null || x.compareTo(max) > 0 ? x : max;
    }
    String where = "column " + column + " of block " + block;
    assertEquals(nulls, stats.nullCount(), "null count of " + where);
    if (BOUNDED.contains(column)) {
      assertEquals(Objects.toString(min), Objects.toString(stats.min()), "min of " + where);
      assertEquals(Objects.toString(max), Objects.toString(stats.max()), "max of " + where);
    }
  }

  /** A row value in the representation of the statistics: longs, doubles, booleans. */
  private static Object normalise(Object v) {
    return switch (v) {
      case Float f -> (double) f;
      case Double d -> d;
      case Number n when !(n instanceof java.math.BigDecimal) -> n.longValue();
      default -> v;
    };
  }
}
