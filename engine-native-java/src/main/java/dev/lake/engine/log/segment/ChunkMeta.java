package dev.lake.engine.log.segment;

import java.util.List;

/**
 * Where one column of one block lives in a segment file: byte range, CRC32C of that range, the
 * lengths of the Arrow buffers it concatenates, and its statistics. A struct or list column also
 * lists its Arrow {@link Node}s in pre-order (itself first); a flat column has none.
 */
public record ChunkMeta(long offset, long length, int crc32c, List<Long> bufferLengths, ColumnStats stats,
    List<Node> nodes) {

  /** One node of a nested column's Arrow tree in one block: its value count and null count. */
  public record Node(int length, int nulls) {}

  public ChunkMeta {
    bufferLengths = List.copyOf(bufferLengths);
    nodes = List.copyOf(nodes);
  }

  /** A flat column's chunk. */
  public ChunkMeta(long offset, long length, int crc32c, List<Long> bufferLengths, ColumnStats stats) {
    this(offset, length, crc32c, bufferLengths, stats, List.of());
  }
}
