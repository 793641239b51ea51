package dev.lake.engine.log.segment;

import java.util.List;

/**
 * Where one column of one block lives in a segment file: byte range, CRC32C of that range, the
 * lengths of the Arrow buffers it holds, and its statistics. A struct or list column also lists
 * its Arrow {@link Node}s in pre-order (itself first); a flat column has none. A flat chunk of a
 * format-3 footer may be {@link Encoding encoded}: its range then holds the encoded (and maybe
 * compressed) bytes, and the buffer lengths are those of the decoded Arrow buffers.
 */
public record ChunkMeta(long offset, long length, int crc32c, List<Long> bufferLengths, ColumnStats stats,
    List<Node> nodes, Encoding encoding) {

  /** One node of a nested column's Arrow tree in one block: its value count and null count. */
  public record Node(int length, int nulls) {}

  /**
   * How an encoded chunk's stored bytes decode ({@link ChunkCodec}): the encoding of the values,
   * the general codec over the encoded bytes ({@code none} or {@code zstd}), and the encoded
   * length before that codec.
   */
  public record Encoding(String scheme, String codec, long encodedLength) {}

  public ChunkMeta {
    bufferLengths = List.copyOf(bufferLengths);
    nodes = List.copyOf(nodes);
  }

  /** A chunk holding its Arrow buffers raw. */
  public ChunkMeta(long offset, long length, int crc32c, List<Long> bufferLengths, ColumnStats stats,
      List<Node> nodes) {
    this(offset, length, crc32c, bufferLengths, stats, nodes, null);
  }

  /** A flat column's chunk, raw. */
  public ChunkMeta(long offset, long length, int crc32c, List<Long> bufferLengths, ColumnStats stats) {
    this(offset, length, crc32c, bufferLengths, stats, List.of(), null);
  }
}
