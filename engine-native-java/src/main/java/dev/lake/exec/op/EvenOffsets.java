package dev.lake.exec.op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD check behind {@link NarrowKeyTable}: whether a string column's offsets lie on one line,
 * that is every value has the same length, sixteen offsets at a time. Loaded only when
 * {@link dev.lake.exec.Simd#ENABLED}.
 */
final class EvenOffsets {
  private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_512;
  private static final ValueLayout.OfInt LITTLE_ENDIAN_INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private EvenOffsets() {}

  /** Whether {@code offsets[r] == first + r * length} for every {@code r < count}. */
  static boolean onLine(MemorySegment offsets, int count, int first, int length) {
    int lanes = INTS.length();
    IntVector expected = IntVector.zero(INTS).addIndex(length).add(first);
    IntVector step = IntVector.broadcast(INTS, lanes * length);
    IntVector differ = IntVector.zero(INTS);
    int r = 0;
    for (; r <= count - lanes; r += lanes) {
      IntVector actual = IntVector.fromMemorySegment(INTS, offsets, (long) r * Integer.BYTES, ByteOrder.LITTLE_ENDIAN);
      differ = differ.or(actual.lanewise(VectorOperators.XOR, expected));
      expected = expected.add(step);
    }
    int off = differ.reduceLanes(VectorOperators.OR);
    for (; r < count; r++) {
      off |= offsets.get(LITTLE_ENDIAN_INT, (long) r * Integer.BYTES) ^ (first + r * length);
    }
    return off == 0;
  }
}
