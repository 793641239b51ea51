package dev.lake.exec.op;

import dev.lake.engine.CorruptDataException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.exec.Batch;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.QueryControl;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Reads the units of one pinned snapshot in order, one open reader at a time. Batches carry the
 * requested columns only. Each unit is independent, so morsel parallelism hands units to several
 * scans ({@link Morsels}).
 */
public final class ScanOperator implements Operator {
  private final String table;
  private final Snapshot snapshot;
  private final ScanRequest request;
  private final BufferAllocator allocator;
  private final QueryControl control;
  private Deque<ScanUnit> units;
  private ArrowReader reader;

  public ScanOperator(Snapshot snapshot, ScanRequest request, BufferAllocator allocator) {
    this(null, snapshot, request, allocator);
  }

  /**
   * @param table the qualified name of the table scanned ({@code lake.demo.episodes}), which a
   *     {@link CorruptDataException} from the engine is given; null when unknown
   */
  public ScanOperator(String table, Snapshot snapshot, ScanRequest request, BufferAllocator allocator) {
    this.table = table;
    this.snapshot = snapshot;
    this.request = request;
    this.allocator = allocator;
    this.control = QueryControl.of(allocator);
  }

  /** Reads only {@code units} (one morsel of a parallel scan), already planned for {@code request}. */
  public ScanOperator(Snapshot snapshot, ScanRequest request, List<ScanUnit> units, BufferAllocator allocator) {
    this(null, snapshot, request, units, allocator);
  }

  /** Reads only {@code units} of table {@code table} (see {@link #ScanOperator(String, Snapshot, ScanRequest, BufferAllocator)}). */
  public ScanOperator(String table, Snapshot snapshot, ScanRequest request, List<ScanUnit> units,
      BufferAllocator allocator) {
    this(table, snapshot, request, allocator);
    this.units = new ArrayDeque<>(units);
  }

  @Override
  public Batch next() {
    try {
      if (units == null) {
        List<ScanUnit> planned = snapshot.plan(request).units();
        units = new ArrayDeque<>(planned);
      }
      while (true) {
        // A cancelled or timed-out query, or an interrupted thread, stops at its next batch.
        control.check();
        if (reader == null) {
          ScanUnit unit = units.poll();
          if (unit == null) {
            return null;
          }
          reader = snapshot.open(unit, request, allocator);
        }
        if (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          if (root.getRowCount() > 0) {
            return Batch.dense(root);
          }
        } else {
          reader.close();
          reader = null;
        }
      }
    } catch (CorruptDataException e) {
      throw table == null || e.table() != null ? e : e.inTable(table);
    } catch (IOException e) {
      throw new ExecutionException(ExecutionException.Kind.INTERNAL,
          "reading table failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (reader != null) {
      try {
        reader.close();
      } catch (IOException e) {
        throw new ExecutionException(ExecutionException.Kind.INTERNAL,
            "closing table reader failed: " + e.getMessage(), e);
      } finally {
        reader = null;
      }
    }
  }
}
