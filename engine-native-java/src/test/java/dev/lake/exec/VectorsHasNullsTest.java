package dev.lake.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/** {@link Vectors#hasNulls} agrees with Arrow's null count wherever the NULL is, or isn't. */
class VectorsHasNullsTest {

  @Test
  void agreesWithArrowsNullCountForEveryRowCountAndNullPosition() {
    Random random = new Random(3);
    try (BufferAllocator allocator = new RootAllocator();
        BigIntVector longs = new BigIntVector("l", allocator);
        VarCharVector strings = new VarCharVector("s", allocator)) {
      for (int n : List.of(0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000, 65536)) {
        for (int nullAt : new int[] {-1, 0, n / 2, n - 1, random.nextInt(Math.max(1, n))}) {
          longs.clear();
          strings.clear();
          longs.allocateNew(n);
          strings.allocateNew(n);
          for (int i = 0; i < n; i++) {
            if (i == nullAt) {
              longs.setNull(i);
              strings.setNull(i);
            } else {
              longs.set(i, i);
              strings.setSafe(i, new byte[] {(byte) 'a'});
            }
          }
          longs.setValueCount(n);
          strings.setValueCount(n);
          String where = "n=" + n + " null at " + nullAt;
          assertEquals(longs.getNullCount() != 0, Vectors.hasNulls(longs), where);
          assertEquals(strings.getNullCount() != 0, Vectors.hasNulls(strings), where);
        }
      }
    }
  }

  @Test
  void vectorsWithoutABitmapOfTheirOwnAskArrow() {
    try (BufferAllocator allocator = new RootAllocator();
        StructVector struct = StructVector.empty("st", allocator)) {
      BigIntVector x = struct.addOrGet("x", FieldType.nullable(new ArrowType.Int(64, true)), BigIntVector.class);
      struct.allocateNew();
      x.setSafe(0, 1);
      struct.setIndexDefined(0);
      struct.setNull(1);
      struct.setValueCount(2);
      assertEquals(true, Vectors.hasNulls(struct));
      struct.setIndexDefined(1);
      x.setSafe(1, 2);
      struct.setValueCount(2);
      assertEquals(struct.getNullCount() != 0, Vectors.hasNulls(struct));
    }
  }
}
