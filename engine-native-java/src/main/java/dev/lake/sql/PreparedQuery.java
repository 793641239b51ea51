package dev.lake.sql;

import dev.lake.engine.Version;
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

  /** The version of each table the plan reads; pass back to {@link SqlEngine#prepare(String, Map)} to replay. */
  Map<TableName, Version> pins();

  /**
   * Runs the query. The caller owns the reader and must close it; its buffers are allocated from
   * {@code allocator}.
   *
   * @throws SqlException if execution fails (for example a runtime type error)
   */
  ArrowReader execute(BufferAllocator allocator);

  /**
   * The physical plan, one line per operator with its inputs indented below it: for scans the
   * table version, columns read, the predicate pushed to the engine and the blocks it prunes.
   * Reads table metadata only.
   */
  java.util.List<String> explain();
}
