package dev.lake.exec.expr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code + - *} over double Arrow buffers (or arrays seen as segments), a vector at a time: the
 * JIT does not vectorise scalar loops over memory segments, and copying the buffers into arrays
 * first costs as much as the arithmetic. Loaded only when {@link dev.lake.exec.Simd#ENABLED}.
 */
final class SimdArithmetic {
  private static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_PREFERRED;
  private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

  private SimdArithmetic() {}

  /*
   * One loop per operator: the Vector API compiles a lanewise operation to vector instructions
   * only when its operator is a constant at the call, not when it is chosen at run time.
   */

  /** {@code r[i] = x[i] op c}, or {@code c op x[i]} when {@code constantLeft}, for {@code i < n}. */
  static void scalar(Expr.Op op, MemorySegment x, double c, boolean constantLeft, double[] r, int n) {
    DoubleVector constant = DoubleVector.broadcast(DOUBLES, c);
    int lanes = DOUBLES.length();
    int bound = DOUBLES.loopBound(n);
    int i = 0;
    switch (op) {
      case ADD -> {
        for (; i < bound; i += lanes) {
          load(x, i).add(constant).intoArray(r, i);
        }
        for (; i < n; i++) {
          r[i] = x.getAtIndex(DOUBLE, i) + c;
        }
      }
      case MUL -> {
        for (; i < bound; i += lanes) {
          load(x, i).mul(constant).intoArray(r, i);
        }
        for (; i < n; i++) {
          r[i] = x.getAtIndex(DOUBLE, i) * c;
        }
      }
      case SUB -> {
        if (constantLeft) {
          for (; i < bound; i += lanes) {
            constant.sub(load(x, i)).intoArray(r, i);
          }
          for (; i < n; i++) {
            r[i] = c - x.getAtIndex(DOUBLE, i);
          }
        } else {
          for (; i < bound; i += lanes) {
            load(x, i).sub(constant).intoArray(r, i);
          }
          for (; i < n; i++) {
            r[i] = x.getAtIndex(DOUBLE, i) - c;
          }
        }
      }
      default -> throw new IllegalStateException(op.name());
    }
  }

  /** {@code r[i] = x[i] op y[i]} for {@code i < n}. */
  static void binary(Expr.Op op, MemorySegment x, MemorySegment y, double[] r, int n) {
    int lanes = DOUBLES.length();
    int bound = DOUBLES.loopBound(n);
    int i = 0;
    switch (op) {
      case ADD -> {
        for (; i < bound; i += lanes) {
          load(x, i).add(load(y, i)).intoArray(r, i);
        }
        for (; i < n; i++) {
          r[i] = x.getAtIndex(DOUBLE, i) + y.getAtIndex(DOUBLE, i);
        }
      }
      case SUB -> {
        for (; i < bound; i += lanes) {
          load(x, i).sub(load(y, i)).intoArray(r, i);
        }
        for (; i < n; i++) {
          r[i] = x.getAtIndex(DOUBLE, i) - y.getAtIndex(DOUBLE, i);
        }
      }
      case MUL -> {
        for (; i < bound; i += lanes) {
          load(x, i).mul(load(y, i)).intoArray(r, i);
        }
        for (; i < n; i++) {
          r[i] = x.getAtIndex(DOUBLE, i) * y.getAtIndex(DOUBLE, i);
        }
      }
      default -> throw new IllegalStateException(op.name());
    }
  }

  private static DoubleVector load(MemorySegment segment, int row) {
    return DoubleVector.fromMemorySegment(DOUBLES, segment, (long) row * 8, ByteOrder.LITTLE_ENDIAN);
  }
}
