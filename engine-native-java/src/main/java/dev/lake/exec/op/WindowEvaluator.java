package dev.lake.exec.op;

import dev.lake.exec.Col;
import dev.lake.exec.Cols;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.HeapBudget;
import dev.lake.exec.SqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;

/**
 * The functions of one window over some input rows (whole partitions): a stable sort by
 * partition keys (ascending, NULLs first) then order keys on normalized keys ({@link WindowSort}), partition and peer boundaries found by comparing
 * neighbours, the frame of every row (bounds found in O(1) for ROWS, by binary search among the
 * partition's ordered keys for RANGE offsets), then each function in one pass: ranking functions
 * from the peers, sums and counts as differences of prefix sums (exact: 128-bit for integers),
 * double sums from a segment tree, min and max from a monotone deque (frame ends only move
 * forward). Results are in input row order.
 */
final class WindowEvaluator {
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private final WindowOperator.Group group;
  /** The input rows this evaluator computes, ascending: whole partitions of the window. */
  private final int[] rows;
  /** Sorted positions: {@code rows.length}. */
  private final int n;
  private final IntFunction<Col> columns;
  private final List<Col> outputs;
  private final List<Col> arguments;
  private final HeapBudget budget;

  /** Sorted position → input row. */
  private int[] ord;
  /** The sort's packed keys by sorted position, or null (see {@link WindowSort.Sorted}). */
  private long[] packed;
  /** The low bits of {@link #packed} that hold the order keys. */
  private int orderBits;
  /** Partition boundaries: partition p is sorted positions [parts[p], parts[p + 1]). */
  private int[] parts;
  private int partCount;
  private int[] peerStart;
  private int[] peerEnd;
  /** The frame of the row at each sorted position: sorted positions [frameStart, frameEnd), empty when end <= start. */
  private int[] frameStart;
  private int[] frameEnd;

  /**
   * @param rows input rows in ascending order, every row of each of their partitions
   * @param columns input columns of every row (read only: evaluators of one window run at once)
   * @param outputs one column of every input row per function, written at {@code rows} only
   * @param arguments per function, its first argument as a column of every row (see
   *     {@link #argument}), or null when it uses none
   */
  WindowEvaluator(WindowOperator.Group group, int[] rows, IntFunction<Col> columns, List<Col> outputs,
      List<Col> arguments, HeapBudget budget) {
    this.group = group;
    this.rows = rows;
    this.n = rows.length;
    this.columns = columns;
    this.outputs = outputs;
    this.arguments = arguments;
    this.budget = budget;
  }

  /** Computes every function of the window at this evaluator's rows. */
  void evaluate() {
    sort();
    boundaries();
    if (group.functions().stream().anyMatch(f -> f.kind().usesFrame())) {
      frames();
    }
    for (int i = 0; i < group.functions().size(); i++) {
      compute(group.functions().get(i), outputs.get(i), arguments.get(i));
    }
  }

  // ------------------------------------------------------------------ sort and boundaries

  private void sort() {
    List<WindowSort.Key> keys = new ArrayList<>();
    for (int c : group.partition()) {
      keys.add(new WindowSort.Key(columns.apply(c), false, true));
    }
    for (SortOperator.Key k : group.order()) {
      keys.add(new WindowSort.Key(columns.apply(k.column()), k.descending(), k.nullsFirst()));
    }
    budget.charge(4L * n);
    WindowSort.Sorted sorted = WindowSort.sort(rows, keys, group.partition().length, budget);
    ord = sorted.ord();
    packed = sorted.packed();
    orderBits = sorted.trailingBits();
  }

  /** Compares input rows {@code a} and {@code b} of {@code col}; NULLs first or last, and equal to each other. */
  static SortOperator.RowComparator comparator(Col col, boolean descending, boolean nullsFirst) {
    int sign = descending ? -1 : 1;
    int nullOrder = nullsFirst ? -1 : 1;
    SortOperator.RowComparator values = switch (col) {
      case Col.Longs c -> (a, b) -> sign * Long.compare(c.values[a], c.values[b]);
      case Col.Doubles c -> (a, b) -> sign * Double.compare(c.values[a], c.values[b]);
      case Col.Bools c -> (a, b) -> sign * Boolean.compare(c.values[a], c.values[b]);
      case Col.Objects c -> (a, b) -> sign * WindowSort.compare(c.values[a], c.values[b]);
    };
    return (a, b) -> {
      boolean na = col.isNull(a);
      boolean nb = col.isNull(b);
      if (na || nb) {
        return na == nb ? 0 : na ? nullOrder : -nullOrder;
      }
      return values.compare(a, b);
    };
  }

  /** Whether input rows {@code a} and {@code b} agree on every column in {@code cols}. */
  private static boolean same(Col[] cols, int a, int b) {
    for (Col c : cols) {
      if (c instanceof Col.Doubles d) {
        // Peers as the sort sees them: NaN equals NaN.
        if (d.nulls[a] != d.nulls[b] || (!d.nulls[a] && Double.compare(d.values[a], d.values[b]) != 0
            && d.values[a] != d.values[b])) {
          return false;
        }
      } else if (!Cols.equal(c, a, c, b)) {
        return false;
      }
    }
    return true;
  }

  private static boolean noDoubles(Col[] cols) {
    for (Col c : cols) {
      if (c instanceof Col.Doubles) {
        return false;
      }
    }
    return true;
  }

  private void boundaries() {
    Col[] partition = new Col[group.partition().length];
    for (int i = 0; i < partition.length; i++) {
      partition[i] = columns.apply(group.partition()[i]);
    }
    Col[] order = new Col[group.order().size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = columns.apply(group.order().get(i).column());
    }
    budget.charge(12L * n + 8);
    peerStart = new int[n];
    peerEnd = new int[n];
    int[] bounds = new int[n + 1];
    int count = 0;
    int peer = 0;
    // Neighbours compared on their packed sort keys read the keys in order; compared on their
    // columns they read two random rows each. Doubles differ there: -0.0 and 0.0 are peers.
    long[] keys = noDoubles(partition) && noDoubles(order) ? packed : null;
    long partitionMask = orderBits >= 64 ? 0 : -1L << orderBits;
    for (int g = 0; g < n; g++) {
      boolean newPartition = g == 0 || (keys != null
          ? ((keys[g - 1] ^ keys[g]) & partitionMask) != 0
          : !same(partition, ord[g - 1], ord[g]));
      if (newPartition) {
        bounds[count++] = g;
      }
      if (newPartition || (keys != null ? keys[g - 1] != keys[g] : !same(order, ord[g - 1], ord[g]))) {
        for (int j = peer; j < g; j++) {
          peerEnd[j] = g;
        }
        peer = g;
      }
      peerStart[g] = peer;
    }
    for (int j = peer; j < n; j++) {
      peerEnd[j] = n;
    }
    bounds[count] = n;
    parts = bounds;
    partCount = count;
    packed = null;
  }

  // ------------------------------------------------------------------ frames

  private void frames() {
    budget.charge(8L * n);
    frameStart = new int[n];
    frameEnd = new int[n];
    WindowFrame frame = group.frame();
    for (int p = 0; p < partCount; p++) {
      int ps = parts[p];
      int pe = parts[p + 1];
      if (frame.rows()) {
        for (int g = ps; g < pe; g++) {
          frameStart[g] = rowsBound(frame.lower(), g, ps, pe, false);
          frameEnd[g] = rowsBound(frame.upper(), g, ps, pe, true);
        }
      } else {
        rangeFrames(frame, ps, pe);
      }
    }
  }

  /** A ROWS bound of the row at {@code g}: the first position of the frame, or (end) the one after its last. */
  private static int rowsBound(WindowFrame.Bound bound, int g, int ps, int pe, boolean end) {
    long at = switch (bound.type()) {
      case UNBOUNDED_PRECEDING -> ps;
      case UNBOUNDED_FOLLOWING -> pe;
      case CURRENT_ROW -> end ? g + 1L : g;
      case PRECEDING -> g - (Long) bound.offset() + (end ? 1 : 0);
      case FOLLOWING -> g + (Long) bound.offset() + (end ? 1 : 0);
    };
    return (int) Math.max(ps, Math.min(pe, at));
  }

  private void rangeFrames(WindowFrame frame, int ps, int pe) {
    boolean offsets = frame.lower().offset() != null || frame.upper().offset() != null;
    if (!offsets) {
      for (int g = ps; g < pe; g++) {
        frameStart[g] = rangeBound(frame.lower(), g, ps, pe, false);
        frameEnd[g] = rangeBound(frame.upper(), g, ps, pe, true);
      }
      return;
    }
    // One order key (the planner checks): its NULLs sit together at one end of the partition.
    SortOperator.Key key = group.order().getFirst();
    Col col = columns.apply(key.column());
    int nulls = 0;
    for (int g = ps; g < pe; g++) {
      if (col.isNull(ord[g])) {
        nulls++;
      }
    }
    int lo = key.nullsFirst() ? ps + nulls : ps;
    int hi = key.nullsFirst() ? pe : pe - nulls;
    for (int g = ps; g < pe; g++) {
      boolean isNull = col.isNull(ord[g]);
      frameStart[g] = frame.lower().offset() == null ? rangeBound(frame.lower(), g, ps, pe, false)
          : isNull ? peerStart[g] : offsetBound(col, key.descending(), frame.lower(), g, lo, hi, false);
      frameEnd[g] = frame.upper().offset() == null ? rangeBound(frame.upper(), g, ps, pe, true)
          : isNull ? peerEnd[g] : offsetBound(col, key.descending(), frame.upper(), g, lo, hi, true);
    }
  }

  private int rangeBound(WindowFrame.Bound bound, int g, int ps, int pe, boolean end) {
    return switch (bound.type()) {
      case UNBOUNDED_PRECEDING -> ps;
      case UNBOUNDED_FOLLOWING -> pe;
      case CURRENT_ROW -> end ? peerEnd[g] : peerStart[g];
      default -> throw new IllegalStateException(bound.toString());
    };
  }

  /**
   * A RANGE bound with an offset for the row at {@code g} (its key not NULL): among the
   * non-NULL keys at {@code [lo, hi)}, the first position whose key is past the bound value
   * (start: at or past it; end: strictly past it), "past" following the key's direction.
   */
  private int offsetBound(Col col, boolean descending, WindowFrame.Bound bound, int g, int lo, int hi,
      boolean end) {
    // Toward the partition's end is "following": larger keys ascending, smaller descending.
    boolean add = (bound.type() == WindowFrame.Type.FOLLOWING) != descending;
    int row = ord[g];
    switch (col) {
      case Col.Longs c -> {
        long target;
        if (bound.offset() instanceof WindowFrame.DateMicros micros) {
          // Keys are days; the bound is a time of day. Round it to the days it admits: a start
          // admits keys at or past it, an end keys not past it.
          long at = shifted(saturatedTimes(c.values[row]), micros.micros(), add);
          boolean up = end == descending;
          target = up ? Math.ceilDiv(at, MICROS_PER_DAY) : Math.floorDiv(at, MICROS_PER_DAY);
        } else {
          target = shifted(c.values[row], bound.offset(), add);
        }
        long key = target;
        return firstPast(lo, hi, end, m -> descending
            ? Long.compare(key, c.values[ord[m]]) : Long.compare(c.values[ord[m]], key));
      }
      case Col.Doubles c -> {
        double o = ((Number) bound.offset()).doubleValue();
        double target = add ? c.values[row] + o : c.values[row] - o;
        return firstPast(lo, hi, end, m -> descending
            ? Double.compare(target, c.values[ord[m]]) : Double.compare(c.values[ord[m]], target));
      }
      case Col.Objects c -> {
        BigDecimal o = (BigDecimal) bound.offset();
        BigDecimal x = (BigDecimal) c.values[row];
        BigDecimal target = add ? x.add(o) : x.subtract(o);
        return firstPast(lo, hi, end, m -> {
          BigDecimal v = (BigDecimal) c.values[ord[m]];
          return descending ? target.compareTo(v) : v.compareTo(target);
        });
      }
      case Col.Bools c -> throw new IllegalStateException("RANGE offset over a BOOLEAN key");
    }
  }

  /**
   * Binary search over the sorted positions {@code [lo, hi)}: the first position whose key is at
   * or past the bound ({@code end}: strictly past it), {@code compareAt(m)} comparing the key at
   * position {@code m} with the bound value in the key's direction.
   */
  private static int firstPast(int lo, int hi, boolean end, IntUnaryOperator compareAt) {
    int a = lo;
    int b = hi;
    while (a < b) {
      int m = (a + b) >>> 1;
      int cmp = compareAt.applyAsInt(m);
      if (cmp < 0 || (end && cmp == 0)) {
        a = m + 1;
      } else {
        b = m;
      }
    }
    return a;
  }

  private static long saturatedTimes(long days) {
    long micros = days * MICROS_PER_DAY;
    return micros / MICROS_PER_DAY == days ? micros : days < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
  }

  /** {@code value} plus or minus the offset, saturating at the ends of {@code long}. */
  private long shifted(long value, Object offset, boolean add) {
    if (offset instanceof WindowFrame.Months months) {
      long m = add ? months.months() : -months.months();
      try {
        if (months.days()) {
          return LocalDate.ofEpochDay(value).plusMonths(m).toEpochDay();
        }
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(value, 1_000_000L),
            (int) Math.floorMod(value, 1_000_000L) * 1000, ZoneOffset.UTC).plusMonths(m);
        return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), t);
      } catch (java.time.DateTimeException | ArithmeticException e) {
        return add ? Long.MAX_VALUE : Long.MIN_VALUE;
      }
    }
    long o = offset instanceof WindowFrame.DateMicros micros ? micros.micros() : (Long) offset;
    long r = add ? value + o : value - o;
    if (add ? r < value : r > value) {
      return add ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return r;
  }

  // ------------------------------------------------------------------ functions

  private void compute(WindowFunction f, Col out, Col argument) {
    switch (f.kind()) {
      case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST -> ranking(f.kind(), out);
      case NTILE -> ntile(f, out);
      case LAG, LEAD -> offset(f, out);
      case FIRST_VALUE, LAST_VALUE, NTH_VALUE -> value(f, out);
      case COUNT -> count(f, out);
      case SUM, SUM0, AVG -> sum(f, out, argument);
      case MIN, MAX -> extreme(f, out, argument);
    }
  }

  private void ranking(WindowFunction.Kind kind, Col out) {
    for (int p = 0; p < partCount; p++) {
      int ps = parts[p];
      int pe = parts[p + 1];
      long dense = 0;
      for (int g = ps; g < pe; g++) {
        if (peerStart[g] == g) {
          dense++;
        }
        int row = ord[g];
        switch (kind) {
          case ROW_NUMBER -> setLong(out, row, g - ps + 1);
          case RANK -> setLong(out, row, peerStart[g] - ps + 1);
          case DENSE_RANK -> setLong(out, row, dense);
          case PERCENT_RANK -> setDouble(out, row, pe - ps > 1 ? (double) (peerStart[g] - ps) / (pe - ps - 1) : 0.0);
          case CUME_DIST -> setDouble(out, row, (double) (peerEnd[g] - ps) / (pe - ps));
          default -> throw new IllegalStateException(kind.name());
        }
      }
    }
  }

  /** ntile(k): PostgreSQL's buckets, k read at the partition's first row; the first (rows mod k) buckets hold one row more. */
  private void ntile(WindowFunction f, Col out) {
    for (int p = 0; p < partCount; p++) {
      int ps = parts[p];
      int pe = parts[p + 1];
      Long k = longArg(f, 0, ord[ps]);
      if (k != null && k <= 0) {
        throw new ExecutionException("argument of ntile must be greater than zero, not " + k);
      }
      long rows = pe - ps;
      for (int g = ps; g < pe; g++) {
        if (k == null) {
          setNull(out, ord[g]);
          continue;
        }
        long per = rows / k;
        long extra = rows % k;
        long large = extra * (per + 1);
        long j = g - ps;
        setLong(out, ord[g], j < large ? j / (per + 1) + 1 : extra + (j - large) / per + 1);
      }
    }
  }

  /** lag/lead(x, offset = 1, default = NULL): x at the row offset rows before/after within the partition. */
  private void offset(WindowFunction f, Col out) {
    int[] args = f.args();
    Col values = args[0] >= 0 ? columns.apply(args[0]) : null;
    int sign = f.kind() == WindowFunction.Kind.LAG ? -1 : 1;
    NonNulls nonNulls = f.ignoreNulls() ? nonNulls(f) : null;
    for (int p = 0; p < partCount; p++) {
      int ps = parts[p];
      int pe = parts[p + 1];
      for (int g = ps; g < pe; g++) {
        int row = ord[g];
        Long offset = args.length > 1 ? longArg(f, 1, row) : Long.valueOf(1);
        if (offset == null) {
          setNull(out, row);
          continue;
        }
        long target = nonNulls == null ? g + sign * offset : nonNulls.offset(g, sign * offset, ps, pe);
        if (target >= ps && target < pe) {
          copy(values, f, 0, ord[(int) target], out, row);
        } else if (args.length > 2) {
          copy(args[2] >= 0 ? columns.apply(args[2]) : null, f, 2, row, out, row);
        } else {
          setNull(out, row);
        }
      }
    }
  }

  private void value(WindowFunction f, Col out) {
    int[] args = f.args();
    Col values = args[0] >= 0 ? columns.apply(args[0]) : null;
    NonNulls nonNulls = f.ignoreNulls() ? nonNulls(f) : null;
    for (int g = 0; g < n; g++) {
      int row = ord[g];
      int s = frameStart[g];
      int e = frameEnd[g];
      long target = switch (f.kind()) {
        case FIRST_VALUE -> nonNulls == null ? s : nonNulls.nth(s, e, 1);
        case LAST_VALUE -> nonNulls == null ? e - 1L : nonNulls.last(s, e);
        default -> {
          Long nth = longArg(f, 1, row);
          if (nth != null && nth <= 0) {
            throw new ExecutionException("argument of nth_value must be greater than zero, not " + nth);
          }
          yield nth == null ? Long.MAX_VALUE : nonNulls == null ? s + nth - 1 : nonNulls.nth(s, e, nth);
        }
      };
      if (e > s && target >= s && target < e) {
        copy(values, f, 0, ord[(int) target], out, row);
      } else {
        setNull(out, row);
      }
    }
  }

  /**
   * The sorted positions whose argument 0 is not NULL, for IGNORE NULLS: {@code before[g]} of
   * them lie before position {@code g}, the {@code j}-th (from 0) is at {@code at[j]}.
   */
  private record NonNulls(int[] before, int[] at) {
    /** The position {@code k} non-NULL values after (k > 0) or before (k < 0) {@code g} in [ps, pe), or -1. */
    long offset(int g, long k, int ps, int pe) {
      if (k == 0) {
        return g;
      }
      long j = k < 0 ? before[g] + k : before[g + 1] + k - 1;
      return j >= before[ps] && j < before[pe] ? at[(int) j] : -1;
    }

    /** The position of the {@code k}-th (from 1) non-NULL value in [s, e), or -1. */
    long nth(int s, int e, long k) {
      long j = before[s] + k - 1;
      return s < e && j < before[e] ? at[(int) j] : -1;
    }

    /** The position of the last non-NULL value in [s, e), or -1. */
    long last(int s, int e) {
      return s < e && before[e] > before[s] ? at[before[e] - 1] : -1;
    }
  }

  private NonNulls nonNulls(WindowFunction f) {
    int[] before = prefixCounts(f);
    budget.charge(4L * before[n]);
    int[] at = new int[before[n]];
    for (int g = 0; g < n; g++) {
      if (before[g + 1] > before[g]) {
        at[before[g]] = g;
      }
    }
    return new NonNulls(before, at);
  }

  /** Prefix counts of the non-NULL values of argument 0 in sorted order, or null for count(*). */
  private int[] prefixCounts(WindowFunction f) {
    int[] args = f.args();
    if (args.length == 0) {
      return null;
    }
    budget.charge(4L * n + 4);
    int[] counts = new int[n + 1];
    Col values = args[0] >= 0 ? columns.apply(args[0]) : null;
    boolean constantNull = values == null && f.constants().get(0) == null;
    for (int g = 0; g < n; g++) {
      boolean isNull = values == null ? constantNull : values.isNull(ord[g]);
      counts[g + 1] = counts[g] + (isNull ? 0 : 1);
    }
    return counts;
  }

  private long frameCount(int[] counts, int g) {
    int s = frameStart[g];
    int e = frameEnd[g];
    if (e <= s) {
      return 0;
    }
    return counts == null ? e - s : counts[e] - counts[s];
  }

  private void count(WindowFunction f, Col out) {
    int[] counts = prefixCounts(f);
    for (int g = 0; g < n; g++) {
      setLong(out, ord[g], frameCount(counts, g));
    }
  }

  private void sum(WindowFunction f, Col out, Col values) {
    int[] counts = prefixCounts(f);
    boolean zero = f.kind() == WindowFunction.Kind.SUM0;
    boolean avg = f.kind() == WindowFunction.Kind.AVG;
    switch (values) {
      case Col.Longs c -> {
        budget.charge(16L * n + 16);
        long[] lo = new long[n + 1];
        long[] hi = new long[n + 1];
        for (int g = 0; g < n; g++) {
          int row = ord[g];
          long v = c.nulls[row] ? 0 : c.values[row];
          long sum = lo[g] + v;
          hi[g + 1] = hi[g] + (v >> 63) + (Long.compareUnsigned(sum, lo[g]) < 0 ? 1 : 0);
          lo[g + 1] = sum;
        }
        for (int g = 0; g < n; g++) {
          int row = ord[g];
          long count = frameCount(counts, g);
          if (count == 0) {
            setZeroOrNull(out, row, zero);
            continue;
          }
          int s = frameStart[g];
          int e = frameEnd[g];
          long dLo = lo[e] - lo[s];
          long dHi = hi[e] - hi[s] - (Long.compareUnsigned(lo[e], lo[s]) < 0 ? 1 : 0);
          if (avg) {
            double total = dHi == (dLo >> 63) ? (double) dLo
                : new BigInteger(Long.toString(dHi)).shiftLeft(64).add(unsigned(dLo)).doubleValue();
            setAvg(out, row, total, null, count, f.type());
          } else if (dHi != (dLo >> 63)) {
            throw new ExecutionException("BIGINT out of range in sum");
          } else {
            setLong(out, row, dLo);
          }
        }
      }
      case Col.Doubles c -> {
        budget.charge(16L * n + 16);
        double[] tree = new double[2 * Math.max(n, 1)];
        for (int g = 0; g < n; g++) {
          int row = ord[g];
          tree[n + g] = c.nulls[row] ? 0 : c.values[row];
        }
        for (int i = n - 1; i > 0; i--) {
          tree[i] = tree[2 * i] + tree[2 * i + 1];
        }
        for (int g = 0; g < n; g++) {
          int row = ord[g];
          long count = frameCount(counts, g);
          if (count == 0) {
            setZeroOrNull(out, row, zero);
            continue;
          }
          double total = 0;
          for (int l = frameStart[g] + n, r = frameEnd[g] + n; l < r; l >>= 1, r >>= 1) {
            if ((l & 1) == 1) {
              total += tree[l++];
            }
            if ((r & 1) == 1) {
              total += tree[--r];
            }
          }
          if (avg) {
            setAvg(out, row, total, null, count, f.type());
          } else {
            setDouble(out, row, total);
          }
        }
      }
      case Col.Objects c -> {
        budget.charge(72L * n + 72);
        BigDecimal[] prefix = new BigDecimal[n + 1];
        prefix[0] = BigDecimal.ZERO;
        for (int g = 0; g < n; g++) {
          Object v = c.values[ord[g]];
          prefix[g + 1] = v == null ? prefix[g] : prefix[g].add((BigDecimal) v);
        }
        for (int g = 0; g < n; g++) {
          int row = ord[g];
          long count = frameCount(counts, g);
          if (count == 0) {
            setZeroOrNull(out, row, zero);
            continue;
          }
          BigDecimal total = prefix[frameEnd[g]].subtract(prefix[frameStart[g]]);
          if (avg) {
            setAvg(out, row, 0, total, count, f.type());
          } else {
            setDecimal(out, row, total, f.type());
          }
        }
      }
      case Col.Bools c -> throw new IllegalStateException("sum of BOOLEAN");
    }
  }

  private static BigInteger unsigned(long v) {
    BigInteger b = BigInteger.valueOf(v & Long.MAX_VALUE);
    return v < 0 ? b.setBit(63) : b;
  }

  private static void setAvg(Col out, int row, double total, BigDecimal decimal, long count, SqlType type) {
    if (out instanceof Col.Objects o) {
      BigDecimal sum = decimal != null ? decimal : BigDecimal.valueOf(total);
      o.values[row] = sum.divide(BigDecimal.valueOf(count), type.scale(), RoundingMode.HALF_UP);
    } else {
      setDouble(out, row, (decimal != null ? decimal.doubleValue() : total) / count);
    }
  }

  private static void setZeroOrNull(Col out, int row, boolean zero) {
    if (!zero) {
      setNull(out, row);
      return;
    }
    switch (out) {
      case Col.Longs o -> o.values[row] = 0;
      case Col.Doubles o -> o.values[row] = 0;
      case Col.Objects o -> o.values[row] = BigDecimal.ZERO;
      case Col.Bools o -> throw new IllegalStateException("zero of BOOLEAN");
    }
  }

  /** min/max over each frame: a deque of sorted positions whose values only worsen from its head. */
  private void extreme(WindowFunction f, Col out, Col values) {
    SortOperator.RowComparator cmp = comparator(values, f.kind() == WindowFunction.Kind.MIN, false);
    budget.charge(4L * n);
    int[] deque = new int[Math.max(n, 1)];
    for (int p = 0; p < partCount; p++) {
      int ps = parts[p];
      int pe = parts[p + 1];
      int head = 0;
      int tail = 0;
      int next = ps;
      for (int g = ps; g < pe; g++) {
        int end = frameEnd[g];
        while (next < end) {
          int row = ord[next];
          if (!values.isNull(row)) {
            // A value no better than the newcomer can never be the answer again.
            while (tail > head && cmp.compare(ord[deque[tail - 1]], row) <= 0) {
              tail--;
            }
            deque[tail++] = next;
          }
          next++;
        }
        while (head < tail && deque[head] < frameStart[g]) {
          head++;
        }
        int row = ord[g];
        if (head < tail && end > frameStart[g]) {
          copy(values, f, 0, ord[deque[head]], out, row);
        } else {
          setNull(out, row);
        }
      }
    }
  }

  // ------------------------------------------------------------------ values

  /**
   * The first argument of {@code f} as a column of all {@code rows} input rows (a constant
   * repeated), for the functions that read it whole (sum, avg, min, max); null for the others.
   */
  static Col argument(WindowFunction f, int rows, IntFunction<Col> columns, HeapBudget budget) {
    switch (f.kind()) {
      case SUM, SUM0, AVG, MIN, MAX -> { }
      default -> {
        return null;
      }
    }
    int[] args = f.args();
    if (args[0] >= 0) {
      return columns.apply(args[0]);
    }
    Object constant = f.constants().get(0);
    List<Object> repeated = new ArrayList<>(java.util.Collections.nCopies(rows, constant));
    SqlType type = f.kind() == WindowFunction.Kind.AVG || f.kind() == WindowFunction.Kind.SUM
        || f.kind() == WindowFunction.Kind.SUM0 ? typeOf(constant) : f.type();
    Col col = dev.lake.exec.Vectors.fromObjects(type, repeated);
    budget.charge(HeapBudget.bytes(col));
    return col;
  }

  private static SqlType typeOf(Object constant) {
    return switch (constant) {
      case Double d -> SqlType.of(SqlType.Kind.FLOAT64, true);
      case BigDecimal d -> SqlType.decimal(SqlType.MAX_DECIMAL_PRECISION, Math.max(0, d.scale()), true);
      case null, default -> SqlType.of(SqlType.Kind.INT64, true);
    };
  }

  /** Argument {@code i} at input row {@code row} as a long, or null. */
  private Long longArg(WindowFunction f, int i, int row) {
    int column = f.args()[i];
    Object v = column >= 0 ? columns.apply(column).get(row) : f.constants().get(i);
    return v == null ? null : ((Number) v).longValue();
  }

  /** Copies argument {@code arg} (column {@code src} at input row {@code from}, or its constant) to {@code out} at {@code to}. */
  private static void copy(Col src, WindowFunction f, int arg, int from, Col out, int to) {
    if (src == null) {
      Object v = f.constants().get(arg);
      if (v == null) {
        setNull(out, to);
        return;
      }
      switch (out) {
        case Col.Longs o -> o.values[to] = ((Number) v).longValue();
        case Col.Doubles o -> o.values[to] = ((Number) v).doubleValue();
        case Col.Bools o -> o.values[to] = (Boolean) v;
        case Col.Objects o -> o.values[to] = v;
      }
      return;
    }
    switch (out) {
      case Col.Longs o -> {
        Col.Longs s = (Col.Longs) src;
        o.values[to] = s.values[from];
        o.nulls[to] = s.nulls[from];
      }
      case Col.Doubles o -> {
        if (src instanceof Col.Longs s) {
          o.values[to] = s.values[from];
          o.nulls[to] = s.nulls[from];
        } else {
          Col.Doubles s = (Col.Doubles) src;
          o.values[to] = s.values[from];
          o.nulls[to] = s.nulls[from];
        }
      }
      case Col.Bools o -> {
        Col.Bools s = (Col.Bools) src;
        o.values[to] = s.values[from];
        o.nulls[to] = s.nulls[from];
      }
      case Col.Objects o -> o.values[to] = ((Col.Objects) src).values[from];
    }
  }

  private static void setNull(Col out, int row) {
    switch (out) {
      case Col.Longs o -> o.nulls[row] = true;
      case Col.Doubles o -> o.nulls[row] = true;
      case Col.Bools o -> o.nulls[row] = true;
      case Col.Objects o -> o.values[row] = null;
    }
  }

  private static void setLong(Col out, int row, long v) {
    if (out instanceof Col.Doubles d) {
      d.values[row] = v;
    } else if (out instanceof Col.Objects o) {
      o.values[row] = BigDecimal.valueOf(v);
    } else {
      ((Col.Longs) out).values[row] = v;
    }
  }

  private static void setDouble(Col out, int row, double v) {
    ((Col.Doubles) out).values[row] = v;
  }

  private static void setDecimal(Col out, int row, BigDecimal v, SqlType type) {
    ((Col.Objects) out).values[row] = v.setScale(type.scale(), RoundingMode.HALF_UP);
  }
}
