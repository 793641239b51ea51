package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Cols;
import dev.lake.exec.HeapBudget;
import dev.lake.exec.QueryControl;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Window functions: keeps every input batch (taking dense batches' buffers without copying),
 * then for each window (a partitioning, an ordering and a frame shared by several functions)
 * splits the rows by a hash of the partition keys into parts of whole partitions (one part
 * without PARTITION BY, or below {@value #MIN_PART_ROWS} rows a part), and on up to
 * {@code threads} workers sorts each part by partition and order keys and computes each function
 * partition by partition (see {@link WindowEvaluator}, {@link WindowSort}). It emits the input rows in their input order, each with one
 * column more per function, in the input's batches. The Java arrays it holds (key and argument
 * columns, the sort order, frames and results) are charged to the query's allocator.
 */
public final class WindowOperator implements Operator {

  /**
   * One window: functions sharing a partitioning, an ordering and a frame.
   *
   * @param partition input columns of PARTITION BY
   * @param order the ORDER BY keys (input columns)
   */
  public record Group(int[] partition, List<SortOperator.Key> order, WindowFrame frame,
      List<WindowFunction> functions) {
    public Group {
      partition = partition.clone();
      order = List.copyOf(order);
      functions = List.copyOf(functions);
    }

    @Override
    public int[] partition() {
      return partition.clone();
    }
  }

  /** Partitioned windows over fewer rows per part than this run as one part. */
  private static final int MIN_PART_ROWS = 1 << 15;
  private static final int MAX_PARTS = 64;

  private final Operator input;
  private final int threads;
  private final List<SqlType> inputTypes;
  private final List<Group> groups;
  private final Schema output;
  private final BufferAllocator allocator;
  private final HeapBudget budget;
  private final List<VectorSchemaRoot> chunks = new ArrayList<>();
  private List<Col> results;
  private VectorSchemaRoot emitting;
  private int nextChunk;
  private int emittedRows;

  /**
   * @param inputTypes the SQL type of each input column, null for one only passed through
   * @param output the input's columns, then one per function of each group in order
   */
  public WindowOperator(Operator input, List<SqlType> inputTypes, List<Group> groups, Schema output,
      BufferAllocator allocator) {
    this(input, inputTypes, groups, output, 1, allocator);
  }

  /**
   * @param threads how many parts of a partitioned window are sorted and computed at once
   */
  public WindowOperator(Operator input, List<SqlType> inputTypes, List<Group> groups, Schema output,
      int threads, BufferAllocator allocator) {
    this.input = input;
    this.threads = threads;
    this.inputTypes = new ArrayList<>(inputTypes);
    this.groups = List.copyOf(groups);
    this.output = output;
    this.allocator = allocator;
    this.budget = new HeapBudget(allocator, "window functions");
  }

  @Override
  public Batch next() {
    if (results == null) {
      collect();
      compute();
    }
    if (emitting != null) {
      emitting.close();
      emitting = null;
    }
    if (nextChunk >= chunks.size()) {
      return null;
    }
    VectorSchemaRoot chunk = chunks.get(nextChunk);
    int count = chunk.getRowCount();
    int inputColumns = inputTypes.size();
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int c = 0; c < inputColumns; c++) {
        FieldVector target = output.getFields().get(c).createVector(allocator);
        vectors.add(target);
        chunk.getVector(c).makeTransferPair(target).transfer();
      }
      int[] rows = new int[count];
      for (int i = 0; i < count; i++) {
        rows[i] = emittedRows + i;
      }
      for (int f = 0; f < results.size(); f++) {
        FieldVector target = output.getFields().get(inputColumns + f).createVector(allocator);
        vectors.add(target);
        Col result = results.get(f);
        Vectors.write(Cols.gather(result, resultType(f), rows, count), target);
        target.setValueCount(count);
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    chunk.close();
    chunks.set(nextChunk, null);
    nextChunk++;
    emittedRows += count;
    emitting = new VectorSchemaRoot(output.getFields(), vectors, count);
    return Batch.dense(emitting);
  }

  private SqlType resultType(int f) {
    for (Group g : groups) {
      if (f < g.functions().size()) {
        return g.functions().get(f).type();
      }
      f -= g.functions().size();
    }
    throw new IndexOutOfBoundsException(f);
  }

  private void collect() {
    Schema schema = new Schema(output.getFields().subList(0, inputTypes.size()));
    Batch batch;
    while ((batch = input.next()) != null) {
      List<FieldVector> vectors = new ArrayList<>();
      try {
        for (int c = 0; c < inputTypes.size(); c++) {
          FieldVector target = schema.getFields().get(c).createVector(allocator);
          vectors.add(target);
          batch.moveTo(batch.root().getVector(c), target);
        }
      } catch (RuntimeException e) {
        vectors.forEach(FieldVector::close);
        throw e;
      }
      chunks.add(new VectorSchemaRoot(schema.getFields(), vectors, batch.count()));
    }
  }

  private void compute() {
    int total = 0;
    for (VectorSchemaRoot chunk : chunks) {
      total = Math.addExact(total, chunk.getRowCount());
    }
    int n = total;
    Col[] columns = new Col[inputTypes.size()];
    List<Col> out = new ArrayList<>();
    for (Group group : groups) {
      for (int c : group.partition()) {
        column(columns, c);
      }
      for (SortOperator.Key k : group.order()) {
        column(columns, k.column());
      }
      List<Col> outputs = new ArrayList<>();
      List<Col> arguments = new ArrayList<>();
      for (WindowFunction f : group.functions()) {
        for (int a : f.args()) {
          if (a >= 0) {
            column(columns, a);
          }
        }
        Col result = Col.allocate(f.type(), n);
        budget.charge(HeapBudget.bytes(result));
        outputs.add(result);
        arguments.add(WindowEvaluator.argument(f, n, c -> columns[c], budget));
      }
      int[][] parts = split(group, columns, n);
      MorselWorkers.run(parts.length, threads, QueryControl.of(allocator), (m, workers) ->
          new WindowEvaluator(group, parts[m], c -> columns[c], outputs, arguments, budget).evaluate());
      out.addAll(outputs);
    }
    results = out;
  }

  /**
   * The rows of every input row's partition in one of a few parts by a hash of the PARTITION BY
   * keys, each part's rows ascending; one part without PARTITION BY or for a small input. The
   * number of parts depends on the row count only, so the threads never change a result.
   */
  private int[][] split(Group group, Col[] columns, int n) {
    int count = group.partition().length == 0 ? 1 : Math.min(MAX_PARTS, n / MIN_PART_ROWS);
    if (count <= 1) {
      int[] all = new int[n];
      for (int i = 0; i < n; i++) {
        all[i] = i;
      }
      budget.charge(4L * n);
      return new int[][] {all};
    }
    Col[] keys = new Col[group.partition().length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = columns[group.partition()[i]];
    }
    budget.charge(8L * n);
    int[] part = new int[n];
    int[] sizes = new int[count];
    for (int i = 0; i < n; i++) {
      int p = (int) Long.remainderUnsigned(WindowSort.hash(keys, i), count);
      part[i] = p;
      sizes[p]++;
    }
    int[][] parts = new int[count][];
    for (int p = 0; p < count; p++) {
      parts[p] = new int[sizes[p]];
    }
    int[] at = new int[count];
    for (int i = 0; i < n; i++) {
      int p = part[i];
      parts[p][at[p]++] = i;
    }
    return parts;
  }

  /** Input column {@code c} of every row, read once into {@code columns} and kept for the other windows. */
  private void column(Col[] columns, int c) {
    if (columns[c] == null) {
      SqlType type = inputTypes.get(c);
      List<Col> parts = new ArrayList<>();
      for (VectorSchemaRoot chunk : chunks) {
        parts.add(Vectors.read(chunk.getVector(c), Batch.dense(chunk)));
      }
      Col col = Cols.concat(parts, type);
      budget.charge(HeapBudget.bytes(col));
      columns[c] = col;
    }
  }

  @Override
  public void close() {
    try {
      if (emitting != null) {
        emitting.close();
        emitting = null;
      }
      for (VectorSchemaRoot chunk : chunks) {
        if (chunk != null) {
          chunk.close();
        }
      }
      chunks.clear();
      results = null;
      budget.close();
    } finally {
      input.close();
    }
  }
}
