package dev.lake.exec.op;

import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The plain COUNT, floating-point SUM and AVG aggregates of one hash aggregation, computed from
 * state they share instead of one pass over the batch each: every group's row count (one
 * histogram a batch serves COUNT(*) and the counts of AVG and COUNT(x)), per argument the rows
 * where it was NULL (only batches with NULLs touch them), and per argument one sum that SUM(x) and
 * AVG(x) both read. SELECT sum(x), avg(x), count(x), count(*) thus walks the groups twice a batch,
 * not five times. A sum is added as {@link Accumulator.AvgDouble} adds it (laned for a batch
 * without NULLs, row by row otherwise), so it is the same on every run; only the rounding of a
 * SUM after a batch with NULLs may differ from {@link Accumulator.SumDouble}'s, which adds row by
 * row from then on. A SUM or AVG of a floating-point product of two arguments multiplies as it
 * adds (see {@link #sumsProduct}), the same products rounded the same way, never stored.
 */
final class SharedAggregates {
  private final GroupSums rows = new GroupSums();
  /** The shared state of every argument (or product of two) some shared aggregate reads. */
  private final List<Arg> args = new ArrayList<>();
  private boolean used;
  private int readers;

  /**
   * Whether {@code agg} is a SUM or AVG of a floating-point product of two non-constant factors,
   * which this class sums without the product being computed into a column first. (A constant
   * factor is left to the arithmetic kernels' scalar loops.)
   */
  static boolean sumsProduct(Expr.Agg agg) {
    return !agg.distinct() && agg.filter() == null && (agg.fn() == Expr.AggFn.SUM || agg.fn() == Expr.AggFn.AVG)
        && agg.arg() instanceof Expr.Call c && c.op() == Expr.Op.MUL && c.type().isFloat()
        && c.args().stream().allMatch(f -> f.type().isFloat() && !(f instanceof Expr.Literal));
  }

  /** The accumulator of {@code agg} over one argument slot (-1 for count(*)); see the three-slot form. */
  Accumulator accumulator(Expr.Agg agg, int slot) {
    return accumulator(agg, slot, -1);
  }

  /**
   * The accumulator of {@code agg}, whose argument is evaluated into slot {@code slot} (-1 for
   * count(*)), or when it {@link #sumsProduct}, whose factors are in slots {@code slot} and
   * {@code factor}; it reads this shared state. Null when {@code agg} is not one it computes.
   */
  Accumulator accumulator(Expr.Agg agg, int slot, int factor) {
    if (agg.distinct() || agg.filter() != null || agg.registered() != null) {
      return null;
    }
    if (slot < 0) {
      used = true;
      readers++;
      return new RowCount(null);
    }
    SqlType in = agg.arg().type();
    boolean sums = switch (agg.fn()) {
      case COUNT -> false;
      case SUM -> in.isFloat();
      case AVG -> in.isFloat() || in.isLongBacked();
      default -> false;
    };
    if (agg.fn() != Expr.AggFn.COUNT && !sums) {
      return null;
    }
    Arg arg = args.stream().filter(a -> a.slot == slot && a.factor == factor).findFirst().orElse(null);
    if (arg == null) {
      arg = new Arg(slot, factor);
      args.add(arg);
    }
    arg.sums |= sums;
    used = true;
    readers++;
    return switch (agg.fn()) {
      case COUNT -> new RowCount(arg);
      default -> new SumOrAverage(arg, agg.fn() == Expr.AggFn.AVG);
    };
  }

  /** How many accumulators {@link #accumulator} returned. */
  int readers() {
    return readers;
  }

  /**
   * Whether {@link #add} may be given rows of group -1, which count nowhere, while there are
   * {@code groupCount} groups (see {@link GroupSums#skipsUngrouped}).
   */
  boolean skipsUngrouped(int groupCount) {
    return GroupSums.skipsUngrouped(groupCount);
  }

  /**
   * Adds a batch: {@code values[s]} is argument slot {@code s} over the rows in
   * {@code groups[0..count)}; a row of group -1 is skipped when {@link #skipsUngrouped} allows it.
   */
  void add(int[] groups, int count, Col[] values, int groupCount) {
    if (!used) {
      return;
    }
    rows.ensure(groupCount);
    rows.countAll(groups, count);
    for (Arg arg : args) {
      arg.add(groups, count, values, groupCount);
    }
  }

  /**
   * One argument's (or product's) NULL rows and, when a SUM or AVG reads it, its sum, per group.
   * A product is NULL where either factor is.
   */
  private static final class Arg {
    final int slot;
    /** The slot of the second factor of a product, else -1. */
    final int factor;
    boolean sums;
    final GroupSums sum = new GroupSums();
    long[] nulls = new long[0];

    Arg(int slot, int factor) {
      this.slot = slot;
      this.factor = factor;
    }

    void add(int[] groups, int count, Col[] values, int groupCount) {
      Col input = values[slot];
      Col other = factor < 0 ? null : values[factor];
      boolean noNulls = input.noNulls() && (other == null || other.noNulls());
      if (!noNulls) {
        if (nulls.length < groupCount) {
          nulls = Arrays.copyOf(nulls, Accumulator.grow(nulls.length, groupCount));
        }
        for (int i = 0; i < count; i++) {
          if ((input.isNull(i) || (other != null && other.isNull(i))) && groups[i] >= 0) {
            nulls[groups[i]]++;
          }
        }
      }
      if (!sums) {
        return;
      }
      sum.ensure(groupCount);
      if (other != null) {
        addProducts(groups, count, (Col.Doubles) input, (Col.Doubles) other, noNulls);
        return;
      }
      switch (input) {
        case Col.Doubles c -> {
          if (noNulls) {
            sum.addAll(groups, c.values, count);
          } else {
            for (int i = 0; i < count; i++) {
              if (!c.nulls[i] && groups[i] >= 0) {
                sum.add(groups[i], c.values[i]);
              }
            }
          }
        }
        case Col.Longs c -> {
          if (noNulls) {
            sum.addAll(groups, c.values, count);
          } else {
            for (int i = 0; i < count; i++) {
              if (!c.nulls[i] && groups[i] >= 0) {
                sum.add(groups[i], c.values[i]);
              }
            }
          }
        }
        default -> throw new IllegalStateException("sum of " + input.getClass().getSimpleName());
      }
    }

    private void addProducts(int[] groups, int count, Col.Doubles a, Col.Doubles b, boolean noNulls) {
      if (noNulls) {
        sum.addProducts(groups, a.values, b.values, count);
        return;
      }
      for (int i = 0; i < count; i++) {
        if (!a.nulls[i] && !b.nulls[i] && groups[i] >= 0) {
          sum.add(groups[i], a.values[i] * b.values[i]);
        }
      }
    }

    long nulls(int group) {
      return group < nulls.length ? nulls[group] : 0;
    }
  }

  /** Rows of the group: all of them for count(*), else those where the argument is not NULL. */
  private long count(Arg arg, int group) {
    long all = (long) rows.get(group);
    return arg == null ? all : all - arg.nulls(group);
  }

  /** The shared accumulators only read; {@link #add} updates their state once a batch for all. */
  private abstract class Reader extends Accumulator {
    @Override
    final void add(int[] groups, int count, Col input, int groupCount) {
      // Done by SharedAggregates.add.
    }
  }

  private final class RowCount extends Reader {
    private final Arg arg;

    RowCount(Arg arg) {
      this.arg = arg;
    }

    @Override
    Col result(int groupCount) {
      Col.Longs out = new Col.Longs(groupCount);
      for (int g = 0; g < groupCount; g++) {
        out.values[g] = count(arg, g);
      }
      return out;
    }
  }

  /** SUM of doubles or AVG of integers and doubles, in double: NULL for a group without a value. */
  private final class SumOrAverage extends Reader {
    private final Arg arg;
    private final boolean average;

    SumOrAverage(Arg arg, boolean average) {
      this.arg = arg;
      this.average = average;
    }

    @Override
    Col result(int groupCount) {
      Col.Doubles out = new Col.Doubles(groupCount);
      for (int g = 0; g < groupCount; g++) {
        long n = count(arg, g);
        out.nulls[g] = n == 0;
        out.values[g] = n == 0 ? 0 : average ? arg.sum.get(g) / n : arg.sum.get(g);
      }
      return out;
    }
  }
}
