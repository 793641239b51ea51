package dev.lake.engine.log.segment;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Rows {@code [0, rows)} of one column exactly as a chunk stores them: the validity bitmap, the
 * int32 offsets (variable-width kinds, else null, starting at 0) and the values (bit-packed for
 * bool). A struct or list column instead has {@code tree}, the buffers of every node in
 * pre-order (the first is the column's own validity, also in {@code validity}), and its
 * {@code nodes}. The buffers are views, positioned at their first byte; they stay valid until
 * the slicer or staging block that made them is used again.
 */
record ColumnSlice(int rows, ByteBuffer validity, ByteBuffer offsets, ByteBuffer values,
    List<ByteBuffer> tree, List<ChunkMeta.Node> nodes) {

  /** A flat column's slice. */
  ColumnSlice(int rows, ByteBuffer validity, ByteBuffer offsets, ByteBuffer values) {
    this(rows, validity, offsets, values, null, List.of());
  }

  /** A nested column's slice: every node's buffers in pre-order, and the nodes. */
  static ColumnSlice nested(int rows, List<ByteBuffer> tree, List<ChunkMeta.Node> nodes) {
    return new ColumnSlice(rows, tree.getFirst(), null, null, List.copyOf(tree), List.copyOf(nodes));
  }

  /** The chunk's buffers in file order. */
  ByteBuffer[] buffers() {
    if (tree != null) {
      return tree.toArray(ByteBuffer[]::new);
    }
    return offsets == null
        ? new ByteBuffer[] {validity, values}
        : new ByteBuffer[] {validity, offsets, values};
  }
}
