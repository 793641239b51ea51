package dev.lake.exec.fn;

import dev.lake.exec.Col;
import dev.lake.exec.Vectors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code f(DISTINCT x)} for a function whose state folds values as they come: each group's
 * distinct input tuples are collected (NULLs included; the inner state ignores them as it would
 * anyway), and the inner state sees each once when the result is written.
 */
final class DistinctInputs extends GroupState {
  private final AggregateSpec spec;
  private final GroupState inner;
  private final List<Set<List<Object>>> sets = new ArrayList<>();
  private long bytes;

  private DistinctInputs(AggregateSpec spec, GroupState inner) {
    this.spec = spec;
    this.inner = inner;
  }

  /** {@code inner} itself, or when {@code spec} is DISTINCT, {@code inner} fed distinct tuples. */
  static GroupState wrap(AggregateSpec spec, GroupState inner) {
    return spec.distinct() ? new DistinctInputs(spec, inner) : inner;
  }

  static Object normalise(Object v) {
    return GroupState.sqlIdentity(v);
  }

  @Override
  public void add(int[] groups, int count, Col[] inputs, int groupCount) {
    while (sets.size() < groupCount) {
      sets.add(new HashSet<>());
    }
    for (int i = 0; i < count; i++) {
      List<Object> tuple = new ArrayList<>(inputs.length);
      for (Col c : inputs) {
        tuple.add(normalise(c.get(i)));
      }
      if (sets.get(groups[i]).add(tuple)) {
        bytes += OrderedAggregates.rowBytes(tuple.toArray());
      }
    }
  }

  @Override
  public void merge(GroupState other, int[] into, int groupCount) {
    while (sets.size() < groupCount) {
      sets.add(new HashSet<>());
    }
    DistinctInputs o = (DistinctInputs) other;
    for (int g = 0; g < into.length && g < o.sets.size(); g++) {
      if (into[g] >= 0) {
        for (List<Object> tuple : o.sets.get(g)) {
          if (sets.get(into[g]).add(tuple)) {
            bytes += OrderedAggregates.rowBytes(tuple.toArray());
          }
        }
      }
    }
  }

  @Override
  public void write(int groupCount, FieldVector out) {
    int n = spec.inputs();
    List<List<Object>> columns = new ArrayList<>();
    for (int j = 0; j < n; j++) {
      columns.add(new ArrayList<>());
    }
    List<Integer> owners = new ArrayList<>();
    for (int g = 0; g < sets.size(); g++) {
      for (List<Object> tuple : sets.get(g)) {
        for (int j = 0; j < n; j++) {
          columns.get(j).add(tuple.get(j));
        }
        owners.add(g);
      }
    }
    Col[] inputs = new Col[n];
    for (int j = 0; j < n; j++) {
      inputs[j] = Vectors.fromObjects(spec.binding().type(j), columns.get(j));
    }
    int[] groups = owners.stream().mapToInt(Integer::intValue).toArray();
    inner.add(groups, groups.length, inputs, groupCount);
    inner.write(groupCount, out);
  }

  @Override
  public long heapBytes() {
    return bytes + 48L * sets.size() + inner.heapBytes();
  }
}
