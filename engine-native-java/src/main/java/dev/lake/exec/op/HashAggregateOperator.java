package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.Kernel;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hash aggregation: drains its input, assigning each row a dense group id by its key values
 * (NULL is a key value like any other, so all NULL keys form one group), updates one
 * {@link Accumulator} per aggregate a batch at a time, then emits keys followed by aggregate
 * values in batches of {@value #BATCH_ROWS} rows. Without keys there is exactly one group, so
 * a global aggregate over no rows still returns one row.
 */
public final class HashAggregateOperator implements Operator {
  static final int BATCH_ROWS = 64 * 1024;

  private final Operator input;
  private final Schema schema;
  private final List<Kernel> keys;
  private final List<SqlType> keyTypes;
  private final List<Expr.Agg> aggs;
  private final List<Kernel> aggArgs;
  private final BufferAllocator allocator;
  private VectorSchemaRoot output;
  private int emitted;

  /** @param schema the output: one field per key, then one per aggregate */
  public HashAggregateOperator(
      Operator input, Schema schema, List<Expr> keys, List<Expr.Agg> aggs, BufferAllocator allocator) {
    this.input = input;
    this.schema = schema;
    this.keys = keys.stream().map(Kernel::compile).toList();
    this.keyTypes = keys.stream().map(Expr::type).toList();
    this.aggs = List.copyOf(aggs);
    this.aggArgs = aggs.stream().map(a -> a.arg() == null ? null : Kernel.compile(a.arg())).toList();
    this.allocator = allocator;
  }

  /** Key identity: -0.0 equals 0.0 and decimals compare by value, as SQL equality does. */
  static Object normaliseKey(Object v) {
    if (v instanceof Double d && d == 0.0) {
      return 0.0;
    }
    if (v instanceof BigDecimal d) {
      return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
    }
    return v;
  }

  @Override
  public Batch next() {
    if (output == null) {
      aggregate();
    }
    int total = output.getRowCount();
    if (emitted >= total) {
      return null;
    }
    int count = Math.min(BATCH_ROWS, total - emitted);
    int[] selection = new int[count];
    for (int i = 0; i < count; i++) {
      selection[i] = emitted + i;
    }
    emitted += count;
    return new Batch(output, selection, count);
  }

  private void aggregate() {
    List<Accumulator> accumulators = aggs.stream().map(Accumulator::create).toList();
    Map<Object, Integer> groupIds = new HashMap<>();
    List<List<Object>> keyValues = new ArrayList<>();
    for (int k = 0; k < keys.size(); k++) {
      keyValues.add(new ArrayList<>());
    }
    int groupCount = keys.isEmpty() ? 1 : 0;
    LongGroupTable longGroups = new LongGroupTable();
    int nullGroup = -1;
    Batch batch;
    while ((batch = input.next()) != null) {
      int n = batch.count();
      int[] groups = new int[n];
      if (keys.size() == 1 && keyTypes.get(0).isLongBacked()) {
        Col.Longs key = (Col.Longs) keys.get(0).eval(batch);
        for (int i = 0; i < n; i++) {
          int id;
          if (key.nulls[i]) {
            if (nullGroup < 0) {
              nullGroup = groupCount++;
              keyValues.get(0).add(null);
            }
            id = nullGroup;
          } else {
            id = longGroups.getOrAdd(key.values[i], groupCount);
            if (id == groupCount) {
              groupCount++;
              keyValues.get(0).add(key.values[i]);
            }
          }
          groups[i] = id;
        }
      } else if (!keys.isEmpty()) {
        Col[] keyCols = new Col[keys.size()];
        for (int k = 0; k < keyCols.length; k++) {
          keyCols[k] = keys.get(k).eval(batch);
        }
        for (int i = 0; i < n; i++) {
          Object key;
          if (keyCols.length == 1) {
            key = normaliseKey(keyCols[0].get(i));
          } else {
            Object[] parts = new Object[keyCols.length];
            for (int k = 0; k < parts.length; k++) {
              parts[k] = normaliseKey(keyCols[k].get(i));
            }
            key = Arrays.asList(parts);
          }
          Integer id = groupIds.get(key);
          if (id == null) {
            id = groupCount++;
            groupIds.put(key, id);
            for (int k = 0; k < keyCols.length; k++) {
              keyValues.get(k).add(keyCols[k].get(i));
            }
          }
          groups[i] = id;
        }
      }
      for (int a = 0; a < accumulators.size(); a++) {
        Kernel arg = aggArgs.get(a);
        accumulators.get(a).add(groups, n, arg == null ? null : arg.eval(batch), groupCount);
      }
    }
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int k = 0; k < keys.size(); k++) {
        FieldVector v = schema.getFields().get(k).createVector(allocator);
        vectors.add(v);
        Vectors.write(Vectors.fromObjects(keyTypes.get(k), keyValues.get(k)), v);
      }
      for (int a = 0; a < accumulators.size(); a++) {
        FieldVector v = schema.getFields().get(keys.size() + a).createVector(allocator);
        vectors.add(v);
        Vectors.write(accumulators.get(a).result(groupCount), v);
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    output = new VectorSchemaRoot(schema.getFields(), vectors, groupCount);
  }

  @Override
  public void close() {
    try {
      if (output != null) {
        output.close();
      }
    } finally {
      input.close();
    }
  }
}
