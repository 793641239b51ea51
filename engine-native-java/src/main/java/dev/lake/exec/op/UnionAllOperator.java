package dev.lake.exec.op;

import dev.lake.exec.Batch;
import java.util.List;

/** UNION ALL: the batches of each input in turn; inputs produce the same column types. */
public final class UnionAllOperator implements Operator {
  private final List<Operator> inputs;
  private int current;

  public UnionAllOperator(List<Operator> inputs) {
    this.inputs = List.copyOf(inputs);
  }

  @Override
  public Batch next() {
    while (current < inputs.size()) {
      Batch batch = inputs.get(current).next();
      if (batch != null) {
        return batch;
      }
      current++;
    }
    return null;
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (Operator input : inputs) {
      try {
        input.close();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
