package dev.lake.sql;

import dev.lake.engine.CorruptDataException;
import dev.lake.engine.EngineException;
import dev.lake.engine.VersionNotFoundException;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.QueryControl;
import dev.lake.exec.QueryStoppedException;
import dev.lake.exec.op.Operator;
import java.time.Duration;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * How every prepared query runs: in a child allocator of the caller's, limited by the engine's
 * per-query budget and carrying the query's {@link QueryControl} (the caller's, bounded by the
 * engine's timeout), with the operator tree opened in it and handed to a {@link QueryReader}
 * that owns both.
 *
 * @param budget the most Arrow and charged heap memory one execution may hold, in bytes
 * @param timeout the longest one execution may run, or null for no limit
 */
record Execution(long budget, Duration timeout) {

  Execution {
    if (budget <= 0) {
      throw new IllegalArgumentException("query budget must be positive: " + budget);
    }
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("query timeout must be positive: " + timeout);
    }
  }

  /**
   * @throws SqlException EXECUTION, CORRUPT_DATA, INTERNAL, RESOURCE_EXHAUSTED, CANCELLED or
   *     TIMED_OUT if the plan cannot start; nothing stays allocated
   */
  ArrowReader run(BufferAllocator allocator, String name, QueryControl control,
      Function<BufferAllocator, Operator> plan, Schema schema) {
    QueryControl bounded = timeout == null ? control : control.withTimeout(timeout);
    BufferAllocator child = allocator.newChildAllocator(name, bounded.listener(), 0,
        Math.min(budget, allocator.getLimit()));
    Operator op = null;
    try {
      bounded.check();
      op = plan.apply(child);
      return new QueryReader(child, op, schema, bounded);
    } catch (RuntimeException e) {
      if (op != null) {
        op.close();
      }
      child.close();
      throw failure(child, e);
    }
  }

  /** The SqlException a failure while running the plan is reported as. */
  static RuntimeException failure(BufferAllocator query, RuntimeException e) {
    return switch (e) {
      case OutOfMemoryException oom -> QueryReader.overBudget(query, oom);
      case QueryStoppedException stopped -> new SqlException(
          stopped.reason() == QueryStoppedException.Reason.TIMED_OUT
              ? SqlException.Kind.TIMED_OUT : SqlException.Kind.CANCELLED,
          stopped.getMessage(), 0, 0, stopped);
      case ExecutionException x -> new SqlException(switch (x.kind()) {
        case DATA -> SqlException.Kind.EXECUTION;
        case LIMIT -> SqlException.Kind.RESOURCE_EXHAUSTED;
        case INTERNAL -> SqlException.Kind.INTERNAL;
      }, x.getMessage(), 0, 0, x);
      case CorruptDataException x -> new SqlException(SqlException.Kind.CORRUPT_DATA,
          "corrupt data in " + x.describe(), 0, 0, x);
      case dev.lake.engine.CorruptMetadataException x -> new SqlException(
          SqlException.Kind.CORRUPT_DATA, "corrupt data in " + x.describe(), 0, 0, x);
      case VersionNotFoundException x -> new SqlException(SqlException.Kind.VERSION_NOT_FOUND,
          "cannot read table version " + x.version() + ": it " + (x.expired()
              ? "was expired by retention while the query ran" : "does not exist"), 0, 0, x);
      case EngineException x -> new SqlException(SqlException.Kind.INTERNAL,
          "reading the table failed: " + x.getMessage(), 0, 0, x);
      default -> e;
    };
  }
}
