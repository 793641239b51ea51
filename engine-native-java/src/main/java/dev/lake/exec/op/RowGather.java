package dev.lake.exec.op;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/** Copies of chosen rows of a batch into new vectors: how operators repeat, expand or keep rows. */
final class RowGather {
  private RowGather() {}

  /**
   * For each of {@code fields}, a new vector from {@code allocator} holding rows {@code rows[0]},
   * ..., {@code rows[count - 1]} (physical rows, repeats allowed) of the same-position column of
   * {@code source}. Each vector is added to {@code into} as soon as it exists, so the caller, which
   * closes {@code into} on failure, owns it even when filling it fails.
   */
  static void gatherColumns(VectorSchemaRoot source, List<Field> fields, int[] rows, int count,
      BufferAllocator allocator, List<FieldVector> into) {
    for (int c = 0; c < fields.size(); c++) {
      FieldVector from = source.getVector(c);
      FieldVector target = fields.get(c).createVector(allocator);
      into.add(target);
      target.setInitialCapacity(count);
      target.allocateNew();
      for (int i = 0; i < count; i++) {
        target.copyFromSafe(rows[i], i, from);
      }
      target.setValueCount(count);
    }
  }
}
