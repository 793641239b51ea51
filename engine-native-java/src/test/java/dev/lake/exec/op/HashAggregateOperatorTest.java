package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.lake.exec.Batch;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Aggregates over batches whose filter kept nearly every row, where the arguments may be computed
 * for all rows and the dropped ones sent to no group.
 */
class HashAggregateOperatorTest {
  private static final int ROWS = 64;
  private static final SqlType UTF8 = SqlType.of(SqlType.Kind.UTF8, true);
  private static final SqlType FLOAT64 = SqlType.of(SqlType.Kind.FLOAT64, true);
  private static final SqlType INT64 = SqlType.of(SqlType.Kind.INT64, false);
  private static final Expr KEY = new Expr.Column(0, "k", UTF8);
  private static final Expr X = new Expr.Column(1, "x", FLOAT64);

  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void closeAllocator() {
    allocator.close();
  }

  @Test
  void nearlyFullSelectionsCountAndSumOnlyTheKeptRows() {
    Expr twiceXPlusOne = new Expr.Call(Expr.Op.ADD, List.of(
        new Expr.Call(Expr.Op.MUL, List.of(X, new Expr.Literal(2.0, FLOAT64)), FLOAT64),
        new Expr.Literal(1.0, FLOAT64)), FLOAT64);
    List<Expr.Agg> aggs = List.of(
        new Expr.Agg(Expr.AggFn.SUM, false, X, FLOAT64),
        new Expr.Agg(Expr.AggFn.AVG, false, X, FLOAT64),
        new Expr.Agg(Expr.AggFn.COUNT, false, X, INT64),
        new Expr.Agg(Expr.AggFn.COUNT, false, null, INT64),
        new Expr.Agg(Expr.AggFn.SUM, false, twiceXPlusOne, FLOAT64),
        new Expr.Agg(Expr.AggFn.SUM, false, new Expr.Call(Expr.Op.MUL, List.of(X, X), FLOAT64), FLOAT64));
    // Rows alternate keys "a" and "b"; x is the row number, NULL at row 5; rows 0 and 1 are
    // dropped and hold values that would show in any sum (NaN, huge).
    List<List<Object>> out = aggregate(aggs, new int[] {0, 1}, new double[] {Double.NaN, 1e300}, new int[] {5});
    // Kept "a" rows: 2, 4, ..., 62 (31 rows); kept "b" rows: 3, 7, 9, ..., 63 (30 rows, 5 is NULL).
    double sumA = 0;
    double sumB = 0;
    double squaresA = 0;
    double squaresB = 0;
    for (int r = 2; r < ROWS; r++) {
      if (r % 2 == 0) {
        sumA += r;
        squaresA += r * r;
      } else if (r != 5) {
        sumB += r;
        squaresB += r * r;
      }
    }
    assertEquals(List.of("a", sumA, sumA / 31, 31L, 31L, 2 * sumA + 31, squaresA), out.get(0));
    assertEquals(List.of("b", sumB, sumB / 30, 30L, 31L, 2 * sumB + 30, squaresB), out.get(1));
  }

  @Test
  void aDivisionIsNeverComputedForADroppedRow() {
    Expr inverse = new Expr.Call(Expr.Op.DIV, List.of(new Expr.Literal(1.0, FLOAT64), X), FLOAT64);
    // Row 0 holds x = 0 and is dropped: computing 1 / x for it would fail the query.
    List<List<Object>> out = aggregate(List.of(new Expr.Agg(Expr.AggFn.SUM, false, inverse, FLOAT64)),
        new int[] {0}, new double[] {0.0}, new int[0]);
    assertEquals(2, out.size());
  }

  @Test
  void aKeptGroupWithOnlyNullsSumsToNull() {
    // Every kept "b" row is NULL; the dropped row 63 is a "b" row with a value.
    List<List<Object>> out = aggregate(List.of(new Expr.Agg(Expr.AggFn.SUM, false, X, FLOAT64)),
        new int[] {ROWS - 1}, new double[] {ROWS - 1}, oddRowsBelow(ROWS - 1));
    assertNull(out.get(1).get(1));
  }

  private static int[] oddRowsBelow(int n) {
    int[] rows = new int[n / 2];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = 2 * i + 1;
    }
    return rows;
  }

  /**
   * GROUP BY k over one batch of {@link #ROWS} rows less {@code dropped} (x there is
   * {@code droppedValues}), x the row number elsewhere and NULL at {@code nulls}.
   */
  private List<List<Object>> aggregate(List<Expr.Agg> aggs, int[] dropped, double[] droppedValues, int[] nulls) {
    VarCharVector k = new VarCharVector("k", allocator);
    Float8Vector x = new Float8Vector("x", allocator);
    k.allocateNew(ROWS);
    x.allocateNew(ROWS);
    for (int r = 0; r < ROWS; r++) {
      k.setSafe(r, (r % 2 == 0 ? "a" : "b").getBytes(StandardCharsets.UTF_8));
      x.set(r, r);
    }
    for (int d = 0; d < dropped.length; d++) {
      x.set(dropped[d], droppedValues[d]);
    }
    for (int r : nulls) {
      x.setNull(r);
    }
    k.setValueCount(ROWS);
    x.setValueCount(ROWS);
    List<Integer> kept = new ArrayList<>();
    for (int r = 0; r < ROWS; r++) {
      int row = r;
      if (Arrays.stream(dropped).noneMatch(d -> d == row)) {
        kept.add(r);
      }
    }
    List<Field> fields = new ArrayList<>(List.of(UTF8.field("k")));
    for (int a = 0; a < aggs.size(); a++) {
      fields.add(aggs.get(a).type().field("a" + a));
    }
    try (VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(k, x));
        HashAggregateOperator op = new HashAggregateOperator(
            new OneBatch(new Batch(root, kept.stream().mapToInt(Integer::intValue).toArray(), kept.size())),
            new Schema(fields), List.of(KEY), aggs, allocator)) {
      root.setRowCount(ROWS);
      List<List<Object>> out = new ArrayList<>();
      Batch batch;
      while ((batch = op.next()) != null) {
        for (int i = 0; i < batch.count(); i++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : batch.root().getFieldVectors()) {
            Object value = v.getObject(batch.row(i));
            row.add(value == null ? null : v instanceof VarCharVector ? value.toString() : value);
          }
          out.add(row);
        }
      }
      return out;
    }
  }

  /** One batch whose root the test owns. */
  private static final class OneBatch implements Operator {
    private Batch batch;

    OneBatch(Batch batch) {
      this.batch = batch;
    }

    @Override
    public Batch next() {
      Batch b = batch;
      batch = null;
      return b;
    }

    @Override
    public void close() {
      // The root belongs to the test.
    }
  }
}
