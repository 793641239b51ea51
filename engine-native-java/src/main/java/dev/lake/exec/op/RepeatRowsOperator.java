package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.QueryControl;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Repeats each input row as often as its last column says (a BIGINT; NULL or below 1: not at
 * all) and drops that column: how {@code INTERSECT ALL} and {@code EXCEPT ALL} return a row of
 * multiplicity {@code m} {@code m} times. Output batches hold at most {@value #MAX_ROWS} rows, so
 * a huge multiplicity yields many bounded batches; the copies are charged to the allocator.
 */
public final class RepeatRowsOperator implements Operator {

  /** The most rows in one output batch. */
  static final int MAX_ROWS = 1 << 16;

  private final Operator input;
  private final List<Field> fields;
  private final BufferAllocator allocator;
  private final QueryControl control;
  private Batch current;
  /** The live row of {@link #current} being repeated, and how many copies of it remain. */
  private int row;
  private long remaining;
  private VectorSchemaRoot output;

  /** @param output the input's columns but the last */
  public RepeatRowsOperator(Operator input, Schema output, BufferAllocator allocator) {
    this.input = input;
    this.fields = output.getFields();
    this.allocator = allocator;
    this.control = QueryControl.of(allocator);
  }

  @Override
  public Batch next() {
    closeOutput();
    control.check();
    int[] rows = new int[MAX_ROWS];
    int count = 0;
    while (count < MAX_ROWS) {
      if (current == null || (remaining == 0 && row + 1 >= current.count())) {
        if (count > 0) {
          // The current batch's rows are copied below before the next one is asked for.
          break;
        }
        current = input.next();
        if (current == null) {
          return null;
        }
        row = -1;
        remaining = 0;
      }
      if (remaining == 0) {
        row++;
        BigIntVector times = (BigIntVector) current.root().getVector(fields.size());
        int physical = current.row(row);
        remaining = times.isNull(physical) ? 0 : Math.max(0, times.get(physical));
        continue;
      }
      int n = (int) Math.min(remaining, MAX_ROWS - count);
      int physical = current.row(row);
      for (int i = 0; i < n; i++) {
        rows[count++] = physical;
      }
      remaining -= n;
    }
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    try {
      RowGather.gatherColumns(current.root(), fields, rows, count, allocator, vectors);
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    output = new VectorSchemaRoot(fields, vectors, count);
    return Batch.dense(output);
  }

  private void closeOutput() {
    if (output != null) {
      output.close();
      output = null;
    }
  }

  @Override
  public void close() {
    try {
      closeOutput();
    } finally {
      input.close();
    }
  }
}
