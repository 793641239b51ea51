package dev.lake.exec.op;

import dev.lake.exec.Batch;
import java.util.Arrays;

/** OFFSET/LIMIT by narrowing selections; stops pulling its input once the limit is reached. */
public final class LimitOperator implements Operator {
  private final Operator input;
  private long toSkip;
  private long remaining;

  /** @param limit rows to return after the offset, or {@code Long.MAX_VALUE} for no limit */
  public LimitOperator(Operator input, long offset, long limit) {
    this.input = input;
    this.toSkip = offset;
    this.remaining = limit;
  }

  @Override
  public Batch next() {
    while (remaining > 0) {
      Batch batch = input.next();
      if (batch == null) {
        return null;
      }
      int n = batch.count();
      if (toSkip >= n) {
        toSkip -= n;
        continue;
      }
      int from = (int) toSkip;
      toSkip = 0;
      int take = (int) Math.min(remaining, n - from);
      remaining -= take;
      if (from == 0 && take == n) {
        return batch;
      }
      int[] selection = batch.selection() == null
          ? rangeOf(from, take)
          : Arrays.copyOfRange(batch.selection(), from, from + take);
      return new Batch(batch.root(), selection, take);
    }
    return null;
  }

  private static int[] rangeOf(int from, int count) {
    int[] rows = new int[count];
    for (int i = 0; i < count; i++) {
      rows[i] = from + i;
    }
    return rows;
  }

  @Override
  public void close() {
    input.close();
  }
}
