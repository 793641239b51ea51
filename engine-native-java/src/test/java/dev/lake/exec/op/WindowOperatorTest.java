package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.exec.Batch;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.HeapBudget;
import dev.lake.exec.SqlType;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WindowOperatorTest {
  private static final SqlType INT = SqlType.of(SqlType.Kind.INT64, true);
  private static final SqlType DOUBLE = SqlType.of(SqlType.Kind.FLOAT64, true);

  private RootAllocator allocator;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void allocatorClosesClean() {
    assertEquals(0, allocator.getAllocatedMemory());
    allocator.close();
  }

  /** Two batches of (partition, order key) rows: the operator must see them as one input. */
  private Operator input(BufferAllocator a, List<List<Object>> first, List<List<Object>> second) {
    Schema schema = new Schema(List.of(INT.field("p"), INT.field("o")));
    return new UnionAllOperator(List.of(new ValuesOperator(schema, List.of(INT, INT), first, a),
        new ValuesOperator(schema, List.of(INT, INT), second, a)));
  }

  private static List<Object> row(Object... values) {
    return java.util.Arrays.asList(values);
  }

  private static List<List<Object>> drain(Operator op) {
    List<List<Object>> rows = new ArrayList<>();
    Batch b;
    while ((b = op.next()) != null) {
      for (int i = 0; i < b.count(); i++) {
        List<Object> r = new ArrayList<>();
        for (FieldVector v : b.root().getFieldVectors()) {
          r.add(v.getObject(b.row(i)));
        }
        rows.add(r);
      }
    }
    return rows;
  }

  private static WindowOperator.Group group(int[] partition, List<SortOperator.Key> order, WindowFrame frame,
      WindowFunction... functions) {
    return new WindowOperator.Group(partition, order, frame, List.of(functions));
  }

  @Test
  void rowsAcrossBatchesKeepTheirInputOrderWithOneColumnPerFunction() {
    WindowFrame running = new WindowFrame(true, WindowFrame.Bound.of(WindowFrame.Type.UNBOUNDED_PRECEDING),
        WindowFrame.Bound.of(WindowFrame.Type.CURRENT_ROW));
    WindowFrame sliding = new WindowFrame(true, new WindowFrame.Bound(WindowFrame.Type.PRECEDING, 1L),
        new WindowFrame.Bound(WindowFrame.Type.FOLLOWING, 1L));
    List<WindowOperator.Group> groups = List.of(
        group(new int[] {0}, List.of(new SortOperator.Key(1, false, false)), running,
            new WindowFunction(WindowFunction.Kind.RANK, new int[0], List.of(), INT),
            new WindowFunction(WindowFunction.Kind.SUM, new int[] {1}, java.util.Arrays.asList((Object) null), INT)),
        group(new int[0], List.of(new SortOperator.Key(1, true, true)), sliding,
            new WindowFunction(WindowFunction.Kind.MAX, new int[] {0}, java.util.Arrays.asList((Object) null), INT),
            new WindowFunction(WindowFunction.Kind.PERCENT_RANK, new int[0], List.of(), DOUBLE)));
    Schema out = new Schema(List.of(INT.field("p"), INT.field("o"), INT.field("r"), INT.field("s"),
        INT.field("m"), DOUBLE.field("pr")));
    try (BufferAllocator a = allocator.newChildAllocator("query", 0, Long.MAX_VALUE);
        WindowOperator op = new WindowOperator(
            input(a, List.of(row(1L, 5L), row(2L, 1L), row(1L, 5L)), List.of(row(1L, null), row(2L, 3L))),
            List.of(INT, INT), groups, out, a)) {
      // Partition 1 by o ascending, NULLs last: 5, 5 (peers), NULL. Partition 2: 1, 3.
      // Everything by o descending, NULLs first: NULL(p1), 5(p1), 5(p1), 3(p2), 1(p2).
      assertEquals(List.of(
          List.of(1L, 5L, 1L, 5L, 1L, 0.25),
          List.of(2L, 1L, 1L, 1L, 2L, 1.0),
          List.of(1L, 5L, 1L, 10L, 2L, 0.25),
          row(1L, null, 3L, 10L, 1L, 0.0),
          List.of(2L, 3L, 2L, 4L, 2L, 0.75)), drain(op));
    }
  }

  @Test
  void heapBeyondTheQueryBudgetFailsNamingWindowFunctionsAndLeaksNothing() {
    List<List<Object>> rows = new ArrayList<>();
    for (long i = 0; i < 20_000; i++) {
      rows.add(row(i % 7, i));
    }
    WindowOperator.Group g = group(new int[] {0}, List.of(new SortOperator.Key(1, false, false)), WindowFrame.DEFAULT,
        new WindowFunction(WindowFunction.Kind.ROW_NUMBER, new int[0], List.of(), INT));
    Schema out = new Schema(List.of(INT.field("p"), INT.field("o"), INT.field("n")));
    // The Arrow buffers of the input (about 0.4 MB) fit; the sort order, keys and boundaries do not.
    try (BufferAllocator a = allocator.newChildAllocator("query", 0, 1 << 20);
        WindowOperator op = new WindowOperator(input(a, rows, List.of()), List.of(INT, INT), List.of(g), out, a)) {
      HeapBudget.OverBudgetException e = assertThrows(HeapBudget.OverBudgetException.class, op::next);
      assertTrue(e.getMessage().startsWith("window functions needs "), e.getMessage());
    }
  }

  @Test
  void ntileOfZeroBucketsIsADataError() {
    WindowOperator.Group g = group(new int[0], List.of(), WindowFrame.DEFAULT,
        new WindowFunction(WindowFunction.Kind.NTILE, new int[] {-1}, List.of(0L), INT));
    Schema out = new Schema(List.of(INT.field("p"), INT.field("o"), INT.field("n")));
    try (BufferAllocator a = allocator.newChildAllocator("query", 0, Long.MAX_VALUE);
        WindowOperator op = new WindowOperator(input(a, List.of(row(1L, 1L)), List.of()), List.of(INT, INT),
            List.of(g), out, a)) {
      ExecutionException e = assertThrows(ExecutionException.class, op::next);
      assertEquals("argument of ntile must be greater than zero, not 0", e.getMessage());
    }
  }

  @Test
  void emptyInputGivesNoRows() {
    WindowOperator.Group g = group(new int[] {0}, List.of(), WindowFrame.DEFAULT,
        new WindowFunction(WindowFunction.Kind.COUNT, new int[0], List.of(), INT));
    Schema out = new Schema(List.of(INT.field("p"), INT.field("o"), INT.field("n")));
    try (BufferAllocator a = allocator.newChildAllocator("query", 0, Long.MAX_VALUE);
        WindowOperator op = new WindowOperator(input(a, List.of(), List.of()), List.of(INT, INT), List.of(g), out, a)) {
      assertEquals(List.of(), drain(op));
    }
  }

  @Test
  void aBoundWithoutItsOffsetIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> WindowFrame.Bound.of(WindowFrame.Type.PRECEDING));
    assertThrows(IllegalArgumentException.class, () -> new WindowFrame.Bound(WindowFrame.Type.CURRENT_ROW, 1L));
  }

  @Test
  void partitionedWindowSplitIntoPartsOnTwoThreadsGivesWhatEachPartitionDirectlyGives() {
    // 100,000 rows: three parts by hash of p (NULL a partition of its own), many ties in o.
    int n = 100_000;
    List<List<Object>> rows = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      rows.add(row(i % 997 == 0 ? null : i % 101, i % 13 == 0 ? null : (i * 7919) % 1000));
    }
    WindowFrame running = new WindowFrame(true, WindowFrame.Bound.of(WindowFrame.Type.UNBOUNDED_PRECEDING),
        WindowFrame.Bound.of(WindowFrame.Type.CURRENT_ROW));
    WindowOperator.Group g = group(new int[] {0}, List.of(new SortOperator.Key(1, true, false)), running,
        new WindowFunction(WindowFunction.Kind.ROW_NUMBER, new int[0], List.of(), INT),
        new WindowFunction(WindowFunction.Kind.RANK, new int[0], List.of(), INT),
        new WindowFunction(WindowFunction.Kind.LAG, new int[] {1}, java.util.Arrays.asList((Object) null), INT),
        new WindowFunction(WindowFunction.Kind.SUM, new int[] {1}, java.util.Arrays.asList((Object) null), INT));
    Schema out = new Schema(List.of(INT.field("p"), INT.field("o"), INT.field("n"), INT.field("r"),
        INT.field("l"), INT.field("s")));
    // Directly: each partition's rows stably sorted by o descending, NULLs last.
    java.util.Map<Object, List<Integer>> partitions = new java.util.LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      partitions.computeIfAbsent(java.util.Objects.requireNonNullElse(rows.get(i).get(0), "null"),
          k -> new ArrayList<>()).add(i);
    }
    List<List<Object>> expected = new ArrayList<>();
    for (List<Object> r : rows) {
      expected.add(new ArrayList<>(r));
    }
    java.util.Comparator<Integer> byO = java.util.Comparator.comparing(i -> (Long) rows.get(i).get(1),
        java.util.Comparator.nullsLast(java.util.Comparator.<Long>reverseOrder()));
    for (List<Integer> part : partitions.values()) {
      part.sort(byO);
      long sum = 0;
      boolean any = false;
      int rank = 1;
      for (int j = 0; j < part.size(); j++) {
        Long o = (Long) rows.get(part.get(j)).get(1);
        if (j > 0 && !java.util.Objects.equals(o, rows.get(part.get(j - 1)).get(1))) {
          rank = j + 1;
        }
        if (o != null) {
          sum += o;
          any = true;
        }
        List<Object> e = expected.get(part.get(j));
        e.add((long) j + 1);
        e.add((long) rank);
        e.add(j == 0 ? null : rows.get(part.get(j - 1)).get(1));
        e.add(any ? sum : null);
      }
    }
    // The running sum includes the current row's peers.
    for (List<Integer> part : partitions.values()) {
      for (int j = part.size() - 2; j >= 0; j--) {
        if (java.util.Objects.equals(rows.get(part.get(j)).get(1), rows.get(part.get(j + 1)).get(1))) {
          expected.get(part.get(j)).set(5, expected.get(part.get(j + 1)).get(5));
        }
      }
    }
    try (BufferAllocator a = allocator.newChildAllocator("query", 0, Long.MAX_VALUE);
        WindowOperator op = new WindowOperator(input(a, rows, List.of()), List.of(INT, INT), List.of(g), out, 2, a)) {
      assertEquals(expected, drain(op));
    }
  }
}
