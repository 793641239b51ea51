package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.exec.Col;
import dev.lake.exec.Cols;
import dev.lake.exec.HeapBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

class WindowSortTest {
  private static final int ROWS = 3_000;

  private static Col longs(Random random, long[] pool) {
    Col.Longs c = new Col.Longs(ROWS);
    for (int i = 0; i < ROWS; i++) {
      c.values[i] = pool[random.nextInt(pool.length)];
      c.nulls[i] = random.nextInt(8) == 0;
    }
    return c;
  }

  private static Col doubles(Random random) {
    double[] pool = {Double.NaN, -0.0, 0.0, 1.5, -1.5, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, 3e300};
    Col.Doubles c = new Col.Doubles(ROWS);
    for (int i = 0; i < ROWS; i++) {
      c.values[i] = pool[random.nextInt(pool.length)];
      c.nulls[i] = random.nextInt(8) == 0;
    }
    return c;
  }

  private static Col strings(Random random) {
    String[] pool = {"", "a", "b", "ab", "é", "zz"};
    Col.Objects c = new Col.Objects(ROWS);
    for (int i = 0; i < ROWS; i++) {
      c.values[i] = random.nextInt(8) == 0 ? null : pool[random.nextInt(pool.length)];
    }
    return c;
  }

  private static Col bools(Random random) {
    Col.Bools c = new Col.Bools(ROWS);
    for (int i = 0; i < ROWS; i++) {
      c.values[i] = random.nextBoolean();
      c.nulls[i] = random.nextInt(8) == 0;
    }
    return c;
  }

  /** The stable comparison sort the window used before normalized keys: the reference. */
  private static int[] reference(int[] rows, List<WindowSort.Key> keys) {
    int[] ord = rows.clone();
    List<SortOperator.RowComparator> comparators = new ArrayList<>();
    for (WindowSort.Key k : keys) {
      comparators.add(WindowEvaluator.comparator(k.col(), k.descending(), k.nullsFirst()));
    }
    SortOperator.mergeSort(ord, new int[ord.length], 0, ord.length, (a, b) -> {
      for (SortOperator.RowComparator c : comparators) {
        int r = c.compare(a, b);
        if (r != 0) {
          return r;
        }
      }
      return 0;
    });
    return ord;
  }

  @Test
  void radixSortOrdersAsTheStableComparisonSortForEveryKeyTypeDirectionAndNullPlacement() {
    Random random = new Random(18);
    long[] small = {-3, 0, 7, 1000};
    long[] wide = {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1, Long.MIN_VALUE + 1};
    long[] spread = {-40_000_000_000_000L, 12, 99_999_999_999_999L, 1L << 40};
    try (RootAllocator allocator = new RootAllocator(); HeapBudget budget = new HeapBudget(allocator, "test")) {
      for (int round = 0; round < 60; round++) {
        List<Col> pool = List.of(longs(random, small), longs(random, wide), longs(random, spread),
            doubles(random), strings(random), bools(random));
        List<WindowSort.Key> keys = new ArrayList<>();
        int count = 1 + random.nextInt(4);
        for (int k = 0; k < count; k++) {
          keys.add(new WindowSort.Key(pool.get(random.nextInt(pool.size())), random.nextBoolean(),
              random.nextBoolean()));
        }
        List<Integer> subset = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
          if (round % 2 == 0 || random.nextBoolean()) {
            subset.add(i);
          }
        }
        int[] rows = subset.stream().mapToInt(Integer::intValue).toArray();
        assertArrayEquals(reference(rows, keys), WindowSort.sort(rows, keys, budget), keys.toString());
      }
    }
  }

  private static boolean agree(List<WindowSort.Key> keys, int a, int b) {
    for (WindowSort.Key k : keys) {
      if (!Cols.equal(k.col(), a, k.col(), b)) {
        return false;
      }
    }
    return true;
  }

  @Test
  void packedKeysOfNeighboursAreEqualExactlyWhenTheirRowsAgreeOnAllKeysAndOnTheLeadingOnes() {
    Random random = new Random(1818);
    long[] small = {-3, 0, 7, 1000};
    long[] spread = {-40_000_000_000_000L, 12, 99_999_999_999_999L, 1L << 40};
    long[] wide = {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1};
    int checked = 0;
    try (RootAllocator allocator = new RootAllocator(); HeapBudget budget = new HeapBudget(allocator, "test")) {
      for (int round = 0; round < 80; round++) {
        List<Col> pool = List.of(longs(random, small), longs(random, spread), longs(random, wide),
            strings(random), bools(random));
        List<WindowSort.Key> keys = new ArrayList<>();
        int count = 1 + random.nextInt(3);
        for (int k = 0; k < count; k++) {
          keys.add(new WindowSort.Key(pool.get(random.nextInt(pool.size())), random.nextBoolean(),
              random.nextBoolean()));
        }
        int leading = random.nextInt(count + 1);
        int[] rows = java.util.stream.IntStream.range(0, ROWS).filter(i -> random.nextInt(3) > 0).toArray();
        WindowSort.Sorted sorted = WindowSort.sort(rows, keys, leading, budget);
        assertArrayEquals(reference(rows, keys), sorted.ord(), keys.toString());
        if (sorted.packed() == null) {
          continue;
        }
        checked++;
        long mask = sorted.trailingBits() >= 64 ? 0 : -1L << sorted.trailingBits();
        for (int g = 1; g < rows.length; g++) {
          int a = sorted.ord()[g - 1];
          int b = sorted.ord()[g];
          assertEquals(agree(keys, a, b), sorted.packed()[g - 1] == sorted.packed()[g], keys + " at " + g);
          assertEquals(agree(keys.subList(0, leading), a, b),
              ((sorted.packed()[g - 1] ^ sorted.packed()[g]) & mask) == 0, keys + " leading " + leading + " at " + g);
        }
      }
    }
    assertTrue(checked > 40, "rounds whose keys fit one long: " + checked);
  }
}
