package dev.lake.engine.log.segment;

import java.util.List;

/**
 * Where one column of one block lives in a segment file: byte range, CRC32C of that range, the
 * lengths of the Arrow buffers it concatenates, and its statistics.
 */
public record ChunkMeta(long offset, long length, int crc32c, List<Long> bufferLengths, ColumnStats stats) {
  public ChunkMeta {
    bufferLengths = List.copyOf(bufferLengths);
  }
}
