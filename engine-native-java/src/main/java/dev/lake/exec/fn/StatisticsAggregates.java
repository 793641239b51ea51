package dev.lake.exec.fn;

import dev.lake.exec.Col;
import dev.lake.exec.Vectors;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * Variance and standard deviation, PostgreSQL's: {@code var_samp} ({@code variance}), {@code
 * var_pop}, {@code stddev_samp} ({@code stddev}), {@code stddev_pop} of any number, in DOUBLE.
 * NULLs are ignored; the sample forms of fewer than two values and every form of no value are
 * NULL. Each group keeps its count, mean and sum of squared deviations, updated by Welford's
 * method and merged by Chan's formula, so large offsets do not cancel the digits that matter (as
 * a sum of squares would).
 */
public final class StatisticsAggregates {
  private StatisticsAggregates() {}

  private enum Form { VAR_SAMP, VAR_POP, STDDEV_SAMP, STDDEV_POP }

  public static final AggregateFunction VAR_SAMP = define("var_samp", List.of("variance"), Form.VAR_SAMP);
  public static final AggregateFunction VAR_POP = define("var_pop", List.of(), Form.VAR_POP);
  public static final AggregateFunction STDDEV_SAMP = define("stddev_samp", List.of("stddev"), Form.STDDEV_SAMP);
  public static final AggregateFunction STDDEV_POP = define("stddev_pop", List.of(), Form.STDDEV_POP);

  public static final List<AggregateFunction> ALL = List.of(VAR_SAMP, VAR_POP, STDDEV_SAMP, STDDEV_POP);

  private static AggregateFunction define(String name, List<String> aliases, Form form) {
    return AggregateDefinition.of(name, aliases, List.of(Signature.of(Param.DOUBLE)),
        b -> AggregateDefinition.float64(), AggregateFunction.Ordering.FORBIDDEN,
        spec -> DistinctInputs.wrap(spec, new Moments(form)));
  }

  /** Per group: the count, mean and sum of squared deviations from the mean (M2) of its values. */
  static final class Moments extends GroupState {
    private final Form form;
    private long[] counts = new long[0];
    private double[] means = new double[0];
    private double[] m2 = new double[0];

    private Moments(Form form) {
      this.form = form;
    }

    private void ensure(int groupCount) {
      if (counts.length < groupCount) {
        int n = Math.max(groupCount, Math.max(16, counts.length * 2));
        counts = Arrays.copyOf(counts, n);
        means = Arrays.copyOf(means, n);
        m2 = Arrays.copyOf(m2, n);
      }
    }

    @Override
    public void add(int[] groups, int count, Col[] inputs, int groupCount) {
      ensure(groupCount);
      Col.Doubles c = (Col.Doubles) inputs[0];
      for (int i = 0; i < count; i++) {
        if (!c.nulls[i]) {
          int g = groups[i];
          double x = c.values[i];
          long n = ++counts[g];
          double delta = x - means[g];
          means[g] += delta / n;
          m2[g] += delta * (x - means[g]);
        }
      }
    }

    @Override
    public void merge(GroupState other, int[] into, int groupCount) {
      ensure(groupCount);
      Moments o = (Moments) other;
      for (int g = 0; g < into.length && g < o.counts.length; g++) {
        long nb = o.counts[g];
        if (nb == 0 || into[g] < 0) {
          continue;
        }
        int t = into[g];
        long na = counts[t];
        long n = na + nb;
        double delta = o.means[g] - means[t];
        means[t] += delta * nb / n;
        m2[t] += o.m2[g] + delta * delta * ((double) na * nb / n);
        counts[t] = n;
      }
    }

    @Override
    public void write(int groupCount, FieldVector out) {
      Col.Doubles result = new Col.Doubles(groupCount);
      boolean sample = form == Form.VAR_SAMP || form == Form.STDDEV_SAMP;
      boolean root = form == Form.STDDEV_SAMP || form == Form.STDDEV_POP;
      for (int g = 0; g < groupCount; g++) {
        long n = g < counts.length ? counts[g] : 0;
        if (n == 0 || sample && n == 1) {
          result.nulls[g] = true;
          continue;
        }
        double variance = Math.max(0, m2[g]) / (sample ? n - 1 : n);
        result.values[g] = root ? Math.sqrt(variance) : variance;
      }
      Vectors.write(result, out);
    }

    @Override
    public long heapBytes() {
      return 24L * counts.length;
    }
  }
}
