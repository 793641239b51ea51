package dev.lake.engine.log.segment;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.arrow.vector.util.VectorAppender;

/**
 * Cuts and stages the chunks of one struct or list column (see {@link NestedLayout}) with
 * Arrow's own split and append, which know every nested layout: a split shares the batch's value
 * buffers where it can and re-bases offsets to start at 0; rows that straddle batches are
 * appended to a staging vector with bulk copies ({@link VectorAppender}), except under a large
 * list, which Arrow 18's appender cannot take: those columns are staged a row at a time. Both
 * vectors have the table's field, so a batch's field metadata never matters.
 */
final class NestedColumn implements AutoCloseable {

  private final Field field;
  private final BufferAllocator allocator;
  private final FieldVector staged;
  private final boolean bulk;
  private FieldVector slice;

  NestedColumn(Field field, BufferAllocator allocator) {
    this.field = field;
    this.allocator = allocator;
    this.staged = field.createVector(allocator);
    staged.allocateNew();
    this.bulk = !hasLargeList(field);
  }

  private static boolean hasLargeList(Field field) {
    return field.getType() instanceof ArrowType.LargeList
        || field.getChildren().stream().anyMatch(NestedColumn::hasLargeList);
  }

  /**
   * The chunk of {@code vector}'s rows {@code [from, from + n)}. Valid until the next call; the
   * vector must not change meanwhile.
   */
  ColumnSlice slice(FieldVector vector, int from, int n) {
    closeSlice();
    slice = split(vector, from, n);
    return NestedLayout.slice(slice);
  }

  /** Appends rows {@code [from, from + n)} of {@code vector} to the staged rows. */
  void stage(FieldVector vector, int from, int n) {
    if (!bulk) {
      int at = staged.getValueCount();
      for (int i = 0; i < n; i++) {
        staged.copyFromSafe(from + i, at + i, vector);
      }
      staged.setValueCount(at + n);
      return;
    }
    try (FieldVector piece = split(vector, from, n)) {
      piece.accept(new VectorAppender(staged), null);
    }
  }

  /** The staged rows as a chunk, valid until {@link #clearStaged()}. */
  ColumnSlice staged() {
    return NestedLayout.slice(staged);
  }

  /** Empties the staging vector, keeping its memory for the next block. */
  void clearStaged() {
    staged.reset();
  }

  private FieldVector split(FieldVector vector, int from, int n) {
    FieldVector target = field.createVector(allocator);
    try {
      TransferPair pair = vector.makeTransferPair(target);
      pair.splitAndTransfer(from, n);
      return target;
    } catch (RuntimeException e) {
      target.close();
      throw e;
    }
  }

  private void closeSlice() {
    if (slice != null) {
      slice.close();
      slice = null;
    }
  }

  @Override
  public void close() {
    closeSlice();
    staged.close();
  }
}
