package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.expr.Kernel;

/** Keeps the rows where the predicate is TRUE by narrowing the selection; copies no data. */
public final class FilterOperator implements Operator {
  private final Operator input;
  private final Kernel predicate;

  public FilterOperator(Operator input, Kernel predicate) {
    this.input = input;
    this.predicate = predicate;
  }

  @Override
  public Batch next() {
    Batch batch;
    while ((batch = input.next()) != null) {
      Col.Bools keep = (Col.Bools) predicate.eval(batch);
      int[] selection = new int[batch.count()];
      int count = 0;
      for (int i = 0; i < batch.count(); i++) {
        if (keep.isTrue(i)) {
          selection[count++] = batch.row(i);
        }
      }
      if (count > 0) {
        return new Batch(batch.root(), selection, count);
      }
    }
    return null;
  }

  @Override
  public void close() {
    input.close();
  }
}
