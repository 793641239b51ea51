package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Vectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * ORDER BY: keeps every input batch (taking dense batches' buffers without copying), sorts row
 * indices with comparators specialised per key type, and emits the rows in that order in
 * batches of {@value #BATCH_ROWS}. The sort is stable. With a row bound (ORDER BY ... LIMIT)
 * it emits only the first rows.
 */
public final class SortOperator implements Operator {
  static final int BATCH_ROWS = 64 * 1024;

  /** One sort key: a column of the input, direction, and where NULLs go. */
  public record Key(int column, boolean descending, boolean nullsFirst) {}

  private final Operator input;
  private final Schema schema;
  private final List<Key> keys;
  private final long maxRows;
  private final BufferAllocator allocator;
  private final List<VectorSchemaRoot> chunks = new ArrayList<>();
  private VectorSchemaRoot output;
  private int[] order;
  private int[] chunkOf;
  private int[] rowOf;
  private int emitted;

  /** @param maxRows rows needed at most (offset + limit), or {@code Long.MAX_VALUE} */
  public SortOperator(Operator input, Schema schema, List<Key> keys, long maxRows, BufferAllocator allocator) {
    this.input = input;
    this.schema = schema;
    this.keys = List.copyOf(keys);
    this.maxRows = maxRows;
    this.allocator = allocator;
  }

  @Override
  public Batch next() {
    if (order == null) {
      collect();
      sort();
    }
    if (output != null) {
      output.close();
      output = null;
    }
    int total = (int) Math.min(order.length, maxRows);
    if (emitted >= total) {
      return null;
    }
    int count = Math.min(BATCH_ROWS, total - emitted);
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int c = 0; c < schema.getFields().size(); c++) {
        FieldVector target = schema.getFields().get(c).createVector(allocator);
        vectors.add(target);
        target.setInitialCapacity(count);
        target.allocateNew();
        for (int i = 0; i < count; i++) {
          int row = order[emitted + i];
          target.copyFromSafe(rowOf[row], i, chunks.get(chunkOf[row]).getVector(c));
        }
        target.setValueCount(count);
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    emitted += count;
    output = new VectorSchemaRoot(schema.getFields(), vectors, count);
    return Batch.dense(output);
  }

  private void collect() {
    Batch batch;
    while ((batch = input.next()) != null) {
      List<FieldVector> vectors = new ArrayList<>();
      VectorSchemaRoot source = batch.root();
      try {
        for (int c = 0; c < schema.getFields().size(); c++) {
          FieldVector target = schema.getFields().get(c).createVector(allocator);
          vectors.add(target);
          FieldVector from = source.getVector(c);
          if (batch.selection() == null) {
            from.makeTransferPair(target).transfer();
          } else {
            target.setInitialCapacity(batch.count());
            target.allocateNew();
            for (int i = 0; i < batch.count(); i++) {
              target.copyFromSafe(batch.selection()[i], i, from);
            }
            target.setValueCount(batch.count());
          }
        }
      } catch (RuntimeException e) {
        vectors.forEach(FieldVector::close);
        throw e;
      }
      chunks.add(new VectorSchemaRoot(schema.getFields(), vectors, batch.count()));
    }
  }

  private void sort() {
    int total = 0;
    for (VectorSchemaRoot chunk : chunks) {
      total = Math.addExact(total, chunk.getRowCount());
    }
    chunkOf = new int[total];
    rowOf = new int[total];
    int at = 0;
    for (int c = 0; c < chunks.size(); c++) {
      for (int r = 0; r < chunks.get(c).getRowCount(); r++) {
        chunkOf[at] = c;
        rowOf[at++] = r;
      }
    }
    RowComparator[] comparators = new RowComparator[keys.size()];
    for (int k = 0; k < keys.size(); k++) {
      comparators[k] = comparator(keys.get(k), total);
    }
    order = new int[total];
    for (int i = 0; i < total; i++) {
      order[i] = i;
    }
    RowComparator all = (a, b) -> {
      for (RowComparator c : comparators) {
        int r = c.compare(a, b);
        if (r != 0) {
          return r;
        }
      }
      return 0;
    };
    mergeSort(order, new int[total], 0, total, all);
  }

  @FunctionalInterface
  interface RowComparator {
    int compare(int a, int b);
  }

  /** Gathers key values of all rows into one typed array and compares by index into it. */
  private RowComparator comparator(Key key, int total) {
    List<Col> parts = new ArrayList<>();
    for (VectorSchemaRoot chunk : chunks) {
      parts.add(Vectors.read(chunk.getVector(key.column()), Batch.dense(chunk)));
    }
    boolean[] nulls = new boolean[total];
    RowComparator values;
    int sign = key.descending() ? -1 : 1;
    int at = 0;
    if (parts.isEmpty() || parts.get(0) instanceof Col.Longs) {
      long[] v = new long[total];
      for (Col p : parts) {
        Col.Longs c = (Col.Longs) p;
        System.arraycopy(c.values, 0, v, at, c.size);
        System.arraycopy(c.nulls, 0, nulls, at, c.size);
        at += c.size;
      }
      values = (a, b) -> sign * Long.compare(v[a], v[b]);
    } else if (parts.get(0) instanceof Col.Doubles) {
      double[] v = new double[total];
      for (Col p : parts) {
        Col.Doubles c = (Col.Doubles) p;
        System.arraycopy(c.values, 0, v, at, c.size);
        System.arraycopy(c.nulls, 0, nulls, at, c.size);
        at += c.size;
      }
      values = (a, b) -> sign * Double.compare(v[a], v[b]);
    } else if (parts.get(0) instanceof Col.Bools) {
      boolean[] v = new boolean[total];
      for (Col p : parts) {
        Col.Bools c = (Col.Bools) p;
        System.arraycopy(c.values, 0, v, at, c.size);
        System.arraycopy(c.nulls, 0, nulls, at, c.size);
        at += c.size;
      }
      values = (a, b) -> sign * Boolean.compare(v[a], v[b]);
    } else {
      Object[] v = new Object[total];
      for (Col p : parts) {
        Col.Objects c = (Col.Objects) p;
        System.arraycopy(c.values, 0, v, at, c.size);
        for (int i = 0; i < c.size; i++) {
          nulls[at + i] = c.values[i] == null;
        }
        at += c.size;
      }
      values = (a, b) -> sign * compareObjects(v[a], v[b]);
    }
    int nullOrder = key.nullsFirst() ? -1 : 1;
    return (a, b) -> {
      if (nulls[a] || nulls[b]) {
        return nulls[a] == nulls[b] ? 0 : nulls[a] ? nullOrder : -nullOrder;
      }
      return values.compare(a, b);
    };
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compareObjects(Object a, Object b) {
    return ((Comparable) a).compareTo(b);
  }

  /** Stable sort of {@code a[from, to)} by {@code c}, with {@code tmp} as scratch of the same length. */
  static void mergeSort(int[] a, int[] tmp, int from, int to, RowComparator c) {
    if (to - from <= 16) {
      for (int i = from + 1; i < to; i++) {
        int x = a[i];
        int j = i - 1;
        while (j >= from && c.compare(a[j], x) > 0) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = x;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(a, tmp, from, mid, c);
    mergeSort(a, tmp, mid, to, c);
    if (c.compare(a[mid - 1], a[mid]) <= 0) {
      return;
    }
    System.arraycopy(a, from, tmp, from, to - from);
    int i = from;
    int j = mid;
    int k = from;
    while (i < mid && j < to) {
      a[k++] = c.compare(tmp[j], tmp[i]) < 0 ? tmp[j++] : tmp[i++];
    }
    while (i < mid) {
      a[k++] = tmp[i++];
    }
    while (j < to) {
      a[k++] = tmp[j++];
    }
  }

  @Override
  public void close() {
    try {
      if (output != null) {
        output.close();
      }
      chunks.forEach(VectorSchemaRoot::close);
      chunks.clear();
    } finally {
      input.close();
    }
  }
}
