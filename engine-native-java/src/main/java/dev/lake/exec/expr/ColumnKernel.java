package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Simd;
import dev.lake.exec.Vectors;
import java.lang.foreign.MemorySegment;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;

/**
 * A column of the batch read into a {@link Col}. Arithmetic over a double column of a batch with
 * every row live and no NULL reads the Arrow buffer itself instead ({@link #denseDoubles}), a
 * vector at a time: the copy into a Java array, and its zeroing, would cost as much as the
 * arithmetic.
 */
final class ColumnKernel implements Kernel {
  /** Only the vector loops read buffers faster than copying them first ({@link SimdArithmetic}). */
  private static final boolean SIMD = Simd.ENABLED;
  private final int index;

  ColumnKernel(int index) {
    this.index = index;
  }

  @Override
  public Col eval(Batch batch) {
    return Vectors.read(batch.root().getVector(index), batch);
  }

  /**
   * The data buffer of the double column {@code kernel} reads, when {@code kernel} is a column
   * (shared or not), {@code batch} has no selection and the column no NULL; else null.
   */
  static MemorySegment denseDoubles(Kernel kernel, Batch batch) {
    if (!SIMD) {
      return null;
    }
    Kernel k = kernel instanceof KernelCompiler.Memo memo ? memo.inner() : kernel;
    if (!(k instanceof ColumnKernel column) || batch.selection() != null) {
      return null;
    }
    FieldVector vector = batch.root().getVector(column.index);
    return vector instanceof Float8Vector v && !Vectors.hasNulls(v)
        ? Vectors.segment(v.getDataBuffer()) : null;
  }
}
