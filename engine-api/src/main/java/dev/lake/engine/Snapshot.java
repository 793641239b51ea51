package dev.lake.engine;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One committed version of a table. Immutable and safe for concurrent readers.
 */
public interface Snapshot {

  Version version();

  Schema schema();

  /** Exact number of rows in this version, from metadata. */
  long rowCount();

  /**
   * Splits a scan into independent units (segments, fragments), dropping units whose
   * statistics prove that no row can satisfy {@link ScanRequest#filter()}.
   */
  ScanPlan plan(ScanRequest request);

  /**
   * Reads one unit. Batches carry only {@link ScanRequest#columns()}, in that order. The engine
   * may skip blocks or rows that cannot match the filter, but callers must still apply it.
   * The caller owns and must close the reader; its buffers come from {@code allocator}.
   *
   * @throws CorruptTableException if a file is missing, truncated or fails its checksum
   */
  ArrowReader open(ScanUnit unit, ScanRequest request, BufferAllocator allocator);

  /**
   * Reads the rows at {@code positions} (0-based row offsets in this version, in scan order),
   * for random access. Batches carry {@code columns} in that order and the rows in the order of
   * {@code positions}; the caller owns and must close the reader, whose buffers come from {@code
   * allocator}.
   *
   * <p>An optional capability: engines without random access keep this default.
   *
   * @throws CapabilityNotSupportedException if the engine cannot take rows by position (the
   *     default); nothing was read
   * @throws IndexOutOfBoundsException if a position is negative or not below {@link #rowCount()}
   */
  default ArrowReader take(long[] positions, List<String> columns, BufferAllocator allocator) {
    throw new CapabilityNotSupportedException(null, "table's", "take by row position");
  }

  /**
   * Statistics of one column over the whole version, from metadata only (nothing is scanned),
   * for estimating how many rows operators produce. Optional: the default knows nothing.
   *
   * @throws IllegalArgumentException if the column does not exist
   */
  default java.util.Optional<ColumnStatistics> statistics(String column) {
    if (schema().getFields().stream().noneMatch(f -> f.getName().equals(column))) {
      throw new IllegalArgumentException("no column '" + column + "'");
    }
    return java.util.Optional.empty();
  }

  /** The units of a planned scan and how much the statistics pruned. */
  record ScanPlan(List<ScanUnit> units, long blocksTotal, long blocksPruned) {
    public ScanPlan {
      units = List.copyOf(units);
      if (blocksTotal < 0 || blocksPruned < 0 || blocksPruned > blocksTotal) {
        throw new IllegalArgumentException(
            "invalid block counts: total=" + blocksTotal + " pruned=" + blocksPruned);
      }
    }
  }
}
