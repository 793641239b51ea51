package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Cols;
import dev.lake.exec.HeapBudget;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Window functions: keeps every input batch (taking dense batches' buffers without copying),
 * then for each window (a partitioning, an ordering and a frame shared by several functions)
 * sorts the rows by partition and order keys and computes each function partition by partition
 * (see {@link WindowEvaluator}). It emits the input rows in their input order, each with one
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

  private final Operator input;
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
    this.input = input;
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
    Map<Integer, Col> columns = new HashMap<>();
    List<Col> out = new ArrayList<>();
    for (Group group : groups) {
      WindowEvaluator evaluator = new WindowEvaluator(group, total, c -> column(columns, c), budget);
      out.addAll(evaluator.evaluate());
    }
    results = out;
  }

  /** Input column {@code c} of every row, read once and kept for the other windows. */
  private Col column(Map<Integer, Col> columns, int c) {
    Col col = columns.get(c);
    if (col == null) {
      SqlType type = inputTypes.get(c);
      List<Col> parts = new ArrayList<>();
      for (VectorSchemaRoot chunk : chunks) {
        parts.add(Vectors.read(chunk.getVector(c), Batch.dense(chunk)));
      }
      col = Cols.concat(parts, type);
      budget.charge(HeapBudget.bytes(col));
      columns.put(c, col);
    }
    return col;
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
