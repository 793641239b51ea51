package dev.lake.sql;

import dev.lake.engine.Version;
import dev.lake.exec.QueryControl;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A planned query, pinned to one version of every table it reads. Immutable; {@link #execute}
 * may be called any number of times, from any thread, and always sees the same data.
 */
public interface PreparedQuery {

  /** The schema of the result batches. */
  Schema schema();

  /**
   * For each field of {@link #schema()}, in order, the table column it passes through unchanged,
   * or empty when it is computed (or the planner cannot tell). Client metadata such as JDBC's
   * {@code ResultSetMetaData.getTableName} is built from it.
   */
  default java.util.List<java.util.Optional<ColumnOrigin>> origins() {
    return java.util.Collections.nCopies(schema().getFields().size(), java.util.Optional.empty());
  }

  /** The version of each table the plan reads; pass back to {@link SqlEngine#prepare(String, Map)} to replay. */
  Map<TableName, Version> pins();

  /**
   * Runs the query, bounded by the engine's timeout only. The caller owns the reader and must
   * close it; its buffers are allocated from {@code allocator}.
   *
   * @throws SqlException if execution fails (for example a runtime type error)
   */
  default ArrowReader execute(BufferAllocator allocator) {
    return execute(allocator, QueryControl.create());
  }

  /**
   * Runs the query under {@code control}: {@link QueryControl#cancel()} from any thread, or the
   * control's deadline, stops it (and every worker of a parallel plan) within a batch, and the
   * reader then fails with {@link SqlException.Kind#CANCELLED} or {@link
   * SqlException.Kind#TIMED_OUT}; the engine's own timeout, if set, applies as well. The caller
   * owns the reader and must close it (also after a failure); its buffers, and the heap its hash
   * tables hold, are charged to {@code allocator}.
   *
   * @throws SqlException if execution fails: EXECUTION for a runtime data error,
   *     RESOURCE_EXHAUSTED over a memory budget, CANCELLED, TIMED_OUT
   */
  ArrowReader execute(BufferAllocator allocator, QueryControl control);

  /**
   * The physical plan, one line per operator with its inputs indented below it: for scans the
   * table version, columns read, the predicate pushed to the engine and the blocks it prunes.
   * Reads table metadata only.
   */
  java.util.List<String> explain();
}
