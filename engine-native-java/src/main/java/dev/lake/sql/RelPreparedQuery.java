package dev.lake.sql;

import dev.lake.engine.EngineException;
import dev.lake.engine.Version;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.op.Operator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/** A query planned through {@link RelPlanner}: a tree of physical plan nodes, opened per run. */
final class RelPreparedQuery implements PreparedQuery {
  private static final AtomicLong QUERY_IDS = new AtomicLong();

  private final RelTranslator.Node plan;
  private final Schema schema;
  private final Map<TableName, Version> pins;

  private final long budget;

  RelPreparedQuery(RelTranslator.Node plan, Schema schema, Map<TableName, Version> pins, long budget) {
    this.budget = budget;
    this.plan = plan;
    this.schema = schema;
    this.pins = Map.copyOf(pins);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public Map<TableName, Version> pins() {
    return pins;
  }

  @Override
  public List<String> explain() {
    List<String> lines = new ArrayList<>();
    plan.explain("", lines);
    return lines;
  }

  /**
   * Runs the plan in a child allocator of {@code allocator}; the reader owns it.
   *
   * @throws SqlException EXECUTION if the plan cannot start; nothing stays allocated
   */
  @Override
  public ArrowReader execute(BufferAllocator allocator) {
    BufferAllocator child = allocator.newChildAllocator("sql-query-" + QUERY_IDS.incrementAndGet()
        + pins.keySet().stream().map(t -> "-" + t).collect(java.util.stream.Collectors.joining()),
        0, Math.min(budget, allocator.getLimit()));
    Operator op = null;
    try {
      op = plan.open().apply(child);
      return new QueryReader(child, op, schema);
    } catch (RuntimeException e) {
      if (op != null) {
        op.close();
      }
      child.close();
      if (e instanceof org.apache.arrow.memory.OutOfMemoryException oom) {
        throw QueryReader.overBudget(child, oom);
      }
      if (e instanceof ExecutionException || e instanceof EngineException) {
        throw new SqlException(SqlException.Kind.EXECUTION, e.getMessage(), 0, 0, e);
      }
      throw e;
    }
  }
}
