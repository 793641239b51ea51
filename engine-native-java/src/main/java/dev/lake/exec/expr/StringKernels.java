package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Simd;
import dev.lake.exec.Vectors;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/** String kernels that work on a VarChar column's UTF-8 bytes without decoding strings. */
final class StringKernels {
  private StringKernels() {}

  private static final ValueLayout.OfLong LITTLE_ENDIAN_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
  /** {@code WORD_MASKS[n]} keeps the low {@code n} bytes of a word. */
  private static final long[] WORD_MASKS = new long[9];

  static {
    for (int n = 0; n < 8; n++) {
      WORD_MASKS[n] = (1L << (8 * n)) - 1;
    }
    WORD_MASKS[8] = -1L;
  }

  /**
   * A predicate on one VarChar column decided from each row's UTF-8 bytes; a NULL row is unknown.
   * A column that is not VarChar (a computed string) goes to {@code fallback}.
   */
  abstract static class OnBytes implements Kernel {
    private final int column;
    private final Kernel fallback;

    OnBytes(int column, Kernel fallback) {
      this.column = column;
      this.fallback = fallback;
    }

    /** The row's answer: {@link #TRUE}, {@link #FALSE} or {@link #UNKNOWN}. */
    abstract int test(MemorySegment data, int start, int end);

    static final int TRUE = 1;
    static final int FALSE = 0;
    static final int UNKNOWN = -1;

    /**
     * As a WHERE term: writes the physical rows of the live rows that are TRUE straight into
     * {@code out} (see {@link SelectionFilter#select}), with no boolean column in between; -1 when
     * the column is not VarChar (the caller then evaluates the kernel).
     */
    final int select(Batch batch, int[] out) {
      if (!(batch.root().getVector(column) instanceof VarCharVector v)) {
        return -1;
      }
      int n = batch.count();
      int[] sel = batch.selection();
      MemorySegment offsets = Vectors.segment(v.getOffsetBuffer());
      MemorySegment data = Vectors.segment(v.getDataBuffer());
      boolean noNulls = !Vectors.hasNulls(v);
      if (noNulls) {
        int count = selectWithoutNulls(offsets, data, sel, n, out);
        if (count >= 0) {
          return count;
        }
      }
      int count = 0;
      for (int i = 0; i < n; i++) {
        int r = sel == null ? i : sel[i];
        if (!noNulls && v.isNull(r)) {
          continue;
        }
        int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
        int end = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r + 1);
        out[count] = r;
        count += test(data, start, end) == TRUE ? 1 : 0;
      }
      return count;
    }

    /**
     * A subclass's own selecting loop over rows without NULLs, or -1 (nothing written) when it
     * has none for this kernel: one loop with the test written out in it, which the JIT compiles
     * whole (through {@link #test} it would not inline the comparison into the loop).
     */
    int selectWithoutNulls(MemorySegment offsets, MemorySegment data, int[] sel, int n, int[] out) {
      return -1;
    }

    @Override
    public final Col eval(Batch batch) {
      FieldVector vector = batch.root().getVector(column);
      if (!(vector instanceof VarCharVector v)) {
        return fallback.eval(batch);
      }
      int n = batch.count();
      int[] sel = batch.selection();
      Col.Bools out = new Col.Bools(n);
      MemorySegment offsets = Vectors.segment(v.getOffsetBuffer());
      MemorySegment data = Vectors.segment(v.getDataBuffer());
      boolean noNulls = !Vectors.hasNulls(v);
      boolean unknowns = !noNulls;
      for (int i = 0; i < n; i++) {
        int r = sel == null ? i : sel[i];
        if (!noNulls && v.isNull(r)) {
          out.nulls[i] = true;
          continue;
        }
        int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
        int end = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r + 1);
        int answer = test(data, start, end);
        out.values[i] = answer == TRUE;
        if (answer == UNKNOWN) {
          out.nulls[i] = true;
          unknowns = true;
        }
      }
      return unknowns ? out : out.markNoNulls();
    }
  }

  /**
   * {@code column = 'c'}, {@code column <> 'c'}, {@code column [NOT] IN ('a', 'b', ...)}: compares
   * each row's bytes with the constants' UTF-8 bytes. Equal strings have equal bytes, so the
   * answer is the one {@link String#equals} gives. A non-VarChar vector falls back to
   * {@code fallback}.
   */
  static final class Match extends OnBytes {
    private final MemorySegment[] constantBytes;
    /** Each constant's bytes as little-endian words, the last one zero-padded. */
    private final long[][] constantWords;
    private final int[] constantLengths;
    private final boolean listHasNull;
    private final boolean negated;
    /** Whether a row matches a constant its bytes start with, rather than only one they equal. */
    private final boolean prefixes;
    /**
     * When every constant has at most {@value #SHORT_WORDS} words: how many words the longest
     * needs, and each constant as {@value #SHORT_WORDS} masks and masked words (zero past its
     * bytes), so a row is compared with all constants without a branch.
     */
    private static final int SHORT_WORDS = 4;
    private final int shortWords;
    private final long[] shortMasks;
    private final long[] shortValues;

    Match(int column, List<String> constants, boolean listHasNull, boolean negated, boolean prefixes,
        Kernel fallback) {
      super(column, fallback);
      this.constantBytes = constants.stream()
          .map(s -> MemorySegment.ofArray(s.getBytes(StandardCharsets.UTF_8))).toArray(MemorySegment[]::new);
      this.constantWords = new long[constantBytes.length][];
      this.constantLengths = new int[constantBytes.length];
      for (int k = 0; k < constantBytes.length; k++) {
        MemorySegment c = constantBytes[k];
        constantLengths[k] = (int) c.byteSize();
        constantWords[k] = new long[(int) c.byteSize() / 8 + 1];
        for (int b = 0; b < c.byteSize(); b++) {
          constantWords[k][b >>> 3] |= (c.get(ValueLayout.JAVA_BYTE, b) & 0xFFL) << (8 * (b & 7));
        }
      }
      this.listHasNull = listHasNull;
      this.negated = negated;
      this.prefixes = prefixes;
      int longest = 0;
      for (int length : constantLengths) {
        longest = Math.max(longest, length);
      }
      this.shortWords = longest <= 8 * SHORT_WORDS ? Math.max(1, (longest + 7) / 8) : 0;
      this.shortMasks = new long[SHORT_WORDS * constantLengths.length];
      this.shortValues = new long[SHORT_WORDS * constantLengths.length];
      for (int k = 0; shortWords > 0 && k < constantLengths.length; k++) {
        for (int w = 0; w < SHORT_WORDS; w++) {
          int bytes = Math.clamp(constantLengths[k] - 8L * w, 0, 8);
          shortMasks[k * SHORT_WORDS + w] = bytes == 8 ? -1L : WORD_MASKS[bytes];
          shortValues[k * SHORT_WORDS + w] = w < constantWords[k].length ? constantWords[k][w] : 0;
        }
      }
    }

    @Override
    int selectWithoutNulls(MemorySegment offsets, MemorySegment data, int[] sel, int n, int[] out) {
      if (shortWords == 0 || listHasNull) {
        return -1;
      }
      // Every constant fits a few words: the row's words loaded once, compared with each.
      int words = shortWords;
      long lastWord = data.byteSize() - 8L * words;
      int exact = prefixes ? 0 : -1;
      int keep = negated ? 0 : 1;
      long[] masks = shortMasks;
      long[] values = shortValues;
      int[] lengths = constantLengths;
      if (lengths.length == 1) {
        return selectOne(offsets, data, sel, n, out, lastWord, exact, keep);
      }
      int count = 0;
      int i = 0;
      // Rows start in ascending order: those whose words lie inside the buffer come first, and
      // the loop over them calls nothing, so the JIT compiles it whole.
      for (; i < n; i++) {
        int r = sel == null ? i : sel[i];
        int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
        if (start > lastWord) {
          break;
        }
        int length = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r + 1) - start;
        long w0 = data.get(LITTLE_ENDIAN_LONG, start);
        long w1 = words > 1 ? data.get(LITTLE_ENDIAN_LONG, start + 8) : 0;
        long w2 = words > 2 ? data.get(LITTLE_ENDIAN_LONG, start + 16) : 0;
        long w3 = words > 3 ? data.get(LITTLE_ENDIAN_LONG, start + 24) : 0;
        boolean hit = false;
        for (int k = 0, b = 0; k < lengths.length; k++, b += SHORT_WORDS) {
          hit |= ((length ^ lengths[k]) & exact) == 0 & length >= lengths[k]
              & (w0 & masks[b]) == values[b] & (w1 & masks[b + 1]) == values[b + 1]
              & (w2 & masks[b + 2]) == values[b + 2] & (w3 & masks[b + 3]) == values[b + 3];
        }
        out[count] = r;
        count += (hit ? 1 : 0) ^ keep ^ 1;
      }
      return selectNearTheEnd(offsets, data, sel, n, out, i, count, keep);
    }

    /**
     * {@link #selectWithoutNulls} for one constant, its words and masks held in registers: the
     * same loop as the general one, kept apart because it runs in 55% of the general loop's time
     * (15 against 26 ms of CPU for {@code l_shipinstruct = 'DELIVER IN PERSON'} over 6M rows).
     */
    private int selectOne(MemorySegment offsets, MemorySegment data, int[] sel, int n, int[] out,
        long lastWord, int exact, int keep) {
      int words = shortWords;
      int constantLength = constantLengths[0];
      long m0 = shortMasks[0], m1 = shortMasks[1], m2 = shortMasks[2], m3 = shortMasks[3];
      long v0 = shortValues[0], v1 = shortValues[1], v2 = shortValues[2], v3 = shortValues[3];
      int count = 0;
      int i = 0;
      // Rows start in ascending order: those whose words lie inside the buffer come first.
      for (; i < n; i++) {
        int r = sel == null ? i : sel[i];
        int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
        if (start > lastWord) {
          break;
        }
        int length = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r + 1) - start;
        long w0 = data.get(LITTLE_ENDIAN_LONG, start);
        long w1 = words > 1 ? data.get(LITTLE_ENDIAN_LONG, start + 8) : 0;
        long w2 = words > 2 ? data.get(LITTLE_ENDIAN_LONG, start + 16) : 0;
        long w3 = words > 3 ? data.get(LITTLE_ENDIAN_LONG, start + 24) : 0;
        boolean hit = ((length ^ constantLength) & exact) == 0 & length >= constantLength
            & (w0 & m0) == v0 & (w1 & m1) == v1 & (w2 & m2) == v2 & (w3 & m3) == v3;
        out[count] = r;
        count += (hit ? 1 : 0) ^ keep ^ 1;
      }
      return selectNearTheEnd(offsets, data, sel, n, out, i, count, keep);
    }

    /** The last rows, whose words would run past the buffer, compared byte by byte. */
    private int selectNearTheEnd(MemorySegment offsets, MemorySegment data, int[] sel, int n, int[] out,
        int from, int count, int keep) {
      for (int i = from; i < n; i++) {
        int r = sel == null ? i : sel[i];
        int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
        int length = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r + 1) - start;
        out[count] = r;
        count += (matches(data, start, length) ? 1 : 0) ^ keep ^ 1;
      }
      return count;
    }

    @Override
    int test(MemorySegment data, int start, int end) {
      if (shortWords > 0 && start + 8L * shortWords <= data.byteSize()) {
        return matchesShort(data, start, end - start) ? negated ? FALSE : TRUE
            : listHasNull ? UNKNOWN : negated ? TRUE : FALSE;
      }
      if (matches(data, start, end - start)) {
        return negated ? FALSE : TRUE;
      }
      return listHasNull ? UNKNOWN : negated ? TRUE : FALSE;
    }

    /**
     * Whether the row's bytes equal a constant's, for short constants: the row's first words are
     * read (bytes past the row belong to the next rows and are masked off) and compared with every
     * constant, with no branch on the data: membership tests on low-cardinality columns pass at
     * rates a branch predictor cannot learn.
     */
    private boolean matchesShort(MemorySegment data, long start, int length) {
      int words = shortWords;
      long w0 = data.get(LITTLE_ENDIAN_LONG, start);
      long w1 = words > 1 ? data.get(LITTLE_ENDIAN_LONG, start + 8) : 0;
      long w2 = words > 2 ? data.get(LITTLE_ENDIAN_LONG, start + 16) : 0;
      long w3 = words > 3 ? data.get(LITTLE_ENDIAN_LONG, start + 24) : 0;
      long[] masks = shortMasks;
      long[] values = shortValues;
      int[] lengths = constantLengths;
      boolean hit = false;
      // A prefix test masks the row's words to the constant's length, as an equality test does;
      // only the length condition differs.
      int exact = prefixes ? 0 : -1;
      for (int k = 0, b = 0; k < lengths.length; k++, b += SHORT_WORDS) {
        hit |= ((length ^ lengths[k]) & exact) == 0 & length >= lengths[k]
            & (w0 & masks[b]) == values[b] & (w1 & masks[b + 1]) == values[b + 1]
            & (w2 & masks[b + 2]) == values[b + 2] & (w3 & masks[b + 3]) == values[b + 3];
      }
      return hit;
    }

    /**
     * Whether the row's bytes equal (or start with) a constant's: a constant of up to 8 bytes is
     * compared as one word (the row's bytes read as a little-endian long, masked to its length).
     */
    private boolean matches(MemorySegment data, long start, int rowLength) {
      for (int k = 0; k < constantWords.length; k++) {
        long[] words = constantWords[k];
        int length = constantLengths[k];
        if (prefixes ? rowLength < length : rowLength != length) {
          continue;
        }
        // Rows whose bytes end at least a word before the buffer does are read a word at a time.
        boolean wordable = start + Math.max(length, 8) + 8 <= data.byteSize();
        if (!wordable) {
          if (MemorySegment.mismatch(data, start, start + length, constantBytes[k], 0, length) < 0) {
            return true;
          }
          continue;
        }
        int w = 0;
        int full = length >>> 3;
        while (w < full && data.get(LITTLE_ENDIAN_LONG, start + 8L * w) == words[w]) {
          w++;
        }
        if (w == full && (length & 7) == 0) {
          return true;
        }
        if (w == full && (data.get(LITTLE_ENDIAN_LONG, start + 8L * w) & WORD_MASKS[length & 7]) == words[w]) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * {@code column [NOT] LIKE pattern} for a pattern of literal text and {@code %} only (no
   * {@code _}, which matches one character, not one byte): the literal pieces are found in the
   * row's UTF-8 bytes in order, the first anchored at the start and the last at the end unless a
   * {@code %} frees them. Byte search is exact here because UTF-8 is self-synchronising: a
   * character's bytes never match inside another character's.
   */
  static final class Like extends OnBytes {
    private static final boolean SIMD_SEARCH = Simd.ENABLED;
    private final byte[][] pieces;
    private final boolean anchoredStart;
    private final boolean anchoredEnd;
    private final boolean negated;

    private Like(int column, List<byte[]> pieces, boolean anchoredStart, boolean anchoredEnd,
        boolean negated, Kernel fallback) {
      super(column, fallback);
      this.pieces = pieces.toArray(byte[][]::new);
      this.anchoredStart = anchoredStart;
      this.anchoredEnd = anchoredEnd;
      this.negated = negated;
    }

    /** The byte-level kernel for {@code pattern}, or null when it has a {@code _}. */
    static Like of(int column, String pattern, Character escape, boolean negated, Kernel fallback) {
      List<byte[]> pieces = new java.util.ArrayList<>();
      StringBuilder piece = new StringBuilder();
      boolean anchoredStart = true;
      boolean anchoredEnd = true;
      for (int i = 0; i < pattern.length(); i++) {
        char ch = pattern.charAt(i);
        if (escape != null && ch == escape && i + 1 < pattern.length()) {
          piece.append(pattern.charAt(++i));
          anchoredEnd = true;
        } else if (ch == '_') {
          return null;
        } else if (ch == '%') {
          if (pieces.isEmpty() && piece.isEmpty()) {
            anchoredStart = false;
          }
          if (!piece.isEmpty()) {
            pieces.add(piece.toString().getBytes(StandardCharsets.UTF_8));
            piece.setLength(0);
          }
          anchoredEnd = false;
        } else {
          piece.append(ch);
          anchoredEnd = true;
        }
      }
      if (!piece.isEmpty()) {
        pieces.add(piece.toString().getBytes(StandardCharsets.UTF_8));
      }
      if (pieces.isEmpty() && anchoredStart && anchoredEnd) {
        pieces.add(new byte[0]); // '' matches only the empty string
      }
      return new Like(column, pieces, anchoredStart, anchoredEnd, negated, fallback);
    }

    @Override
    int test(MemorySegment data, int start, int end) {
      return matches(data, start, end) != negated ? TRUE : FALSE;
    }

    private boolean matches(MemorySegment data, int start, int end) {
      int from = start;
      int to = end;
      int first = 0;
      int last = pieces.length - 1;
      if (anchoredStart) {
        byte[] p = pieces[0];
        if (to - from < p.length || !equalAt(data, from, p)) {
          return false;
        }
        from += p.length;
        first = 1;
        if (pieces.length == 1) {
          return !anchoredEnd || from == to;
        }
      }
      if (anchoredEnd && last >= first) {
        byte[] p = pieces[last];
        if (to - from < p.length || !equalAt(data, to - p.length, p)) {
          return false;
        }
        to -= p.length;
        last--;
      }
      for (int k = first; k <= last; k++) {
        int at = indexOf(data, from, to, pieces[k]);
        if (at < 0) {
          return false;
        }
        from = at + pieces[k].length;
      }
      return true;
    }

    private static boolean equalAt(MemorySegment data, long at, byte[] p) {
      for (int b = 0; b < p.length; b++) {
        if (data.get(ValueLayout.JAVA_BYTE, at + b) != p[b]) {
          return false;
        }
      }
      return true;
    }

    private static int indexOf(MemorySegment data, int from, int to, byte[] p) {
      if (SIMD_SEARCH) {
        return SimdStrings.indexOf(data, from, to, p);
      }
      if (p.length == 0) {
        return from;
      }
      byte head = p[0];
      for (int at = from; at + p.length <= to; at++) {
        if (data.get(ValueLayout.JAVA_BYTE, at) == head && equalAt(data, at, p)) {
          return at;
        }
      }
      return -1;
    }
  }
}
