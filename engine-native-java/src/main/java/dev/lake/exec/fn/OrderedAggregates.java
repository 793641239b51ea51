package dev.lake.exec.fn;

import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * Aggregates of a group's rows in an order, PostgreSQL's and DuckDB's: {@code string_agg(s, sep)}
 * and {@code array_agg(x)} (optionally {@code DISTINCT}, optionally {@code ORDER BY ...} inside the
 * call), {@code median(x)}, and the ordered-set aggregates {@code percentile_cont(f) WITHIN GROUP
 * (ORDER BY x)} and {@code percentile_disc(f) WITHIN GROUP (ORDER BY x)}. Each group keeps its rows
 * (on the heap, charged to the query's budget), sorted when the result is written.
 *
 * <p>The SQL front end hands the percentiles their ordering key as a second argument ({@code
 * percentile_cont(f, x)}), so their result type can depend on it.
 */
public final class OrderedAggregates {
  private OrderedAggregates() {}

  private static final AggregateFunction.Ordering OPTIONAL = AggregateFunction.Ordering.OPTIONAL;

  /** Concatenates the non-NULL strings, each after the first preceded by its row's separator. */
  public static final AggregateFunction STRING_AGG = AggregateDefinition.of("string_agg", List.of(),
      List.of(Signature.of(Param.STRING, Param.STRING)), b -> SqlType.of(SqlType.Kind.UTF8, true), OPTIONAL,
      spec -> new Collected(spec, 0, OrderedAggregates::concatenate));

  /** The values, NULLs included, as a list; NULL for a group without rows. */
  public static final AggregateFunction ARRAY_AGG = new AggregateDefinition("array_agg", List.of(),
      List.of(Signature.of(Param.SAME)), b -> b.type(0).withNullable(true), true, OPTIONAL, b -> {},
      spec -> new Collected(spec, -1, rows -> rows.stream().map(r -> r[0]).toList()));

  /** The 0.5 continuous percentile of the non-NULL numbers. */
  public static final AggregateFunction MEDIAN = AggregateDefinition.of("median", List.of(),
      List.of(Signature.of(Param.DOUBLE)), b -> AggregateDefinition.float64(), AggregateFunction.Ordering.FORBIDDEN,
      spec -> new Collected(spec, 0, rows -> continuous(0.5, sortedDoubles(rows, 0))));

  public static final AggregateFunction PERCENTILE_CONT = new AggregateDefinition("percentile_cont", List.of(),
      List.of(Signature.of(Param.DOUBLE, Param.DOUBLE)), b -> AggregateDefinition.float64(), false,
      AggregateFunction.Ordering.REQUIRED, b -> checkFraction("percentile_cont", b),
      spec -> new Collected(spec, 1, rows -> continuous(fraction(spec), values(rows, 1))));

  public static final AggregateFunction PERCENTILE_DISC = new AggregateDefinition("percentile_disc", List.of(),
      List.of(Signature.of(Param.DOUBLE, Param.SAME)), b -> b.type(1).withNullable(true), false,
      AggregateFunction.Ordering.REQUIRED, b -> checkFraction("percentile_disc", b),
      spec -> new Collected(spec, 1, rows -> discrete(fraction(spec), values(rows, 1))));

  public static final List<AggregateFunction> ALL = List.of(STRING_AGG, ARRAY_AGG, MEDIAN, PERCENTILE_CONT,
      PERCENTILE_DISC);

  private static void checkFraction(String name, Binding b) {
    if (!b.isConstant(0)) {
      throw new IllegalArgumentException(name + " needs a constant fraction between 0 and 1");
    }
    Object v = b.constant(0);
    double f = v == null ? Double.NaN : ((Number) v).doubleValue();
    if (!(f >= 0 && f <= 1)) {
      throw new IllegalArgumentException(name + " fraction " + v + " is outside [0, 1]");
    }
  }

  private static double fraction(AggregateSpec spec) {
    return ((Number) spec.binding().constant(0)).doubleValue();
  }

  private static Object concatenate(List<Object[]> rows) {
    StringBuilder out = new StringBuilder();
    boolean first = true;
    for (Object[] r : rows) {
      if (!first && r[1] != null) {
        out.append((String) r[1]);
      }
      out.append((String) r[0]);
      first = false;
    }
    return out.toString();
  }

  private static List<Object> values(List<Object[]> rows, int input) {
    return rows.stream().map(r -> r[input]).toList();
  }

  private static List<Object> sortedDoubles(List<Object[]> rows, int input) {
    return rows.stream().map(r -> r[input]).sorted(Comparator.comparingDouble(v -> (Double) v)).toList();
  }

  /** The value at position {@code f * (n - 1)}, interpolated linearly between its neighbours. */
  private static Object continuous(double f, List<Object> sorted) {
    int n = sorted.size();
    double position = f * (n - 1);
    int lo = (int) Math.floor(position);
    int hi = (int) Math.ceil(position);
    double a = (Double) sorted.get(lo);
    double b = (Double) sorted.get(hi);
    return lo == hi ? a : a + (position - lo) * (b - a);
  }

  /** The first value whose cumulative distribution ({@code (i + 1) / n}) reaches {@code f}. */
  private static Object discrete(double f, List<Object> sorted) {
    int n = sorted.size();
    int i = Math.max(0, (int) Math.ceil(f * n) - 1);
    return sorted.get(Math.min(n - 1, i));
  }

  /** About how many heap bytes a kept row holds. */
  static long rowBytes(Object[] row) {
    long bytes = 24 + 8L * row.length;
    for (Object v : row) {
      bytes += v instanceof String s ? 48 + 2L * s.length() : v instanceof BigDecimal ? 64 : v == null ? 0 : 16;
    }
    return bytes;
  }

  /** SQL's order of two values of one type: numbers by value, strings by code point. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compareValues(Object a, Object b) {
    if (a instanceof String s && b instanceof String t) {
      return compareCodePoints(s, t);
    }
    if (a instanceof Double x && b instanceof Double y) {
      return Double.compare(x == 0.0 ? 0.0 : x, y == 0.0 ? 0.0 : y);
    }
    return ((Comparable) a).compareTo(b);
  }

  private static int compareCodePoints(String s, String t) {
    int i = 0;
    int j = 0;
    while (i < s.length() && j < t.length()) {
      int a = s.codePointAt(i);
      int b = t.codePointAt(j);
      if (a != b) {
        return Integer.compare(a, b);
      }
      i += Character.charCount(a);
      j += Character.charCount(b);
    }
    return Integer.compare(s.length() - i, t.length() - j);
  }

  /**
   * Each group's rows (every input of the call), kept until the result is written; then sorted by
   * the call's ORDER BY (a stable sort: rows the ordering ties keep their input order), reduced to
   * distinct argument tuples for DISTINCT, and given to {@code finish}. Rows whose input {@code
   * skipNull} is NULL are not kept (-1: every row is); a group with no row is NULL.
   */
  static final class Collected extends GroupState {
    private final AggregateSpec spec;
    private final int skipNull;
    private final Function<List<Object[]>, Object> finish;
    private final List<List<Object[]>> groups = new ArrayList<>();
    private long bytes;

    Collected(AggregateSpec spec, int skipNull, Function<List<Object[]>, Object> finish) {
      this.spec = spec;
      this.skipNull = skipNull;
      this.finish = finish;
    }

    private void ensure(int groupCount) {
      while (groups.size() < groupCount) {
        groups.add(null);
      }
    }

    @Override
    public void add(int[] groupOf, int count, Col[] inputs, int groupCount) {
      ensure(groupCount);
      for (int i = 0; i < count; i++) {
        if (skipNull >= 0 && inputs[skipNull].isNull(i)) {
          continue;
        }
        Object[] row = new Object[inputs.length];
        for (int j = 0; j < inputs.length; j++) {
          row[j] = inputs[j].get(i);
        }
        int g = groupOf[i];
        List<Object[]> rows = groups.get(g);
        if (rows == null) {
          rows = new ArrayList<>();
          groups.set(g, rows);
          bytes += 40;
        }
        rows.add(row);
        bytes += rowBytes(row);
      }
    }

    @Override
    public void merge(GroupState other, int[] into, int groupCount) {
      ensure(groupCount);
      Collected o = (Collected) other;
      for (int g = 0; g < into.length && g < o.groups.size(); g++) {
        List<Object[]> rows = o.groups.get(g);
        if (rows == null || into[g] < 0) {
          continue;
        }
        List<Object[]> target = groups.get(into[g]);
        if (target == null) {
          groups.set(into[g], new ArrayList<>(rows));
        } else {
          target.addAll(rows);
        }
        for (Object[] r : rows) {
          bytes += rowBytes(r);
        }
      }
    }

    private Comparator<Object[]> ordering() {
      Comparator<Object[]> order = (x, y) -> 0;
      int base = spec.binding().size();
      for (int k = 0; k < spec.order().size(); k++) {
        AggregateSpec.SortKey key = spec.order().get(k);
        int column = base + k;
        Comparator<Object[]> byKey = (x, y) -> {
          Object a = x[column];
          Object b = y[column];
          if (a == null || b == null) {
            return a == b ? 0 : (a == null) == key.nullsFirst() ? -1 : 1;
          }
          int c = compareValues(a, b);
          return key.descending() ? -c : c;
        };
        order = order.thenComparing(byKey);
      }
      return order;
    }

    private List<Object[]> prepared(List<Object[]> rows) {
      List<Object[]> sorted = new ArrayList<>(rows);
      if (!spec.order().isEmpty()) {
        sorted.sort(ordering());
      }
      if (!spec.distinct()) {
        return sorted;
      }
      Set<List<Object>> seen = new LinkedHashSet<>();
      List<Object[]> distinct = new ArrayList<>();
      for (Object[] r : sorted) {
        List<Object> args = new ArrayList<>();
        for (int j = 0; j < spec.binding().size(); j++) {
          args.add(DistinctInputs.normalise(r[j]));
        }
        if (seen.add(args)) {
          distinct.add(r);
        }
      }
      return distinct;
    }

    @Override
    public void write(int groupCount, FieldVector out) {
      List<Object> values = new ArrayList<>(groupCount);
      for (int g = 0; g < groupCount; g++) {
        List<Object[]> rows = g < groups.size() ? groups.get(g) : null;
        values.add(rows == null || rows.isEmpty() ? null : finish.apply(prepared(rows)));
      }
      if (spec.function().listResult()) {
        writeLists(values, (ListVector) out);
      } else {
        Vectors.write(Vectors.fromObjects(spec.result(), values), out);
      }
    }

    /** Writes one list per group (NULL for none) of {@code spec}'s result type. */
    private void writeLists(List<Object> lists, ListVector out) {
      List<Object> elements = new ArrayList<>();
      for (Object l : lists) {
        if (l != null) {
          elements.addAll((List<?>) l);
        }
      }
      out.clear();
      out.allocateNew();
      Vectors.write(Vectors.fromObjects(spec.result(), elements), out.getDataVector());
      for (int g = 0; g < lists.size(); g++) {
        if (lists.get(g) instanceof List<?> l) {
          out.startNewValue(g);
          out.endValue(g, l.size());
        }
      }
      out.setValueCount(lists.size());
    }

    @Override
    public long heapBytes() {
      return bytes + 16L * groups.size();
    }
  }
}
