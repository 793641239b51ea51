package dev.lake.engine.log.segment;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Encodes a flat chunk for a format-3 footer and decodes it back into Arrow buffers of the
 * reader's allocator. The encoded bytes (little-endian) are the validity bitmap when the chunk
 * has NULLs (omitted otherwise), then by scheme:
 *
 * <ul>
 *   <li>{@code plain}: the raw offsets and values (only ever stored under a codec);
 *   <li>{@code for}: base (int64), bit width (int8), then every slot's {@code value - base}
 *       bit-packed LSB-first into int64 words (integers, dates, timestamps, and decimal128 whose
 *       values all fit in 64 bits); width 0 is a constant;
 *   <li>{@code dict}: entries (int32), code width (int8), dictionary bytes (int32), the
 *       dictionary's int32 offsets and bytes, then each slot's code bit-packed (utf8, binary).
 * </ul>
 *
 * The codec ({@code zstd}, under {@code small}) then covers those bytes whole. Decoding checks
 * every length and code against the footer before touching memory, and fails with a
 * {@link SegmentFormatException} describing the problem rather than returning garbage.
 */
final class ChunkCodec {

  static final String PLAIN = "plain";
  static final String FOR = "for";
  static final String DICT = "dict";
  static final String NONE = "none";
  static final String ZSTD = "zstd";
  private static final int ZSTD_LEVEL = 3;
  /** A dictionary is tried only while it has at most this share of the rows as entries. */
  private static final int DICT_MAX_SHARE = 4;

  private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private ChunkCodec() {}

  /** An encoded chunk: the bytes to store and its footer entry's encoding and buffer lengths. */
  record Encoded(ByteBuffer stored, List<Long> bufferLengths, ChunkMeta.Encoding encoding) {}

  static boolean knownScheme(String scheme) {
    return PLAIN.equals(scheme) || FOR.equals(scheme) || DICT.equals(scheme);
  }

  static boolean knownCodec(String codec) {
    return NONE.equals(codec) || ZSTD.equals(codec);
  }

  /** The chunk encoded, or null to store it raw (nothing pays, or {@code none}). */
  static Encoded encode(ColumnKind kind, ColumnSlice slice, long nulls, Compression compression) {
    if (compression == Compression.NONE) {
      return null;
    }
    int rows = slice.rows();
    ByteBuffer validity = le(slice.validity());
    ByteBuffer values = le(slice.values());
    ByteBuffer offsets = slice.offsets() == null ? null : le(slice.offsets());
    long rawValues = (offsets == null ? 0 : offsets.remaining()) + values.remaining();
    byte[] body = null;
    String scheme = PLAIN;
    if (kind.variableWidth()) {
      body = dictionary(rows, offsets, values, rawValues);
      scheme = body == null ? PLAIN : DICT;
    } else if (forKind(kind)) {
      body = frameOfReference(kind, rows, values);
      scheme = body == null ? PLAIN : FOR;
    }
    if (body == null && compression == Compression.FAST) {
      return null;
    }
    long bitmap = nulls > 0 ? validity.remaining() : 0;
    long encodedLength = bitmap + (body != null ? body.length : rawValues);
    if (encodedLength > Integer.MAX_VALUE - 64) {
      return null;
    }
    ByteBuffer encoded = ByteBuffer.allocate((int) encodedLength);
    if (nulls > 0) {
      encoded.put(validity.duplicate());
    }
    if (body != null) {
      encoded.put(body);
    } else {
      if (offsets != null) {
        encoded.put(offsets.duplicate());
      }
      encoded.put(values.duplicate());
    }
    encoded.flip();
    String codec = NONE;
    ByteBuffer stored = encoded;
    if (compression == Compression.SMALL) {
      byte[] packed = Zstd.compress(encoded.array(), ZSTD_LEVEL);
      if (packed.length < encodedLength - encodedLength / 16) {
        codec = ZSTD;
        stored = ByteBuffer.wrap(packed);
      } else if (body == null) {
        return null;
      }
    }
    List<Long> lengths = offsets == null
        ? List.of((long) validity.remaining(), (long) values.remaining())
        : List.of((long) validity.remaining(), (long) offsets.remaining(), (long) values.remaining());
    return new Encoded(stored, lengths, new ChunkMeta.Encoding(scheme, codec, encodedLength));
  }

  /**
   * Decodes an encoded chunk into Arrow buffers in the chunk's buffer order. Buffers it allocates
   * are added to {@code owned}, which the caller closes once the vectors retained what they need
   * (also on failure); the returned buffers may be slices of those.
   *
   * @param stored the chunk's stored bytes, already checked against its CRC32C
   * @param allValid the bitmap to use when the chunk has no NULLs, or null to allocate one
   * @throws SegmentFormatException if the bytes do not decode to the lengths the footer records
   */
  static List<ArrowBuf> decode(ColumnKind kind, ChunkMeta meta, int rows, ArrowBuf stored,
      ArrowBuf allValid, BufferAllocator allocator, List<ArrowBuf> owned) throws SegmentFormatException {
    ChunkMeta.Encoding enc = meta.encoding();
    List<Long> lengths = meta.bufferLengths();
    long rawSum = lengths.stream().mapToLong(Long::longValue).sum();
    long encodedLength = enc.encodedLength();
    if (encodedLength < 0 || encodedLength > rawSum + 64) {
      throw new SegmentFormatException("has an encoded length " + encodedLength + " its buffers cannot have");
    }
    ArrowBuf encoded;
    if (ZSTD.equals(enc.codec())) {
      encoded = allocator.buffer(Math.max(encodedLength, 1));
      owned.add(encoded);
      long got;
      try {
        got = Zstd.decompressDirectByteBuffer(encoded.nioBuffer(0, (int) encodedLength), 0,
            (int) encodedLength, stored.nioBuffer(0, (int) stored.capacity()), 0, (int) stored.capacity());
      } catch (ZstdException | IllegalArgumentException e) {
        throw new SegmentFormatException("does not decompress (" + e.getMessage() + ")", e);
      }
      if (Zstd.isError(got)) {
        throw new SegmentFormatException("does not decompress (" + Zstd.getErrorName(got) + ")");
      }
      if (got != encodedLength) {
        throw new SegmentFormatException("decompresses to " + got + " bytes, its footer says " + encodedLength);
      }
    } else {
      if (stored.capacity() != encodedLength) {
        throw new SegmentFormatException("has " + stored.capacity() + " stored bytes, its footer says " + encodedLength);
      }
      encoded = stored;
    }
    long bitmapLength = lengths.getFirst();
    long at = 0;
    ArrowBuf validity;
    if (meta.stats().nullCount() > 0) {
      need(0, bitmapLength, encodedLength);
      validity = encoded.slice(0, bitmapLength);
      at = bitmapLength;
    } else if (allValid != null) {
      validity = allValid;
    } else {
      validity = allocator.buffer(Math.max(bitmapLength, 1));
      owned.add(validity);
      validity.setOne(0, validity.capacity());
      validity = validity.slice(0, bitmapLength);
    }
    switch (enc.scheme()) {
      case PLAIN -> {
        if (encodedLength != at + rawSum - bitmapLength) {
          throw new SegmentFormatException("has " + encodedLength + " plain bytes, its buffers " + (rawSum - bitmapLength));
        }
        if (lengths.size() == 3) {
          return List.of(validity, encoded.slice(at, lengths.get(1)), encoded.slice(at + lengths.get(1), lengths.get(2)));
        }
        return List.of(validity, encoded.slice(at, lengths.get(1)));
      }
      case FOR -> {
        if (!forKind(kind) || lengths.size() != 2) {
          throw new SegmentFormatException("has frame-of-reference encoding, which its type cannot have");
        }
        ArrowBuf values = allocator.buffer(Math.max(lengths.get(1), 1));
        owned.add(values);
        unpackFor(kind, encoded, at, encodedLength, rows, values);
        return List.of(validity, values.slice(0, lengths.get(1)));
      }
      case DICT -> {
        if (!kind.variableWidth() || lengths.size() != 3) {
          throw new SegmentFormatException("has dictionary encoding, which its type cannot have");
        }
        return unpackDictionary(encoded, at, encodedLength, rows, validity, lengths.get(2), allocator, owned);
      }
      default -> throw new SegmentFormatException("has unknown encoding '" + enc.scheme() + "'");
    }
  }

  // --- frame of reference ---

  private static boolean forKind(ColumnKind kind) {
    return switch (kind) {
      case INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, DATE_DAY, DATE_MILLI, TIMESTAMP,
          DECIMAL128 -> true;
      default -> false;
    };
  }

  private static int width(ColumnKind kind) {
    return kind == ColumnKind.DECIMAL128 ? 16 : (int) kind.bufferLength(1, 1);
  }

  private static long get(ColumnKind kind, ByteBuffer v, int i) {
    return switch (kind) {
      case INT8 -> v.get(i);
      case UINT8 -> v.get(i) & 0xFFL;
      case INT16 -> v.getShort(i * 2);
      case UINT16 -> v.getShort(i * 2) & 0xFFFFL;
      case INT32, DATE_DAY -> v.getInt(i * 4);
      case UINT32 -> v.getInt(i * 4) & 0xFFFFFFFFL;
      case DECIMAL128 -> v.getLong(i * 16);
      default -> v.getLong(i * 8);
    };
  }

  /** The values as frame of reference, or null when they do not fit in fewer bits. */
  private static byte[] frameOfReference(ColumnKind kind, int rows, ByteBuffer values) {
    if (rows == 0) {
      return null;
    }
    boolean unsigned = kind == ColumnKind.UINT64;
    long min = get(kind, values, 0);
    long max = min;
    for (int i = 0; i < rows; i++) {
      long x = get(kind, values, i);
      if (kind == ColumnKind.DECIMAL128 && values.getLong(i * 16 + 8) != x >> 63) {
        return null;
      }
      if (unsigned ? Long.compareUnsigned(x, min) < 0 : x < min) {
        min = x;
      }
      if (unsigned ? Long.compareUnsigned(x, max) > 0 : x > max) {
        max = x;
      }
    }
    int bits = 64 - Long.numberOfLeadingZeros(max - min);
    long words = ((long) rows * bits + 63) / 64;
    long size = 9 + words * 8;
    if (size >= (long) rows * width(kind)) {
      return null;
    }
    ByteBuffer out = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(min).put((byte) bits);
    long[] packed = new long[(int) words];
    for (int i = 0; i < rows && bits > 0; i++) {
      pack(packed, i, bits, get(kind, values, i) - min);
    }
    for (long w : packed) {
      out.putLong(w);
    }
    return out.array();
  }

  private static void unpackFor(ColumnKind kind, ArrowBuf in, long at, long end, int rows, ArrowBuf values)
      throws SegmentFormatException {
    need(at, 9, end);
    long base = in.getLong(at);
    int bits = in.getByte(at + 8);
    if (bits < 0 || bits > 64) {
      throw new SegmentFormatException("has a bit width of " + bits);
    }
    long words = ((long) rows * bits + 63) / 64;
    if (at + 9 + words * 8 != end) {
      throw new SegmentFormatException("has " + (end - at - 9) + " packed bytes, " + rows + " values of "
          + bits + " bits need " + words * 8);
    }
    MemorySegment src = segment(in, at + 9, words * 8);
    MemorySegment dst = segment(values, 0, (long) rows * width(kind));
    switch (width(kind)) {
      case 1 -> {
        for (int i = 0; i < rows; i++) {
          dst.set(ValueLayout.JAVA_BYTE, i, (byte) (base + unpack(src, i, bits)));
        }
      }
      case 2 -> {
        for (int i = 0; i < rows; i++) {
          dst.setAtIndex(SHORT, i, (short) (base + unpack(src, i, bits)));
        }
      }
      case 4 -> {
        for (int i = 0; i < rows; i++) {
          dst.setAtIndex(INT, i, (int) (base + unpack(src, i, bits)));
        }
      }
      case 8 -> {
        for (int i = 0; i < rows; i++) {
          dst.setAtIndex(LONG, i, base + unpack(src, i, bits));
        }
      }
      default -> {
        for (int i = 0; i < rows; i++) {
          long x = base + unpack(src, i, bits);
          dst.setAtIndex(LONG, 2L * i, x);
          dst.setAtIndex(LONG, 2L * i + 1, x >> 63);
        }
      }
    }
  }

  // --- dictionary ---

  private static byte[] dictionary(int rows, ByteBuffer offsets, ByteBuffer values, long raw) {
    if (rows == 0) {
      return null;
    }
    int limit = Math.max(1, rows / DICT_MAX_SHARE);
    Map<ByteBuffer, Integer> entries = new HashMap<>();
    int[] codes = new int[rows];
    long dictBytes = 0;
    for (int i = 0; i < rows; i++) {
      int start = offsets.getInt(i * 4);
      int end = offsets.getInt(i * 4 + 4);
      ByteBuffer key = values.slice(start, end - start);
      Integer code = entries.get(key);
      if (code == null) {
        if (entries.size() >= limit) {
          return null;
        }
        code = entries.size();
        entries.put(key, code);
        dictBytes += end - start;
      }
      codes[i] = code;
    }
    int n = entries.size();
    int bits = 32 - Integer.numberOfLeadingZeros(n - 1);
    long words = ((long) rows * bits + 63) / 64;
    long size = 9 + (n + 1L) * 4 + dictBytes + words * 8;
    if (size >= raw) {
      return null;
    }
    ByteBuffer[] byCode = new ByteBuffer[n];
    entries.forEach((k, c) -> byCode[c] = k);
    ByteBuffer out = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
    out.putInt(n).put((byte) bits).putInt((int) dictBytes);
    int o = 0;
    for (ByteBuffer e : byCode) {
      out.putInt(o);
      o += e.remaining();
    }
    out.putInt(o);
    for (ByteBuffer e : byCode) {
      out.put(e.duplicate());
    }
    long[] packed = new long[(int) words];
    for (int i = 0; i < rows && bits > 0; i++) {
      pack(packed, i, bits, codes[i]);
    }
    for (long w : packed) {
      out.putLong(w);
    }
    return out.array();
  }

  private static List<ArrowBuf> unpackDictionary(ArrowBuf in, long at, long end, int rows, ArrowBuf validity,
      long dataLength, BufferAllocator allocator, List<ArrowBuf> owned) throws SegmentFormatException {
    need(at, 9, end);
    int n = in.getInt(at);
    int bits = in.getByte(at + 4);
    int dictBytes = in.getInt(at + 5);
    if (n <= 0 || bits < 0 || bits > 32 || dictBytes < 0) {
      throw new SegmentFormatException("has a malformed dictionary header");
    }
    long dictOffsets = at + 9;
    long dictData = dictOffsets + (n + 1L) * 4;
    long codes = dictData + dictBytes;
    long words = ((long) rows * bits + 63) / 64;
    if (codes + words * 8 != end) {
      throw new SegmentFormatException("has a dictionary whose lengths do not add up");
    }
    for (int e = 0; e < n; e++) {
      int a = in.getInt(dictOffsets + e * 4L);
      int b = in.getInt(dictOffsets + e * 4L + 4);
      if ((e == 0 && a != 0) || a < 0 || b < a || b > dictBytes || (e == n - 1 && b != dictBytes)) {
        throw new SegmentFormatException("has inconsistent dictionary offsets");
      }
    }
    ArrowBuf offsets = allocator.buffer((rows + 1L) * 4);
    owned.add(offsets);
    MemorySegment dictionary = segment(in, dictOffsets, (n + 1L) * 4);
    MemorySegment packed = segment(in, codes, words * 8);
    MemorySegment out = segment(offsets, 0, (rows + 1L) * 4);
    long total = 0;
    out.setAtIndex(INT, 0, 0);
    for (int i = 0; i < rows; i++) {
      long code = unpack(packed, i, bits);
      if (code >= n) {
        throw new SegmentFormatException("has code " + code + " beyond its dictionary of " + n);
      }
      total += dictionary.getAtIndex(INT, code + 1) - dictionary.getAtIndex(INT, code);
      if (total > dataLength) {
        throw new SegmentFormatException("decodes to more than the " + dataLength + " value bytes its footer says");
      }
      out.setAtIndex(INT, i + 1, (int) total);
    }
    if (total != dataLength) {
      throw new SegmentFormatException("decodes to " + total + " value bytes, its footer says " + dataLength);
    }
    ArrowBuf data = allocator.buffer(Math.max(dataLength, 1));
    owned.add(data);
    MemorySegment entries = segment(in, dictData, dictBytes);
    MemorySegment bytes = segment(data, 0, dataLength);
    for (int i = 0; i < rows; i++) {
      long code = unpack(packed, i, bits);
      int a = dictionary.getAtIndex(INT, code);
      MemorySegment.copy(entries, a, bytes, out.getAtIndex(INT, i), dictionary.getAtIndex(INT, code + 1) - a);
    }
    return List.of(validity, offsets, data.slice(0, dataLength));
  }

  // --- bit packing ---

  private static void pack(long[] words, int i, int bits, long value) {
    long bit = (long) i * bits;
    int word = (int) (bit >>> 6);
    int off = (int) (bit & 63);
    words[word] |= value << off;
    if (off + bits > 64) {
      words[word + 1] |= value >>> (64 - off);
    }
  }

  /** Value {@code i} of {@code bits} bits, packed LSB-first into the int64 words of {@code words}. */
  private static long unpack(MemorySegment words, int i, int bits) {
    if (bits == 0) {
      return 0;
    }
    long bit = (long) i * bits;
    long word = bit >>> 6;
    int off = (int) (bit & 63);
    long x = words.getAtIndex(LONG, word) >>> off;
    if (off + bits > 64) {
      x |= words.getAtIndex(LONG, word + 1) << (64 - off);
    }
    return bits == 64 ? x : x & ((1L << bits) - 1);
  }

  /** Bytes {@code [at, at + length)} of {@code buf} as a segment (bounds-checked by the JIT). */
  private static MemorySegment segment(ArrowBuf buf, long at, long length) {
    return MemorySegment.ofBuffer(buf.nioBuffer(at, (int) length));
  }

  private static void need(long at, long length, long end) throws SegmentFormatException {
    if (at < 0 || length < 0 || at + length > end) {
      throw new SegmentFormatException("is shorter than its encoding needs");
    }
  }

  private static ByteBuffer le(ByteBuffer b) {
    return b.slice().order(ByteOrder.LITTLE_ENDIAN);
  }
}
