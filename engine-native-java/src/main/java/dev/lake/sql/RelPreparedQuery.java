package dev.lake.sql;

import dev.lake.engine.Version;
import dev.lake.exec.QueryControl;
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

  private final Execution execution;
  private final List<java.util.Optional<ColumnOrigin>> origins;

  RelPreparedQuery(RelTranslator.Node plan, Schema schema, Map<TableName, Version> pins, Execution execution) {
    this(plan, schema, pins, execution,
        java.util.Collections.nCopies(schema.getFields().size(), java.util.Optional.empty()));
  }

  /** @param origins one entry per field of {@code schema} ({@link PreparedQuery#origins}) */
  RelPreparedQuery(RelTranslator.Node plan, Schema schema, Map<TableName, Version> pins,
      Execution execution, List<java.util.Optional<ColumnOrigin>> origins) {
    this.origins = List.copyOf(origins);
    this.execution = execution;
    this.plan = plan;
    this.schema = schema;
    this.pins = Map.copyOf(pins);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public List<java.util.Optional<ColumnOrigin>> origins() {
    return origins;
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

  /** Runs the plan in a child allocator of {@code allocator}; the reader owns it. */
  @Override
  public ArrowReader execute(BufferAllocator allocator, QueryControl control) {
    return execution.run(allocator, "sql-query-" + QUERY_IDS.incrementAndGet()
        + pins.keySet().stream().map(t -> "-" + t).collect(java.util.stream.Collectors.joining()),
        control, plan.open(), schema);
  }
}
