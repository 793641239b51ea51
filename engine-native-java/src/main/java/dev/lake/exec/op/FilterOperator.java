package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.SelectionFilter;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the rows where the predicate is TRUE by narrowing the selection; copies no data. A
 * conjunction is evaluated one term at a time, each over the rows the previous terms kept (a row
 * any term finds FALSE or unknown is dropped whatever the others say); comparisons of a column
 * with constants run first, on the column's buffer (see {@link SelectionFilter}).
 */
public final class FilterOperator implements Operator {
  private final Operator input;
  private final List<SelectionFilter> terms;
  private int[] selection = new int[0];

  /** A filter on {@code predicate}, split at its top-level ANDs. */
  public FilterOperator(Operator input, Expr predicate) {
    this.input = input;
    List<Expr> conjuncts = new ArrayList<>();
    flatten(predicate, conjuncts);
    this.terms = SelectionFilter.compileConjunction(conjuncts);
  }

  private static void flatten(Expr e, List<Expr> out) {
    if (e instanceof Expr.Call c && c.op() == Expr.Op.AND) {
      for (Expr arg : c.args()) {
        flatten(arg, out);
      }
    } else {
      out.add(e);
    }
  }

  @Override
  public Batch next() {
    Batch batch;
    while ((batch = input.next()) != null) {
      Batch input = batch;
      for (SelectionFilter term : terms) {
        // The first term reads the input's rows into this operator's array; later terms narrow
        // that array in place. The array is reused for the next batch: a consumer reads a batch
        // only until it asks for the next one.
        int[] selection = batch == input ? selectionFor(batch.count()) : batch.selection();
        int count = term.select(batch, selection);
        batch = new Batch(batch.root(), selection, count);
        if (count == 0) {
          break;
        }
      }
      if (batch.count() > 0) {
        return batch;
      }
    }
    return null;
  }

  private int[] selectionFor(int rows) {
    if (selection.length < rows + SelectionFilter.PADDING) {
      selection = new int[rows + SelectionFilter.PADDING];
    }
    return selection;
  }

  @Override
  public void close() {
    input.close();
  }
}
