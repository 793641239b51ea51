package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lake.exec.Batch;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Group ids from the fast paths ({@link NarrowKeyTable}, {@link WordKeyCache}) are the ones a
 * plain first-seen numbering of the key tuples gives, whichever path each batch takes.
 */
class GroupKeysTest {
  private static final SqlType UTF8 = SqlType.of(SqlType.Kind.UTF8, true);
  private static final SqlType INT32 = SqlType.of(SqlType.Kind.INT32, true);
  private static final SqlType DATE = SqlType.of(SqlType.Kind.DATE, true);

  private final BufferAllocator allocator = new RootAllocator();
  private final List<VectorSchemaRoot> roots = new ArrayList<>();

  @AfterEach
  void closeAll() {
    roots.forEach(VectorSchemaRoot::close);
    allocator.close();
  }

  @Test
  void fixedWidthFlagsGetFirstSeenGroupIdsWithASelection() {
    Random random = new Random(11);
    Checker check = new Checker(UTF8, UTF8);
    for (int b = 0; b < 5; b++) {
      int n = 3000;
      Object[] flags = new Object[n];
      Object[] status = new Object[n];
      for (int i = 0; i < n; i++) {
        flags[i] = String.valueOf("ARN".charAt(random.nextInt(3)));
        status[i] = String.valueOf("OF".charAt(random.nextInt(2)));
      }
      check.batch(root(List.of(UTF8, UTF8), flags, status), everyOther(n, b));
    }
    assertEquals(6, check.keys.groupCount());
  }

  @Test
  void nullKeysLongerStringsAndEmptyStringsStayExactWhenBatchesSwitchPaths() {
    Checker check = new Checker(UTF8, UTF8);
    check.batch(root(List.of(UTF8, UTF8), new Object[] {"A", "B", "A"}, new Object[] {"x", "x", "y"}), null);
    check.batch(root(List.of(UTF8, UTF8), new Object[] {null, "A", null}, new Object[] {"x", "y", null}), null);
    check.batch(root(List.of(UTF8, UTF8), new Object[] {"A", "longer than a word", "Ab"}, new Object[] {"x", "y", "x"}), null);
    check.batch(root(List.of(UTF8, UTF8), new Object[] {"", "", "A"}, new Object[] {"", "x", "x"}), null);
    check.batch(root(List.of(UTF8, UTF8), new Object[] {"B", "A", "C"}, new Object[] {"x", "y", "x"}), new int[] {0, 2});
    assertEquals(Arrays.asList("A", "B", "A", null, null, "longer than a word", "Ab", "", "", "C"),
        check.keys.values(0));
    assertEquals(Arrays.asList("x", "x", "y", "x", null, "y", "x", "", "x", "x"), check.keys.values(1));
  }

  @Test
  void oneLongerValueAnywhereKeepsTheBatchOffTheTable() {
    Checker check = new Checker(UTF8, UTF8);
    for (int odd : new int[] {-1, 3, 20, 38, 39}) {
      Object[] flags = new Object[40];
      Object[] status = new Object[40];
      for (int i = 0; i < flags.length; i++) {
        flags[i] = i == odd ? "AB" : String.valueOf("ABC".charAt(i % 3));
        status[i] = i % 2 == 0 ? "x" : "y";
      }
      check.batch(root(List.of(UTF8, UTF8), flags, status), null);
      check.batch(root(List.of(UTF8, UTF8), status, flags), everyOther(40, odd & 1));
    }
  }

  @Test
  void aSingleFlagKeyMixesTheTableAndTheDictionary() {
    Checker check = new Checker(UTF8);
    check.batch(root(List.of(UTF8), new Object[] {"N", "R", "N"}), null);
    check.batch(root(List.of(UTF8), new Object[] {"AB", "N", null}), null);
    check.batch(root(List.of(UTF8), new Object[] {"A", "R", "N"}), null);
    assertEquals(Arrays.asList("N", "R", "AB", null, "A"), check.keys.values(0));
  }

  @Test
  void integerDateAndStringKeysShareOneTupleCache() {
    Random random = new Random(5);
    Checker check = new Checker(INT32, DATE, UTF8);
    for (int b = 0; b < 4; b++) {
      int n = 2000;
      Object[] ints = new Object[n];
      Object[] dates = new Object[n];
      Object[] codes = new Object[n];
      for (int i = 0; i < n; i++) {
        ints[i] = random.nextInt(10) == 0 ? null : random.nextInt(5) - 2;
        dates[i] = random.nextInt(10) == 0 ? null : 10_000 + random.nextInt(3);
        codes[i] = random.nextInt(10) == 0 ? null : "c" + random.nextInt(2);
      }
      check.batch(root(List.of(INT32, DATE, UTF8), ints, dates, codes), everyOther(n, b));
    }
  }

  @Test
  void manyDistinctTuplesFallBackToTheDictionariesAndStayExact() {
    Checker check = new Checker(INT32, UTF8);
    for (int b = 0; b < 4; b++) {
      int n = 20_000;
      Object[] ints = new Object[n];
      Object[] codes = new Object[n];
      for (int i = 0; i < n; i++) {
        ints[i] = (b * n + i) / 3;
        codes[i] = i % 2 == 0 ? "a" : "b";
      }
      check.batch(root(List.of(INT32, UTF8), ints, codes), null);
    }
  }

  @Test
  void anEmptyBatchAddsNoGroups() {
    Checker check = new Checker(UTF8, UTF8);
    check.batch(root(List.of(UTF8, UTF8), new Object[0], new Object[0]), null);
    check.batch(root(List.of(UTF8, UTF8), new Object[] {"A", "B"}, new Object[] {"x", "y"}), new int[0]);
    assertEquals(0, check.keys.groupCount());
  }

  /** Feeds batches to a {@link GroupKeys} and to a map of tuples numbered in first-seen order. */
  private static final class Checker {
    final GroupKeys keys;
    final Map<List<Object>, Integer> expected = new HashMap<>();

    Checker(SqlType... types) {
      List<Expr> exprs = new ArrayList<>();
      for (int k = 0; k < types.length; k++) {
        exprs.add(new Expr.Column(k, "k" + k, types[k]));
      }
      keys = new GroupKeys(exprs);
    }

    void batch(VectorSchemaRoot root, int[] selection) {
      int count = selection == null ? root.getRowCount() : selection.length;
      Batch batch = new Batch(root, selection, count);
      int[] groups = new int[count];
      keys.assign(batch, groups);
      int[] want = new int[count];
      for (int i = 0; i < count; i++) {
        List<Object> tuple = new ArrayList<>();
        for (FieldVector v : root.getFieldVectors()) {
          Object value = v.getObject(batch.row(i));
          tuple.add(value == null ? null : v instanceof VarCharVector ? value.toString() : value);
        }
        want[i] = expected.computeIfAbsent(tuple, t -> expected.size());
      }
      assertArrayEquals(want, groups);
      assertEquals(expected.size(), keys.groupCount());
    }
  }

  private static int[] everyOther(int n, int offset) {
    int[] rows = new int[(n - offset % 2 + 1) / 2];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = 2 * i + offset % 2;
    }
    return rows;
  }

  /** A root of one vector per column: strings, 32-bit integers or days, NULL where null. */
  private VectorSchemaRoot root(List<SqlType> types, Object[]... columns) {
    List<FieldVector> vectors = new ArrayList<>();
    for (int k = 0; k < columns.length; k++) {
      Object[] values = columns[k];
      String name = "k" + k;
      FieldVector vector = switch (types.get(k).kind()) {
        case UTF8 -> {
          VarCharVector v = new VarCharVector(name, allocator);
          v.allocateNew(values.length);
          for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
              v.setSafe(i, ((String) values[i]).getBytes(StandardCharsets.UTF_8));
            }
          }
          yield v;
        }
        case INT32 -> {
          IntVector v = new IntVector(name, allocator);
          v.allocateNew(values.length);
          for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
              v.set(i, (Integer) values[i]);
            }
          }
          yield v;
        }
        default -> {
          DateDayVector v = new DateDayVector(name, allocator);
          v.allocateNew(values.length);
          for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
              v.set(i, (Integer) values[i]);
            }
          }
          yield v;
        }
      };
      vector.setValueCount(values.length);
      vectors.add(vector);
    }
    VectorSchemaRoot root = new VectorSchemaRoot(vectors);
    root.setRowCount(columns[0].length);
    roots.add(root);
    return root;
  }
}
