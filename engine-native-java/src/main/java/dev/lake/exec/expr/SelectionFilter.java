package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Simd;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One term of a WHERE conjunction compiled to narrow a batch's selection: it writes the physical
 * rows of the live rows for which the term is TRUE. A comparison of a fixed-width column with a
 * constant (and all such comparisons of one column, merged into one range) is tested straight on
 * the column's Arrow buffer, without materialising the column or a boolean result.
 */
public interface SelectionFilter {

  /** Slots {@code out} has beyond {@code batch.count()}: whole vectors may be stored at its end. */
  int PADDING = 16;

  /**
   * Writes into {@code out} (at least {@code batch.count() + PADDING} long) the ascending
   * physical rows of the live rows of {@code batch} that pass, and returns how many there are.
   * {@code out} may be the batch's own selection, narrowed in place: an implementation writes a
   * slot only after reading the live row of that position (a compacting loop, which never has
   * more passing rows than rows read, does so by itself; a vector store must have loaded the
   * rows it covers).
   */
  int select(Batch batch, int[] out);

  /** Compiles the terms of a conjunction; comparisons of one column with constants merge. */
  static List<SelectionFilter> compileConjunction(List<Expr> terms) {
    Map<Integer, ColumnRange> ranges = new LinkedHashMap<>();
    List<SelectionFilter> others = new ArrayList<>();
    for (Expr term : terms) {
      ColumnRange.Bound bound = ColumnRange.bound(term);
      if (bound == null) {
        Kernel kernel = Kernel.compile(term);
        others.add(kernel instanceof StringKernels.OnBytes strings ? new OnBytes(strings) : new Generic(kernel));
      } else {
        ranges.computeIfAbsent(bound.column(), c -> new ColumnRange(c, bound.kind()))
            .add(bound, Kernel.compile(term));
      }
    }
    // Column ranges first: they are the cheapest and usually the most selective.
    List<SelectionFilter> out = new ArrayList<>();
    if (Simd.ENABLED && ranges.size() > 1) {
      out.add(new RangeConjunction(new ArrayList<>(ranges.values())));
    } else {
      out.addAll(ranges.values());
    }
    out.addAll(others);
    return out;
  }

  /** A test of a string column's bytes (equality, IN, LIKE), selecting rows as it goes. */
  final class OnBytes implements SelectionFilter {
    private final StringKernels.OnBytes kernel;
    private final Generic fallback;

    OnBytes(StringKernels.OnBytes kernel) {
      this.kernel = kernel;
      this.fallback = new Generic(kernel);
    }

    @Override
    public int select(Batch batch, int[] out) {
      int count = kernel.select(batch, out);
      return count >= 0 ? count : fallback.select(batch, out);
    }
  }

  /** Any boolean expression: evaluated over the live rows, TRUE rows kept. */
  final class Generic implements SelectionFilter {
    private final Kernel kernel;

    Generic(Kernel kernel) {
      this.kernel = kernel;
    }

    @Override
    public int select(Batch batch, int[] out) {
      Col.Bools keep = (Col.Bools) kernel.eval(batch);
      int count = 0;
      int n = batch.count();
      int[] sel = batch.selection();
      boolean[] values = keep.values;
      if (keep.noNulls()) {
        for (int i = 0; i < n; i++) {
          out[count] = sel == null ? i : sel[i];
          count += values[i] ? 1 : 0;
        }
      } else {
        boolean[] nulls = keep.nulls;
        for (int i = 0; i < n; i++) {
          out[count] = sel == null ? i : sel[i];
          count += values[i] & !nulls[i] ? 1 : 0;
        }
      }
      return count;
    }
  }
}
