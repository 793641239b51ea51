package dev.lake.exec.op;

import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import dev.lake.exec.expr.Expr;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The running state of one aggregate for every group, in arrays indexed by group id. Updates are
 * one loop per batch over (group id, value) pairs. NULL inputs are ignored; a group that saw no
 * non-null value yields NULL, except COUNT, which yields 0.
 */
abstract class Accumulator {

  /** Adds the values of {@code input} (null for count(*)) to groups {@code groups[0..count)}. */
  abstract void add(int[] groups, int count, Col input, int groupCount);

  /** The final value of groups {@code 0..groupCount}. */
  abstract Col result(int groupCount);

  static Accumulator create(Expr.Agg agg) {
    Accumulator plain = plain(agg);
    if (agg.distinct()) {
      return new Distinct(plain, agg.arg().type());
    }
    return plain;
  }

  private static Accumulator plain(Expr.Agg agg) {
    if (agg.arg() == null) {
      return new Count(true);
    }
    SqlType in = agg.arg().type();
    return switch (agg.fn()) {
      case COUNT -> new Count(false);
      case SUM -> in.isLongBacked() ? new SumLong() : in.isFloat() ? new SumDouble() : new SumDecimal(agg.type());
      case AVG -> in.kind() == SqlType.Kind.DECIMAL ? new AvgDecimal(agg.type()) : new AvgDouble();
      case MIN, MAX -> new MinMax(agg.fn() == Expr.AggFn.MAX, agg.type());
      case SINGLE_VALUE -> new Single(new MinMax(true, agg.type()));
      case REGISTERED -> throw new IllegalStateException("a registered aggregate has a GroupState: " + agg);
    };
  }

  static int grow(int current, int needed) {
    return Math.max(needed, Math.max(16, current * 2));
  }

  static final class Count extends Accumulator {
    private final boolean star;
    private long[] counts = new long[16];
    /** Rows counted a batch at a time (exact below 2^53 rows a group). */
    private final GroupSums laned = new GroupSums();

    Count(boolean star) {
      this.star = star;
    }

    @Override
    void add(int[] groups, int count, Col input, int groupCount) {
      if (counts.length < groupCount) {
        counts = Arrays.copyOf(counts, grow(counts.length, groupCount));
      }
      if (star || input.noNulls()) {
        laned.ensure(groupCount);
        laned.countAll(groups, count);
      } else {
        for (int i = 0; i < count; i++) {
          if (!input.isNull(i)) {
            counts[groups[i]]++;
          }
        }
      }
    }

    @Override
    Col result(int groupCount) {
      Col.Longs out = new Col.Longs(groupCount);
      System.arraycopy(counts, 0, out.values, 0, Math.min(groupCount, counts.length));
      for (int g = 0; g < groupCount; g++) {
        out.values[g] += (long) laned.get(g);
      }
      return out;
    }
  }

  static final class SumLong extends Accumulator {
    private long[] sums = new long[16];
    private final Seen seen = new Seen();

    @Override
    void add(int[] groups, int count, Col input, int groupCount) {
      if (sums.length < groupCount) {
        sums = Arrays.copyOf(sums, grow(sums.length, groupCount));
      }
      Col.Longs c = (Col.Longs) input;
      long[] values = c.values;
      try {
        if (seen.allRows(c, count, groupCount)) {
          for (int i = 0; i < count; i++) {
            int g = groups[i];
            sums[g] = Math.addExact(sums[g], values[i]);
          }
          return;
        }
        for (int i = 0; i < count; i++) {
          if (!c.nulls[i]) {
            int g = groups[i];
            sums[g] = Math.addExact(sums[g], values[i]);
            seen.mark(g);
          }
        }
      } catch (ArithmeticException e) {
        throw new ExecutionException("BIGINT out of range in sum", e);
      }
    }

    @Override
    Col result(int groupCount) {
      Col.Longs out = new Col.Longs(groupCount);
      for (int g = 0; g < groupCount; g++) {
        boolean has = seen.has(g);
        out.nulls[g] = !has;
        out.values[g] = has ? sums[g] : 0;
      }
      return out;
    }
  }

  static final class SumDouble extends Accumulator {
    private final GroupSums sums = new GroupSums();
    private final Seen seen = new Seen();

    @Override
    void add(int[] groups, int count, Col input, int groupCount) {
      sums.ensure(groupCount);
      Col.Doubles c = (Col.Doubles) input;
      double[] values = c.values;
      if (seen.allRows(c, count, groupCount)) {
        sums.addAll(groups, values, count);
        return;
      }
      for (int i = 0; i < count; i++) {
        if (!c.nulls[i]) {
          sums.add(groups[i], values[i]);
          seen.mark(groups[i]);
        }
      }
    }

    @Override
    Col result(int groupCount) {
      Col.Doubles out = new Col.Doubles(groupCount);
      for (int g = 0; g < groupCount; g++) {
        boolean has = seen.has(g);
        out.nulls[g] = !has;
        out.values[g] = has ? sums.get(g) : 0;
      }
      return out;
    }
  }

  static final class SumDecimal extends Accumulator {
    private final SqlType type;
    private BigDecimal[] sums = new BigDecimal[16];

    SumDecimal(SqlType type) {
      this.type = type;
    }

    @Override
    void add(int[] groups, int count, Col input, int groupCount) {
      if (sums.length < groupCount) {
        sums = Arrays.copyOf(sums, grow(sums.length, groupCount));
      }
      Col.Objects c = (Col.Objects) input;
      for (int i = 0; i < count; i++) {
        if (c.values[i] != null) {
          int g = groups[i];
          BigDecimal v = (BigDecimal) c.values[i];
          sums[g] = sums[g] == null ? v : sums[g].add(v);
        }
      }
    }

    @Override
    Col result(int groupCount) {
      Col.Objects out = new Col.Objects(groupCount);
      for (int g = 0; g < groupCount && g < sums.length; g++) {
        if (sums[g] != null) {
          BigDecimal v = sums[g].setScale(type.scale(), RoundingMode.HALF_UP);
          if (v.precision() - v.scale() > type.precision() - type.scale()) {
            throw new ExecutionException(type + " out of range in sum");
          }
          out.values[g] = v;
        }
      }
      return out;
    }
  }

  /** AVG of integers and floats, computed in double. */
  static final class AvgDouble extends Accumulator {
    private final GroupSums sums = new GroupSums();
    private final GroupSums counts = new GroupSums();

    @Override
    void add(int[] groups, int count, Col input, int groupCount) {
      sums.ensure(groupCount);
      counts.ensure(groupCount);
      switch (input) {
        case Col.Longs c -> {
          if (c.noNulls()) {
            sums.addAll(groups, c.values, count);
            counts.countAll(groups, count);
            return;
          }
          for (int i = 0; i < count; i++) {
            if (!c.nulls[i]) {
              sums.add(groups[i], c.values[i]);
              counts.add(groups[i], 1);
            }
          }
        }
        case Col.Doubles c -> {
          if (c.noNulls()) {
            sums.addAll(groups, c.values, count);
            counts.countAll(groups, count);
            return;
          }
          for (int i = 0; i < count; i++) {
            if (!c.nulls[i]) {
              sums.add(groups[i], c.values[i]);
              counts.add(groups[i], 1);
            }
          }
        }
        default -> throw new IllegalStateException("avg of " + input.getClass().getSimpleName());
      }
    }

    @Override
    Col result(int groupCount) {
      Col.Doubles out = new Col.Doubles(groupCount);
      for (int g = 0; g < groupCount; g++) {
        double n = counts.get(g);
        out.nulls[g] = n == 0;
        out.values[g] = n > 0 ? sums.get(g) / n : 0;
      }
      return out;
    }
  }

  static final class AvgDecimal extends Accumulator {
    private final SqlType type;
    private BigDecimal[] sums = new BigDecimal[16];
    private long[] counts = new long[16];

    AvgDecimal(SqlType type) {
      this.type = type;
    }

    @Override
    void add(int[] groups, int count, Col input, int groupCount) {
      if (sums.length < groupCount) {
        sums = Arrays.copyOf(sums, grow(sums.length, groupCount));
        counts = Arrays.copyOf(counts, sums.length);
      }
      Col.Objects c = (Col.Objects) input;
      for (int i = 0; i < count; i++) {
        if (c.values[i] != null) {
          int g = groups[i];
          BigDecimal v = (BigDecimal) c.values[i];
          sums[g] = sums[g] == null ? v : sums[g].add(v);
          counts[g]++;
        }
      }
    }

    @Override
    Col result(int groupCount) {
      Col.Objects out = new Col.Objects(groupCount);
      for (int g = 0; g < groupCount && g < sums.length; g++) {
        if (sums[g] != null) {
          out.values[g] = sums[g].divide(BigDecimal.valueOf(counts[g]), type.scale(), RoundingMode.HALF_UP);
        }
      }
      return out;
    }
  }

  static final class MinMax extends Accumulator {
    private final boolean max;
    private final SqlType type;
    private long[] longs;
    private double[] doubles;
    private Object[] objects;
    private boolean[] seen = new boolean[16];

    MinMax(boolean max, SqlType type) {
      this.max = max;
      this.type = type;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    void add(int[] groups, int count, Col input, int groupCount) {
      if (seen.length < groupCount) {
        seen = Arrays.copyOf(seen, grow(seen.length, groupCount));
      }
      int capacity = seen.length;
      switch (input) {
        case Col.Longs c -> {
          if (longs == null || longs.length < capacity) {
            longs = longs == null ? new long[capacity] : Arrays.copyOf(longs, capacity);
          }
          for (int i = 0; i < count; i++) {
            if (!c.nulls[i]) {
              int g = groups[i];
              long v = c.values[i];
              if (!seen[g] || (max ? v > longs[g] : v < longs[g])) {
                longs[g] = v;
                seen[g] = true;
              }
            }
          }
        }
        case Col.Doubles c -> {
          if (doubles == null || doubles.length < capacity) {
            doubles = doubles == null ? new double[capacity] : Arrays.copyOf(doubles, capacity);
          }
          for (int i = 0; i < count; i++) {
            if (!c.nulls[i]) {
              int g = groups[i];
              double v = c.values[i];
              if (!seen[g] || (max ? Double.compare(v, doubles[g]) > 0 : Double.compare(v, doubles[g]) < 0)) {
                doubles[g] = v;
                seen[g] = true;
              }
            }
          }
        }
        default -> {
          if (objects == null || objects.length < capacity) {
            objects = objects == null ? new Object[capacity] : Arrays.copyOf(objects, capacity);
          }
          for (int i = 0; i < count; i++) {
            Object v = input.get(i);
            if (v != null) {
              int g = groups[i];
              int cmp = seen[g] ? ((Comparable) v).compareTo(objects[g]) : 0;
              if (!seen[g] || (max ? cmp > 0 : cmp < 0)) {
                objects[g] = v;
                seen[g] = true;
              }
            }
          }
        }
      }
    }

    @Override
    Col result(int groupCount) {
      List<Object> values = new ArrayList<>(groupCount);
      for (int g = 0; g < groupCount; g++) {
        if (g >= seen.length || !seen[g]) {
          values.add(null);
        } else if (longs != null) {
          values.add(longs[g]);
        } else if (doubles != null) {
          values.add(doubles[g]);
        } else {
          values.add(objects[g]);
        }
      }
      return Vectors.fromObjects(type, values);
    }
  }

  /** {@code fn(DISTINCT x)}: collects each group's distinct values, then feeds them to fn. */
  static final class Distinct extends Accumulator {
    private final Accumulator inner;
    private final SqlType argType;
    private final List<Set<Object>> sets = new ArrayList<>();

    Distinct(Accumulator inner, SqlType argType) {
      this.inner = inner;
      this.argType = argType;
    }

    @Override
    void add(int[] groups, int count, Col input, int groupCount) {
      while (sets.size() < groupCount) {
        sets.add(new HashSet<>());
      }
      for (int i = 0; i < count; i++) {
        Object v = input.get(i);
        if (v != null) {
          sets.get(groups[i]).add(HashAggregateOperator.normaliseKey(v));
        }
      }
    }

    @Override
    Col result(int groupCount) {
      List<Object> values = new ArrayList<>();
      List<Integer> owners = new ArrayList<>();
      for (int g = 0; g < sets.size(); g++) {
        for (Object v : sets.get(g)) {
          values.add(v);
          owners.add(g);
        }
      }
      int[] groups = owners.stream().mapToInt(Integer::intValue).toArray();
      inner.add(groups, groups.length, Vectors.fromObjects(argType, values), groupCount);
      return inner.result(groupCount);
    }
  }

  /** SINGLE_VALUE: the one value of each group; a second row in a group fails the query. */
  static final class Single extends Accumulator {
    private final MinMax value;
    private long[] rows = new long[16];

    Single(MinMax value) {
      this.value = value;
    }

    @Override
    void add(int[] groups, int count, Col input, int groupCount) {
      if (rows.length < groupCount) {
        rows = Arrays.copyOf(rows, grow(rows.length, groupCount));
      }
      for (int i = 0; i < count; i++) {
        if (++rows[groups[i]] > 1) {
          throw new dev.lake.exec.ExecutionException("a scalar subquery returned more than one row");
        }
      }
      value.add(groups, count, input, groupCount);
    }

    @Override
    Col result(int groupCount) {
      return value.result(groupCount);
    }
  }

  /**
   * Which groups have had a non-NULL input (a SUM of none is NULL). While every batch has been
   * free of NULLs, every group that has had a row has had a value, so nothing is stored per row:
   * all groups below {@code seenBelow}. The first batch with NULLs switches to one flag per group.
   */
  static final class Seen {
    private boolean dense = true;
    private int seenBelow;
    private boolean[] flags = new boolean[0];

    /** True when the batch has no NULLs and the caller may skip {@link #mark}. */
    boolean allRows(Col input, int count, int groupCount) {
      if (dense && input.noNulls()) {
        if (count > 0) {
          seenBelow = Math.max(seenBelow, groupCount);
        }
        return true;
      }
      if (flags.length < groupCount) {
        flags = Arrays.copyOf(flags, grow(flags.length, groupCount));
      }
      if (dense) {
        dense = false;
        Arrays.fill(flags, 0, seenBelow, true);
      }
      return false;
    }

    void mark(int group) {
      flags[group] = true;
    }

    boolean has(int group) {
      return dense ? group < seenBelow : group < flags.length && flags[group];
    }
  }
}
