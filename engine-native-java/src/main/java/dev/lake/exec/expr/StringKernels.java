package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/** String kernels that work on a VarChar column's UTF-8 bytes without decoding strings. */
final class StringKernels {
  private StringKernels() {}

  /**
   * {@code column = 'c'}, {@code column <> 'c'}, {@code column [NOT] IN ('a', 'b', ...)}: compares
   * each row's bytes with the constants' UTF-8 bytes. Equal strings have equal bytes, so the
   * answer is the one {@link String#equals} gives. A non-VarChar vector falls back to
   * {@code fallback}.
   */
  static final class Match implements Kernel {
    private final int column;
    private final byte[][] constants;
    private final boolean listHasNull;
    private final boolean negated;
    private final Kernel fallback;

    Match(int column, List<String> constants, boolean listHasNull, boolean negated, Kernel fallback) {
      this.column = column;
      this.constants = constants.stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
      this.listHasNull = listHasNull;
      this.negated = negated;
      this.fallback = fallback;
    }

    @Override
    public Col eval(Batch batch) {
      FieldVector vector = batch.root().getVector(column);
      if (!(vector instanceof VarCharVector v)) {
        return fallback.eval(batch);
      }
      int n = batch.count();
      int[] sel = batch.selection();
      Col.Bools out = new Col.Bools(n);
      MemorySegment offsets = segment(v.getOffsetBuffer());
      MemorySegment data = segment(v.getDataBuffer());
      boolean noNulls = v.getNullCount() == 0;
      for (int i = 0; i < n; i++) {
        int r = sel == null ? i : sel[i];
        if (!noNulls && v.isNull(r)) {
          out.nulls[i] = true;
          continue;
        }
        int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
        int length = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r + 1) - start;
        if (matches(data, start, length)) {
          out.values[i] = !negated;
        } else if (listHasNull) {
          out.nulls[i] = true;
        } else {
          out.values[i] = negated;
        }
      }
      return out;
    }

    private boolean matches(MemorySegment data, long start, int length) {
      for (byte[] c : constants) {
        if (c.length != length) {
          continue;
        }
        int b = 0;
        while (b < length && c[b] == data.get(ValueLayout.JAVA_BYTE, start + b)) {
          b++;
        }
        if (b == length) {
          return true;
        }
      }
      return false;
    }
  }

  private static MemorySegment segment(ArrowBuf buf) {
    return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(buf.capacity());
  }
}
