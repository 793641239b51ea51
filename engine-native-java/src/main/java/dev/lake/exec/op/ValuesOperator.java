package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Constant rows ({@code VALUES}, or the empty relation a planner proves), as one batch. */
public final class ValuesOperator implements Operator {
  private final Schema schema;
  private final List<SqlType> types;
  private final List<List<Object>> rows;
  private final BufferAllocator allocator;
  private VectorSchemaRoot output;
  private boolean done;

  /** @param rows values as {@link dev.lake.exec.Col#get} boxes them, one list per row */
  public ValuesOperator(Schema schema, List<SqlType> types, List<List<Object>> rows, BufferAllocator allocator) {
    this.schema = schema;
    this.types = List.copyOf(types);
    this.rows = rows;
    this.allocator = allocator;
  }

  @Override
  public Batch next() {
    if (done || rows.isEmpty()) {
      return null;
    }
    done = true;
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int c = 0; c < types.size(); c++) {
        List<Object> column = new ArrayList<>(rows.size());
        for (List<Object> row : rows) {
          column.add(row.get(c));
        }
        FieldVector v = schema.getFields().get(c).createVector(allocator);
        vectors.add(v);
        Vectors.write(Vectors.fromObjects(types.get(c), column), v);
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    output = new VectorSchemaRoot(schema.getFields(), vectors, rows.size());
    return Batch.dense(output);
  }

  @Override
  public void close() {
    if (output != null) {
      output.close();
      output = null;
    }
  }
}
