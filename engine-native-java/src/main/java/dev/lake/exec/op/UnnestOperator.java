package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Cols;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import dev.lake.exec.expr.Kernel;
import dev.lake.exec.expr.ListBatch;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code FROM t, UNNEST(t.a, t.b) [WITH ORDINALITY]}: each input row repeated once per element of
 * its lists, with the elements (and their 1-based position) as new columns after the input's.
 * Several lists zip, as in PostgreSQL: a row gets as many output rows as its longest list has
 * elements, the shorter lists giving NULL past their end. A NULL or empty list gives no row
 * (an inner lateral join), or, when {@code outer}, one row of NULLs (LEFT JOIN LATERAL ... ON
 * TRUE). Output batches hold about {@value #BATCH_ROWS} rows; one row's elements are never split.
 */
public final class UnnestOperator implements Operator {
  static final int BATCH_ROWS = 64 * 1024;

  private final Operator input;
  private final Schema schema;
  private final List<Kernel> lists;
  private final List<SqlType> elements;
  private final boolean ordinality;
  private final boolean outer;
  private final BufferAllocator allocator;
  private Batch current;
  private ListBatch[] values;
  private int next;
  private VectorSchemaRoot output;

  /**
   * @param schema the input's fields, then one per list (its element), then the ordinality
   * @param lists kernels of the lists over the input
   * @param elements each list's element type
   */
  public UnnestOperator(Operator input, Schema schema, List<Kernel> lists, List<SqlType> elements,
      boolean ordinality, boolean outer, BufferAllocator allocator) {
    this.input = input;
    this.schema = schema;
    this.lists = List.copyOf(lists);
    this.elements = List.copyOf(elements);
    this.ordinality = ordinality;
    this.outer = outer;
    this.allocator = allocator;
  }

  @Override
  public Batch next() {
    closeOutput();
    while (true) {
      if (current == null || next >= current.count()) {
        current = input.next();
        next = 0;
        if (current == null) {
          return null;
        }
        values = new ListBatch[lists.size()];
        for (int k = 0; k < values.length; k++) {
          values[k] = ListBatch.of(lists.get(k), elements.get(k), current);
        }
      }
      Batch out = emit();
      if (out != null) {
        return out;
      }
    }
  }

  /** Output rows of input rows {@code next, ...} up to about {@link #BATCH_ROWS}; null when they have none. */
  private Batch emit() {
    List<Integer> sourceRows = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    while (next < current.count() && (sourceRows.isEmpty() || sourceRows.size() < BATCH_ROWS)) {
      int i = next++;
      int longest = 0;
      for (ListBatch v : values) {
        longest = Math.max(longest, v.isNull(i) ? 0 : v.length(i));
      }
      if (longest == 0 && outer) {
        sourceRows.add(i);
        positions.add(-1);
      }
      for (int k = 0; k < longest; k++) {
        sourceRows.add(i);
        positions.add(k);
      }
    }
    int n = sourceRows.size();
    if (n == 0) {
      return null;
    }
    int width = current.root().getFieldVectors().size();
    List<FieldVector> vectors = new ArrayList<>();
    try {
      int[] physical = new int[n];
      for (int r = 0; r < n; r++) {
        physical[r] = current.row(sourceRows.get(r));
      }
      RowGather.gatherColumns(current.root(), schema.getFields().subList(0, width), physical, n,
          allocator, vectors);
      for (int k = 0; k < values.length; k++) {
        ListBatch v = values[k];
        int[] gather = new int[n];
        for (int r = 0; r < n; r++) {
          int row = sourceRows.get(r);
          int p = positions.get(r);
          gather[r] = p < 0 || v.isNull(row) || p >= v.length(row) ? -1 : v.start(row) + p;
        }
        Col col = Cols.gather(v.elements(), elements.get(k), gather, n);
        FieldVector target = schema.getFields().get(width + k).createVector(allocator);
        vectors.add(target);
        Vectors.write(col, target);
      }
      if (ordinality) {
        Col.Longs col = new Col.Longs(n);
        for (int r = 0; r < n; r++) {
          col.nulls[r] = positions.get(r) < 0;
          col.values[r] = positions.get(r) + 1;
        }
        FieldVector target = schema.getFields().get(width + values.length).createVector(allocator);
        vectors.add(target);
        Vectors.write(col, target);
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    output = new VectorSchemaRoot(schema.getFields(), vectors, n);
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
