package dev.lake.exec;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A batch flowing between operators: Arrow vectors plus an optional selection of the rows that
 * are still live. The producer owns the root; a consumer may read it until it asks for the next
 * batch, and may take a vector's buffers with a transfer (the producer must then not reuse them).
 *
 * @param selection physical row indices of the live rows, ascending, or null when all
 *     {@code root.getRowCount()} rows are live
 * @param count number of live rows
 */
public record Batch(VectorSchemaRoot root, int[] selection, int count) {

  public static Batch dense(VectorSchemaRoot root) {
    return new Batch(root, null, root.getRowCount());
  }

  /** The physical row of the {@code i}-th live row. */
  public int row(int i) {
    return selection == null ? i : selection[i];
  }

  /**
   * Moves the live rows of {@code source}, a vector of {@link #root()}, into {@code target}: its
   * buffers by transfer when the batch is dense (so the producer must not reuse them), else a
   * copy of the selected rows.
   */
  public void moveTo(FieldVector source, FieldVector target) {
    if (selection == null) {
      source.makeTransferPair(target).transfer();
      return;
    }
    target.setInitialCapacity(count);
    target.allocateNew();
    for (int i = 0; i < count; i++) {
      target.copyFromSafe(selection[i], i, source);
    }
    target.setValueCount(count);
  }
}
