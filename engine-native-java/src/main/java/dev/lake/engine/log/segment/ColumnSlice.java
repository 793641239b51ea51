package dev.lake.engine.log.segment;

import java.nio.ByteBuffer;

/**
 * Rows {@code [0, rows)} of one column exactly as a chunk stores them: the validity bitmap, the
 * int32 offsets (variable-width kinds, else null, starting at 0) and the values (bit-packed for
 * bool). The buffers are views, positioned at their first byte; they stay valid until the
 * slicer or staging block that made them is used again.
 */
record ColumnSlice(int rows, ByteBuffer validity, ByteBuffer offsets, ByteBuffer values) {

  /** The chunk's buffers in file order. */
  ByteBuffer[] buffers() {
    return offsets == null
        ? new ByteBuffer[] {validity, values}
        : new ByteBuffer[] {validity, offsets, values};
  }
}
