package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.ValueVector;

/**
 * A distance between two lists of numbers per row. The common shape, a FLOAT or DOUBLE list
 * column against one constant vector (a nearest-neighbour query), runs as one loop per row over
 * the column's element buffer read in place, in double precision; any other shape (two columns,
 * computed lists, integer elements, NULL elements) reads both sides as flat double arrays first.
 */
public final class VectorKernel implements Kernel {

  /** What is computed of the two vectors. */
  public enum Metric { L2, COSINE, INNER_PRODUCT }

  private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
  private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

  private final Metric metric;
  private final String name;
  private final Kernel a;
  private final Kernel b;
  private final SqlType aElement;
  private final SqlType bElement;

  public VectorKernel(Metric metric, String name, Kernel a, Kernel b, SqlType aElement, SqlType bElement) {
    this.metric = metric;
    this.name = name;
    this.a = a;
    this.b = b;
    this.aElement = aElement;
    this.bElement = bElement;
  }

  @Override
  public Col eval(Batch batch) {
    double[] constant = constant(b, batch);
    if (constant != null && a instanceof NestedKernel column) {
      Col fast = inPlace(column.lists(batch), constant);
      if (fast != null) {
        return fast;
      }
    }
    double[] constantA = constant(a, batch);
    if (constantA != null && b instanceof NestedKernel column) {
      Col fast = inPlace(column.lists(batch), constantA);
      if (fast != null) {
        return fast;
      }
    }
    return general(ListBatch.of(a, aElement, batch), ListBatch.of(b, bElement, batch));
  }

  /**
   * The vector every row of {@code k} has when it is one constant (a literal or a bound
   * parameter, which evaluate to one shared list), or null.
   */
  private double[] constant(Kernel k, Batch batch) {
    if (!(k instanceof LogicKernels.Constant c)) {
      return null;
    }
    Object v = c.value();
    if (v == null) {
      return null;
    }
    List<?> l = (List<?>) v;
    double[] out = new double[l.size()];
    for (int i = 0; i < out.length; i++) {
      if (l.get(i) == null) {
        throw nullElement();
      }
      out[i] = ((Number) l.get(i)).doubleValue();
    }
    return out;
  }

  /** A FLOAT or DOUBLE list column without NULL elements against {@code q}; null for other columns. */
  private Col inPlace(NestedKernel.Located at, double[] q) {
    ValueVector data = ListBatch.dataVector(at.vector(), name);
    boolean floats = data instanceof Float4Vector;
    if (!floats && !(data instanceof Float8Vector) || Vectors.hasNulls(data)) {
      return null;
    }
    MemorySegment values = Vectors.segment(((org.apache.arrow.vector.BaseFixedWidthVector) data).getDataBuffer());
    int[] rows = at.rows();
    Col.Doubles out = new Col.Doubles(rows.length);
    boolean nulls = false;
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] < 0) {
        out.nulls[i] = true;
        nulls = true;
        continue;
      }
      long start = ListBatch.start(at.vector(), rows[i], name);
      int length = (int) ListBatch.length(at.vector(), rows[i], name);
      if (length != q.length) {
        throw dimensions(length, q.length);
      }
      out.values[i] = inPlace(values, floats, start, q);
    }
    return nulls ? out : out.markNoNulls();
  }

  /**
   * The metric of the elements at {@code start} of {@code values} (FLOAT or DOUBLE) and {@code q}.
   * The element width is loop-invariant, so the JIT compiles one loop per width.
   */
  private double inPlace(MemorySegment values, boolean floats, long start, double[] q) {
    long width = floats ? Float.BYTES : Double.BYTES;
    long base = start * width;
    double dot = 0;
    double x2 = 0;
    double y2 = 0;
    double l2 = 0;
    for (int k = 0; k < q.length; k++) {
      long at = base + k * width;
      double x = floats ? values.get(FLOAT, at) : values.get(DOUBLE, at);
      double d = x - q[k];
      dot += x * q[k];
      x2 += x * x;
      y2 += q[k] * q[k];
      l2 += d * d;
    }
    return result(dot, x2, y2, l2);
  }

  /** Any two sides, each flattened to doubles. */
  private Col general(ListBatch x, ListBatch y) {
    double[] xs = flat(x.elements());
    double[] ys = flat(y.elements());
    Col.Doubles out = new Col.Doubles(x.size());
    for (int i = 0; i < x.size(); i++) {
      if (x.isNull(i) || y.isNull(i)) {
        out.nulls[i] = true;
        continue;
      }
      int n = x.length(i);
      if (n != y.length(i)) {
        throw dimensions(n, y.length(i));
      }
      int xa = x.start(i);
      int ya = y.start(i);
      double dot = 0;
      double x2 = 0;
      double y2 = 0;
      double l2 = 0;
      for (int k = 0; k < n; k++) {
        double p = xs[xa + k];
        double q = ys[ya + k];
        dot += p * q;
        x2 += p * p;
        y2 += q * q;
        l2 += (p - q) * (p - q);
      }
      out.values[i] = result(dot, x2, y2, l2);
    }
    return out;
  }

  private double[] flat(Col elements) {
    double[] out = new double[elements.size];
    for (int k = 0; k < out.length; k++) {
      if (elements.isNull(k)) {
        throw nullElement();
      }
      out[k] = switch (elements) {
        case Col.Doubles d -> d.values[k];
        case Col.Longs l -> l.values[k];
        default -> ((Number) elements.get(k)).doubleValue();
      };
    }
    return out;
  }

  /** The metric from the sums of one pair: a.b, |a|^2, |b|^2 and |a - b|^2. */
  private double result(double dot, double x2, double y2, double l2) {
    return switch (metric) {
      case L2 -> Math.sqrt(l2);
      case INNER_PRODUCT -> dot;
      case COSINE -> 1 - dot / Math.sqrt(x2 * y2);
    };
  }

  private ExecutionException dimensions(int left, int right) {
    return new ExecutionException(name + ": the vectors have different dimensions, " + left + " and " + right);
  }

  private ExecutionException nullElement() {
    return new ExecutionException(name + ": a vector must not contain NULL elements");
  }
}
