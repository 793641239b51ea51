package dev.lake.exec.expr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.lake.exec.Batch;
import dev.lake.exec.SqlType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

class ColumnRangeTest {
  private static final Expr.Op[] OPS = {Expr.Op.EQ, Expr.Op.LT, Expr.Op.LE, Expr.Op.GT, Expr.Op.GE};
  private static final long[] LONG_EDGES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
  private static final int[] INT_EDGES = {Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1, Integer.MAX_VALUE - 1,
      Integer.MAX_VALUE};
  private static final double[] DOUBLE_EDGES = {Double.NEGATIVE_INFINITY, -1.5, -0.0, 0.0, Double.MIN_VALUE, 2.5,
      Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.NaN, -Double.MIN_VALUE,
      // A NaN with its sign bit set: its bits order below every negative number's.
      Double.longBitsToDouble(0xfff8000000000001L)};

  /**
   * Conjunctions of comparisons with constants, merged into ranges and tested on the buffers,
   * keep exactly the rows the comparison kernels find TRUE: NULLs, NaN, -0.0, the ends of the
   * long range, dense batches and selections.
   */
  @Test
  void mergedRangesKeepExactlyTheRowsTheComparisonsKeep() {
    Random random = new Random(7);
    try (BufferAllocator allocator = new RootAllocator();
        BigIntVector longs = new BigIntVector("l", allocator);
        DateDayVector days = new DateDayVector("d", allocator);
        Float8Vector doubles = new Float8Vector("f", allocator);
        BigIntVector denseLongs = new BigIntVector("ld", allocator);
        Float8Vector denseDoubles = new Float8Vector("fd", allocator)) {
      int n = 1000;
      longs.allocateNew(n);
      days.allocateNew(n);
      doubles.allocateNew(n);
      denseLongs.allocateNew(n);
      denseDoubles.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if (i % 11 == 0) {
          longs.setNull(i);
        } else {
          longs.set(i, random.nextInt(4) == 0 ? LONG_EDGES[random.nextInt(LONG_EDGES.length)] : random.nextInt(21) - 10);
        }
        days.set(i, random.nextInt(8) == 0 ? INT_EDGES[random.nextInt(INT_EDGES.length)] : random.nextInt(21) - 10);
        if (i % 13 == 0) {
          doubles.setNull(i);
        } else {
          doubles.set(i, random.nextInt(3) == 0 ? DOUBLE_EDGES[random.nextInt(DOUBLE_EDGES.length)] : random.nextInt(9) - 4.5);
        }
        // Null-free columns take the vector loops where the hardware has them.
        denseLongs.set(i, random.nextInt(4) == 0 ? LONG_EDGES[random.nextInt(LONG_EDGES.length)] : random.nextInt(21) - 10);
        denseDoubles.set(i, random.nextInt(3) == 0 ? DOUBLE_EDGES[random.nextInt(DOUBLE_EDGES.length)] : random.nextInt(9) - 4.5);
      }
      longs.setValueCount(n);
      days.setValueCount(n);
      doubles.setValueCount(n);
      denseLongs.setValueCount(n);
      denseDoubles.setValueCount(n);
      try (VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(longs, days, doubles, denseLongs, denseDoubles))) {
        root.setRowCount(n);
        int[] selection = new int[n / 3];
        for (int i = 0; i < selection.length; i++) {
          selection[i] = i * 3 + 2;
        }
        Expr.Column l = new Expr.Column(0, "l", SqlType.of(SqlType.Kind.INT64, true));
        Expr.Column d = new Expr.Column(1, "d", SqlType.of(SqlType.Kind.DATE, false));
        Expr.Column f = new Expr.Column(2, "f", SqlType.of(SqlType.Kind.FLOAT64, true));
        Expr.Column ld = new Expr.Column(3, "ld", SqlType.of(SqlType.Kind.INT64, false));
        Expr.Column fd = new Expr.Column(4, "fd", SqlType.of(SqlType.Kind.FLOAT64, false));
        for (int t = 0; t < 2000; t++) {
          List<Expr> terms = new ArrayList<>();
          int count = 1 + random.nextInt(3);
          for (int k = 0; k < count; k++) {
            Expr.Op op = OPS[random.nextInt(OPS.length)];
            Expr column;
            Expr.Literal literal;
            switch (random.nextInt(5)) {
              case 0, 3 -> {
                column = random.nextBoolean() ? l : ld;
                long v = random.nextBoolean() ? LONG_EDGES[random.nextInt(LONG_EDGES.length)] : random.nextInt(21) - 10;
                literal = new Expr.Literal(v, SqlType.of(SqlType.Kind.INT64, false));
              }
              case 1 -> {
                column = d;
                // Constants beyond the 32-bit range clamp to it; the ends wrap in the unsigned compare.
                long v = switch (random.nextInt(4)) {
                  case 0 -> LONG_EDGES[random.nextInt(LONG_EDGES.length)];
                  case 1 -> INT_EDGES[random.nextInt(INT_EDGES.length)];
                  default -> random.nextInt(21) - 10;
                };
                literal = new Expr.Literal(v, SqlType.of(SqlType.Kind.DATE, false));
              }
              default -> {
                column = random.nextBoolean() ? f : fd;
                double v = random.nextBoolean() ? DOUBLE_EDGES[random.nextInt(DOUBLE_EDGES.length)] : random.nextInt(9) - 4.5;
                literal = new Expr.Literal(v, SqlType.of(SqlType.Kind.FLOAT64, false));
              }
            }
            boolean flipped = random.nextBoolean();
            terms.add(new Expr.Call(op, flipped ? List.of(literal, column) : List.of(column, literal),
                SqlType.of(SqlType.Kind.BOOL, true)));
          }
          if (t % 100 == 0) {
            // Every row of the null-free columns passes: whole words of the mask are set.
            terms = List.of(
                new Expr.Call(Expr.Op.GE, List.of(ld, new Expr.Literal(Long.MIN_VALUE, SqlType.of(SqlType.Kind.INT64, false))),
                    SqlType.of(SqlType.Kind.BOOL, true)),
                new Expr.Call(Expr.Op.LE, List.of(d, new Expr.Literal(10L, SqlType.of(SqlType.Kind.DATE, false))),
                    SqlType.of(SqlType.Kind.BOOL, true)));
          }
          List<SelectionFilter> fast = SelectionFilter.compileConjunction(terms);
          List<SelectionFilter> slow = terms.stream()
              .<SelectionFilter>map(e -> new SelectionFilter.Generic(Kernel.compile(e))).toList();
          for (Batch batch : List.of(Batch.dense(root), new Batch(root, selection, selection.length))) {
            assertArrayEquals(apply(slow, batch, false), apply(fast, batch, true), terms.toString());
          }
        }
      }
    }
  }

  @Test
  void onlyComparisonsOfAColumnWithANonNullConstantBecomeRanges() {
    Expr.Column f = new Expr.Column(0, "f", SqlType.of(SqlType.Kind.FLOAT64, true));
    SqlType bool = SqlType.of(SqlType.Kind.BOOL, true);
    assertNotNull(ColumnRange.bound(new Expr.Call(Expr.Op.LT, List.of(f,
        new Expr.Literal(1.0, SqlType.of(SqlType.Kind.FLOAT64, false))), bool)));
    assertNull(ColumnRange.bound(new Expr.Call(Expr.Op.LT, List.of(f,
        new Expr.Literal(null, SqlType.of(SqlType.Kind.FLOAT64, true))), bool)));
    assertNull(ColumnRange.bound(new Expr.Call(Expr.Op.NE, List.of(f,
        new Expr.Literal(1.0, SqlType.of(SqlType.Kind.FLOAT64, false))), bool)));
    assertNull(ColumnRange.bound(new Expr.Call(Expr.Op.LT, List.of(f, f), bool)));
  }

  /** Applies the filters in turn; {@code inPlace} narrows one array as the filter operator does. */
  private static int[] apply(List<SelectionFilter> filters, Batch batch, boolean inPlace) {
    Batch input = batch;
    for (SelectionFilter filter : filters) {
      int[] out = inPlace && batch != input ? batch.selection() : new int[batch.count() + SelectionFilter.PADDING];
      int count = filter.select(batch, out);
      batch = new Batch(batch.root(), out, count);
    }
    int[] rows = new int[batch.count()];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = batch.row(i);
    }
    return rows;
  }
}
