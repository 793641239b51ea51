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
 * ORDER BY ... LIMIT k: the first {@code k} rows in key order, holding about {@code 2k} rows at
 * most instead of the whole input. Rows are buffered until there are twice {@code k} (at least
 * {@value #MIN_BUFFER}); then the buffer is cut to its first {@code k} by a {@link SortOperator},
 * and the last row kept becomes a cut-off: a later row that does not sort strictly before it is
 * never copied. The result is the one a full stable sort gives (ties keep input order), so a
 * copy of this operator per morsel under a merge of their outputs in morsel order answers the same.
 * Buffers come from the query's allocator, so they count against its memory budget.
 */
public final class TopKOperator implements Operator {
  static final int MIN_BUFFER = 4096;

  private final Operator input;
  private final Schema schema;
  private final List<SortOperator.Key> keys;
  private final long k;
  private final BufferAllocator allocator;
  private final List<VectorSchemaRoot> buffer = new ArrayList<>();
  private long buffered;
  /** The key values of the last row kept by the latest cut, or null before the first. */
  private Object[] cutoff;
  private SortOperator result;

  /** @param k rows needed (offset + limit), at least 1 */
  public TopKOperator(Operator input, Schema schema, List<SortOperator.Key> keys, long k, BufferAllocator allocator) {
    this.input = input;
    this.schema = schema;
    this.keys = List.copyOf(keys);
    this.k = k;
    this.allocator = allocator;
  }

  @Override
  public Batch next() {
    if (result == null) {
      Batch batch;
      while ((batch = input.next()) != null) {
        add(batch);
        if (buffered > Math.max(2 * k, MIN_BUFFER)) {
          cut();
        }
      }
      result = new SortOperator(new Chunks(takeBuffer()), schema, keys, k, allocator);
    }
    return result.next();
  }

  /** Copies the rows of {@code batch} that may be among the first {@code k}. */
  private void add(Batch batch) {
    int n = batch.count();
    int[] keep = new int[n];
    int kept = 0;
    if (cutoff == null) {
      for (int i = 0; i < n; i++) {
        keep[kept++] = batch.row(i);
      }
    } else {
      Col[] values = new Col[keys.size()];
      for (int c = 0; c < values.length; c++) {
        values[c] = Vectors.read(batch.root().getVector(keys.get(c).column()), batch);
      }
      for (int i = 0; i < n; i++) {
        if (beforeCutoff(values, i)) {
          keep[kept++] = batch.row(i);
        }
      }
    }
    if (kept == 0) {
      return;
    }
    List<FieldVector> vectors = new ArrayList<>();
    try {
      RowGather.gatherColumns(batch.root(), schema.getFields(), keep, kept, allocator, vectors);
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    buffer.add(new VectorSchemaRoot(schema.getFields(), vectors, kept));
    buffered += kept;
  }

  /** Whether row {@code i} sorts strictly before the cut-off row. */
  private boolean beforeCutoff(Col[] values, int i) {
    for (int c = 0; c < values.length; c++) {
      SortOperator.Key key = keys.get(c);
      Object v = values[c].get(i);
      Object limit = cutoff[c];
      int r;
      if (v == null || limit == null) {
        r = v == limit ? 0 : (v == null) == key.nullsFirst() ? -1 : 1;
      } else {
        r = compare(v, limit);
        if (key.descending()) {
          r = -r;
        }
      }
      if (r != 0) {
        return r < 0;
      }
    }
    return false;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a instanceof Double x && b instanceof Double y) {
      return Double.compare(x, y);
    }
    return ((Comparable) a).compareTo(b);
  }

  /** Cuts the buffer to its first {@code k} rows and records the last one's keys. */
  private void cut() {
    List<VectorSchemaRoot> chunks = takeBuffer();
    try (SortOperator sort = new SortOperator(new Chunks(chunks), schema, keys, k, allocator)) {
      Batch batch;
      while ((batch = sort.next()) != null) {
        List<FieldVector> vectors = new ArrayList<>();
        for (int c = 0; c < schema.getFields().size(); c++) {
          FieldVector target = schema.getFields().get(c).createVector(allocator);
          batch.root().getVector(c).makeTransferPair(target).transfer();
          vectors.add(target);
        }
        buffer.add(new VectorSchemaRoot(schema.getFields(), vectors, batch.count()));
        buffered += batch.count();
      }
    }
    if (buffered >= k && !buffer.isEmpty()) {
      VectorSchemaRoot last = buffer.getLast();
      int row = last.getRowCount() - 1;
      cutoff = new Object[keys.size()];
      for (int c = 0; c < keys.size(); c++) {
        cutoff[c] = Vectors.read(last.getVector(keys.get(c).column()), new Batch(last, new int[] {row}, 1)).get(0);
      }
    }
  }

  private List<VectorSchemaRoot> takeBuffer() {
    List<VectorSchemaRoot> chunks = new ArrayList<>(buffer);
    buffer.clear();
    buffered = 0;
    return chunks;
  }

  @Override
  public void close() {
    try {
      if (result != null) {
        result.close();
      }
      buffer.forEach(VectorSchemaRoot::close);
      buffer.clear();
    } finally {
      input.close();
    }
  }

  /** Buffered chunks as an input, each handed over whole (and closed once read or on close). */
  private static final class Chunks implements Operator {
    private final List<VectorSchemaRoot> chunks;
    private VectorSchemaRoot current;
    private int next;

    Chunks(List<VectorSchemaRoot> chunks) {
      this.chunks = chunks;
    }

    @Override
    public Batch next() {
      if (current != null) {
        current.close();
        current = null;
      }
      if (next >= chunks.size()) {
        return null;
      }
      current = chunks.get(next);
      chunks.set(next++, null);
      return Batch.dense(current);
    }

    @Override
    public void close() {
      if (current != null) {
        current.close();
        current = null;
      }
      for (int i = next; i < chunks.size(); i++) {
        chunks.get(i).close();
      }
      next = chunks.size();
    }
  }
}
