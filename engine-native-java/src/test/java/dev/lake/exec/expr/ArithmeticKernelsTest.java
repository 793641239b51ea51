package dev.lake.exec.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Arithmetic on double columns of a dense batch reads the Arrow buffers directly; it answers
 * exactly as the path through copied columns (the same batch behind a selection of every row),
 * for columns with and without NULLs, constants on either side and nested expressions.
 */
class ArithmeticKernelsTest {
  private static final SqlType DOUBLE = SqlType.of(SqlType.Kind.FLOAT64, true);

  @Test
  void denseBuffersAndCopiedColumnsGiveTheSameResults() {
    Random random = new Random(3);
    try (BufferAllocator allocator = new RootAllocator();
        Float8Vector x = new Float8Vector("x", allocator);
        Float8Vector y = new Float8Vector("y", allocator);
        Float8Vector z = new Float8Vector("z", allocator)) {
      int n = 1000;
      x.allocateNew(n);
      y.allocateNew(n);
      z.allocateNew(n);
      for (int i = 0; i < n; i++) {
        x.set(i, random.nextDouble() * 100 - 50);
        y.set(i, random.nextInt(5) == 0 ? -0.0 : random.nextDouble());
        if (i % 7 == 0) {
          z.setNull(i);
        } else {
          z.set(i, random.nextGaussian());
        }
      }
      x.setValueCount(n);
      y.setValueCount(n);
      z.setValueCount(n);
      try (VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(x, y, z))) {
        root.setRowCount(n);
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
          all[i] = i;
        }
        Expr cx = new Expr.Column(0, "x", DOUBLE);
        Expr cy = new Expr.Column(1, "y", DOUBLE);
        Expr cz = new Expr.Column(2, "z", DOUBLE);
        Expr one = new Expr.Literal(1.0, SqlType.of(SqlType.Kind.FLOAT64, false));
        List<Expr> expressions = List.of(
            call(Expr.Op.MUL, cx, cy), call(Expr.Op.ADD, cx, one), call(Expr.Op.SUB, one, cy),
            call(Expr.Op.SUB, cx, one), call(Expr.Op.MUL, cx, call(Expr.Op.SUB, one, cy)),
            call(Expr.Op.MUL, call(Expr.Op.MUL, cx, call(Expr.Op.SUB, one, cy)), call(Expr.Op.ADD, one, cz)),
            call(Expr.Op.MUL, cz, cx), call(Expr.Op.SUB, cz, one), call(Expr.Op.ADD, cx, cx),
            call(Expr.Op.DIV, cx, call(Expr.Op.ADD, cy, one)));
        for (Expr e : expressions) {
          Kernel kernel = Kernel.compile(e);
          Col.Doubles dense = (Col.Doubles) kernel.eval(Batch.dense(root));
          Col.Doubles copied = (Col.Doubles) Kernel.compile(e).eval(new Batch(root, all, n));
          for (int i = 0; i < n; i++) {
            assertEquals(copied.isNull(i), dense.isNull(i), e + " null at " + i);
            if (!copied.isNull(i)) {
              assertEquals(Double.doubleToRawLongBits(copied.values[i]),
                  Double.doubleToRawLongBits(dense.values[i]), e + " at " + i);
            }
          }
        }
      }
    }
  }

  /**
   * Kernels compiled to recycle their results answer each batch as fresh ones do, through batches
   * of different sizes, with and without NULLs in turn: a NULL flag of an earlier batch never
   * shows in a later one, and a result without NULLs says so.
   */
  @Test
  void recycledResultsAnswerEachBatchAsFreshOnesDo() {
    Random random = new Random(5);
    try (BufferAllocator allocator = new RootAllocator()) {
      Expr cx = new Expr.Column(0, "x", DOUBLE);
      Expr cz = new Expr.Column(1, "z", DOUBLE);
      Expr one = new Expr.Literal(1.0, SqlType.of(SqlType.Kind.FLOAT64, false));
      List<Expr> expressions = List.of(call(Expr.Op.MUL, cx, call(Expr.Op.SUB, one, cz)),
          call(Expr.Op.MUL, call(Expr.Op.MUL, cx, call(Expr.Op.SUB, one, cz)), call(Expr.Op.ADD, one, cx)),
          call(Expr.Op.ADD, cz, one), call(Expr.Op.DIV, cx, call(Expr.Op.ADD, cz, one)));
      List<Kernel> recycled = Kernel.compileShared(expressions, true);
      for (int round = 0; round < 12; round++) {
        int n = 1 + random.nextInt(round % 3 == 0 ? 50 : 2000);
        boolean nulls = round % 2 == 0;
        try (Float8Vector x = new Float8Vector("x", allocator);
            Float8Vector z = new Float8Vector("z", allocator)) {
          x.allocateNew(n);
          z.allocateNew(n);
          for (int i = 0; i < n; i++) {
            x.set(i, random.nextDouble() * 10);
            if (nulls && i % 3 == 0) {
              z.setNull(i);
            } else {
              z.set(i, random.nextDouble());
            }
          }
          x.setValueCount(n);
          z.setValueCount(n);
          try (VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(x, z))) {
            root.setRowCount(n);
            int[] odd = new int[n / 2];
            for (int i = 0; i < odd.length; i++) {
              odd[i] = 2 * i + 1;
            }
            for (Batch batch : List.of(Batch.dense(root), new Batch(root, odd, odd.length))) {
              for (int e = 0; e < expressions.size(); e++) {
                Col.Doubles fresh = (Col.Doubles) Kernel.compile(expressions.get(e)).eval(batch);
                Col.Doubles reused = (Col.Doubles) recycled.get(e).eval(batch);
                String where = expressions.get(e) + " round " + round;
                assertEquals(fresh.size, reused.size, where);
                assertEquals(fresh.noNulls(), reused.noNulls(), where);
                for (int i = 0; i < fresh.size; i++) {
                  assertEquals(fresh.isNull(i), reused.isNull(i), where + " null at " + i);
                  if (!fresh.isNull(i)) {
                    assertEquals(fresh.values[i], reused.values[i], where + " at " + i);
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  private static Expr call(Expr.Op op, Expr a, Expr b) {
    return new Expr.Call(op, List.of(a, b), DOUBLE);
  }
}
