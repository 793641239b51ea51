package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class GroupSumsTest {

  /** Sums stay exact per group across batches while the groups grow past the laned layout. */
  @Test
  void sumsAndCountsSurviveTheSwitchFromLanedToFlat() {
    Random random = new Random(3);
    GroupSums sums = new GroupSums();
    GroupSums counts = new GroupSums();
    GroupSums products = new GroupSums();
    long[] expectedSums = new long[5000];
    long[] expectedCounts = new long[5000];
    int groupCount = 0;
    for (int batch = 0; batch < 40; batch++) {
      groupCount = Math.min(5000, groupCount + random.nextInt(300));
      int n = 1 + random.nextInt(2000);
      int[] groups = new int[n];
      long[] values = new long[n];
      double[] doubles = new double[n];
      double[] threes = new double[n];
      Arrays.fill(threes, 3.0);
      for (int i = 0; i < n; i++) {
        groups[i] = random.nextInt(Math.max(1, groupCount));
        values[i] = random.nextInt(1000);
        doubles[i] = values[i];
        expectedSums[groups[i]] += 2 * values[i];
        expectedCounts[groups[i]]++;
      }
      sums.ensure(Math.max(1, groupCount));
      counts.ensure(Math.max(1, groupCount));
      products.ensure(Math.max(1, groupCount));
      sums.addAll(groups, values, n);
      sums.addAll(groups, doubles, n);
      counts.countAll(groups, n);
      products.addProducts(groups, doubles, threes, n);
    }
    for (int g = 0; g < 5000; g++) {
      assertEquals(expectedSums[g], (long) sums.get(g), "sum of group " + g);
      assertEquals(expectedSums[g] / 2 * 3, (long) products.get(g), "sum of products of group " + g);
      assertEquals(expectedCounts[g], (long) counts.get(g), "count of group " + g);
    }
  }

  /** Batches of at most four groups (the SIMD path when enabled) and later ones of many add up exactly. */
  @Test
  void fewGroupBatchesAndManyGroupBatchesAddUpExactly() {
    Random random = new Random(9);
    GroupSums sums = new GroupSums();
    GroupSums counts = new GroupSums();
    int[] groupCounts = {1, 2, 4, 4, 3, 4, 7, 4, 1500, 3000};
    long[] expectedSums = new long[3000];
    long[] expectedCounts = new long[3000];
    int seen = 0;
    for (int groupCount : groupCounts) {
      seen = Math.max(seen, groupCount);
      int n = random.nextInt(1000);
      int[] groups = new int[n];
      double[] values = new double[n];
      for (int i = 0; i < n; i++) {
        groups[i] = random.nextInt(groupCount);
        values[i] = random.nextInt(1 << 20) - (1 << 19);
        expectedSums[groups[i]] += (long) values[i];
        expectedCounts[groups[i]]++;
      }
      sums.ensure(seen);
      counts.ensure(seen);
      sums.addAll(groups, values, n);
      counts.countAll(groups, n);
      for (int g = 0; g < seen; g++) {
        assertEquals(expectedSums[g], (long) sums.get(g), "sum of group " + g);
        assertEquals(expectedCounts[g], (long) counts.get(g), "count of group " + g);
      }
    }
  }
}
