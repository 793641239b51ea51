package dev.lake.exec.expr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Substring search a vector of start positions at a time: the bytes at each candidate start are
 * compared with the needle's first byte and the bytes a needle's length further on with its last,
 * and only starts where both agree are compared in full (the "generic SIMD" search of W. Muła).
 * Loaded only when {@link dev.lake.exec.Simd#ENABLED}.
 */
final class SimdStrings {
  private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_PREFERRED;

  private SimdStrings() {}

  /**
   * The first position {@code at} in {@code [from, to - needle.length]} where {@code data} holds
   * {@code needle}, or -1. Reads may go up to a vector past {@code to}, but never past the end of
   * {@code data}: near it the search goes on byte by byte.
   */
  static int indexOf(MemorySegment data, int from, int to, byte[] needle) {
    int length = needle.length;
    if (length == 0) {
      return from;
    }
    int lanes = BYTES.length();
    ByteVector head = ByteVector.broadcast(BYTES, needle[0]);
    ByteVector tail = ByteVector.broadcast(BYTES, needle[length - 1]);
    long size = data.byteSize();
    int at = from;
    int lastStart = to - length;
    while (at <= lastStart && at + length - 1 + lanes <= size) {
      long candidates = ByteVector.fromMemorySegment(BYTES, data, at, ByteOrder.LITTLE_ENDIAN).eq(head)
          .and(ByteVector.fromMemorySegment(BYTES, data, at + length - 1, ByteOrder.LITTLE_ENDIAN).eq(tail))
          .toLong();
      int starts = lastStart - at + 1;
      if (starts < lanes) {
        candidates &= (1L << starts) - 1;
      }
      while (candidates != 0) {
        int candidate = at + Long.numberOfTrailingZeros(candidates);
        if (equalAt(data, candidate, needle)) {
          return candidate;
        }
        candidates &= candidates - 1;
      }
      at += lanes;
    }
    for (; at <= lastStart; at++) {
      if (equalAt(data, at, needle)) {
        return at;
      }
    }
    return -1;
  }

  private static boolean equalAt(MemorySegment data, long at, byte[] needle) {
    for (int b = 0; b < needle.length; b++) {
      if (data.get(ValueLayout.JAVA_BYTE, at + b) != needle[b]) {
        return false;
      }
    }
    return true;
  }
}
