package dev.lake.engine.log.segment;

import java.util.List;

/** One block of a segment: its row count and one chunk per table column, in schema order. */
public record BlockMeta(int rows, List<ChunkMeta> columns) {
  public BlockMeta {
    columns = List.copyOf(columns);
  }
}
