package dev.lake.exec.fn;

import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code bool_and(b)} (TRUE when every value is TRUE) and {@code bool_or(b)} (TRUE when any is),
 * PostgreSQL's: NULLs are ignored, a group without a value is NULL.
 */
public final class BooleanAggregates {
  private BooleanAggregates() {}

  public static final AggregateFunction BOOL_AND = define("bool_and", true);
  public static final AggregateFunction BOOL_OR = define("bool_or", false);

  public static final List<AggregateFunction> ALL = List.of(BOOL_AND, BOOL_OR);

  private static AggregateFunction define(String name, boolean and) {
    return AggregateDefinition.of(name, List.of(), List.of(Signature.of(Param.BOOLEAN)),
        b -> SqlType.of(SqlType.Kind.BOOL, true), AggregateFunction.Ordering.FORBIDDEN,
        spec -> DistinctInputs.wrap(spec, new Logic(and)));
  }

  /** Per group: whether it has had a value, and the conjunction (or disjunction) so far. */
  static final class Logic extends GroupState {
    private final boolean and;
    private boolean[] seen = new boolean[0];
    private boolean[] values = new boolean[0];

    private Logic(boolean and) {
      this.and = and;
    }

    private void ensure(int groupCount) {
      if (seen.length < groupCount) {
        int n = Math.max(groupCount, Math.max(16, seen.length * 2));
        seen = Arrays.copyOf(seen, n);
        values = Arrays.copyOf(values, n);
      }
    }

    private void fold(int g, boolean v) {
      values[g] = !seen[g] ? v : and ? values[g] && v : values[g] || v;
      seen[g] = true;
    }

    @Override
    public void add(int[] groups, int count, Col[] inputs, int groupCount) {
      ensure(groupCount);
      Col.Bools c = (Col.Bools) inputs[0];
      for (int i = 0; i < count; i++) {
        if (!c.nulls[i]) {
          fold(groups[i], c.values[i]);
        }
      }
    }

    @Override
    public void merge(GroupState other, int[] into, int groupCount) {
      ensure(groupCount);
      Logic o = (Logic) other;
      for (int g = 0; g < into.length && g < o.seen.length; g++) {
        if (o.seen[g] && into[g] >= 0) {
          fold(into[g], o.values[g]);
        }
      }
    }

    @Override
    public void write(int groupCount, FieldVector out) {
      Col.Bools result = new Col.Bools(groupCount);
      for (int g = 0; g < groupCount; g++) {
        boolean has = g < seen.length && seen[g];
        result.nulls[g] = !has;
        result.values[g] = has && values[g];
      }
      Vectors.write(result, out);
    }

    @Override
    public long heapBytes() {
      return 2L * seen.length;
    }
  }
}
