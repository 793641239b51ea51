package dev.lake.sql;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.Snapshot;
import dev.lake.engine.Version;
import dev.lake.exec.QueryControl;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.op.FilterOperator;
import dev.lake.exec.op.HashAggregateOperator;
import dev.lake.exec.op.LimitOperator;
import dev.lake.exec.op.Operator;
import dev.lake.exec.op.ProjectOperator;
import dev.lake.exec.op.ScanOperator;
import dev.lake.exec.op.SingleRowOperator;
import dev.lake.exec.op.SortOperator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A bound query and the physical plan it runs as: scan, filter, [hash aggregate, filter],
 * project, [distinct], [sort], [limit]. Each {@link #execute} builds fresh operators, so
 * executions are independent.
 */
final class LakePreparedQuery implements PreparedQuery {
  private static final AtomicLong QUERY_IDS = new AtomicLong();

  private final BoundQuery query;
  private final Map<TableName, Version> pins;

  private final Execution execution;

  LakePreparedQuery(BoundQuery query, Execution execution) {
    this.query = query;
    this.execution = execution;
    Map<TableName, Version> p = new LinkedHashMap<>();
    query.scan().ifPresent(s -> p.put(s.table(), s.version()));
    this.pins = Map.copyOf(p);
  }

  @Override
  public Schema schema() {
    return query.output();
  }

  /** A projection that is a bare scanned column, in a query without aggregation, has an origin. */
  @Override
  public List<java.util.Optional<ColumnOrigin>> origins() {
    List<java.util.Optional<ColumnOrigin>> origins = new ArrayList<>();
    int fields = query.output().getFields().size();
    for (int i = 0; i < fields; i++) {
      java.util.Optional<ColumnOrigin> origin = java.util.Optional.empty();
      if (query.scan().isPresent() && query.aggregate().isEmpty() && i < query.projections().size()
          && query.projections().get(i) instanceof Expr.Column column
          && column.index() < query.scan().get().columns().size()
          && query.scan().get().columns().get(column.index()).equals(column.name())) {
        origin = java.util.Optional.of(new ColumnOrigin(query.scan().get().table(),
            query.scan().get().columns().get(column.index())));
      }
      origins.add(origin);
    }
    return origins;
  }

  @Override
  public Map<TableName, Version> pins() {
    return pins;
  }

  /**
   * Runs the query in a child allocator of {@code allocator} named after the query. The
   * returned reader owns that allocator and every buffer of the run; closing it releases them.
   */
  @Override
  public ArrowReader execute(BufferAllocator allocator, QueryControl control) {
    String name = "sql-query-" + QUERY_IDS.incrementAndGet()
        + query.scan().map(s -> "-" + s.table()).orElse("");
    return execution.run(allocator, name, control, this::build, query.output());
  }

  @Override
  public List<String> explain() {
    List<String> lines = new ArrayList<>();
    long needed = Binder.saturatedAdd(query.offset(), query.limit());
    if (query.offset() > 0 || query.limit() != Long.MAX_VALUE) {
      lines.add("Limit offset=" + query.offset() + (query.limit() == Long.MAX_VALUE ? "" : " limit=" + query.limit()));
    }
    if (!query.orderBy().isEmpty()) {
      lines.add("Sort keys=" + query.orderBy() + (needed == Long.MAX_VALUE ? "" : " top=" + needed));
    }
    if (query.distinct()) {
      lines.add("HashAggregate (DISTINCT)");
    }
    lines.add("Project " + query.projections());
    if (query.aggregate().isPresent()) {
      if (query.having() != null) {
        lines.add("Filter (HAVING) " + query.having());
      }
      lines.add("HashAggregate keys=" + query.aggregate().get().keys() + " aggs=" + query.aggregate().get().calls());
    }
    if (query.where() != null) {
      lines.add("Filter " + query.where());
    }
    if (query.scan().isPresent()) {
      BoundQuery.Scan scan = query.scan().get();
      Snapshot.ScanPlan plan = scan.snapshot().plan(new ScanRequest(scan.columns(), scan.filter(), scan.limitHint()));
      lines.add("Scan " + SqlCatalog.LAKE + "." + scan.table() + " version " + scan.version().number()
          + " columns=" + scan.columns() + scan.filter().map(e -> " pushed=" + e).orElse("")
          + " units=" + plan.units().size() + " blocks=" + plan.blocksTotal() + " pruned=" + plan.blocksPruned());
    } else {
      lines.add("SingleRow");
    }
    List<String> indented = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      indented.add("  ".repeat(i) + lines.get(i));
    }
    return indented;
  }

  private Operator build(BufferAllocator allocator) {
    Operator op;
    if (query.scan().isPresent()) {
      BoundQuery.Scan scan = query.scan().get();
      ScanRequest request = new ScanRequest(scan.columns(), scan.filter(), scan.limitHint());
      op = new ScanOperator(scan.snapshot(), request, allocator);
    } else {
      op = new SingleRowOperator(allocator);
    }
    if (query.where() != null) {
      op = new FilterOperator(op, query.where());
    }
    if (query.aggregate().isPresent()) {
      BoundQuery.Aggregate agg = query.aggregate().get();
      op = new HashAggregateOperator(op, agg.schema(), agg.keys(), agg.calls(), allocator);
      if (query.having() != null) {
        op = new FilterOperator(op, query.having());
      }
    }
    op = new ProjectOperator(op, query.projectSchema(), query.projections(), allocator);
    if (query.distinct()) {
      List<Expr> keys = new ArrayList<>();
      for (int i = 0; i < query.output().getFields().size(); i++) {
        keys.add(new Expr.Column(i, query.output().getFields().get(i).getName(),
            query.projections().get(i).type()));
      }
      op = new HashAggregateOperator(op, query.output(), keys, List.of(), allocator);
    }
    long needed = Binder.saturatedAdd(query.offset(), query.limit());
    if (!query.orderBy().isEmpty()) {
      Schema sortSchema = query.distinct() ? query.output() : query.projectSchema();
      op = new SortOperator(op, sortSchema, query.orderBy(), needed, allocator);
    }
    if (query.offset() > 0 || query.limit() != Long.MAX_VALUE) {
      op = new LimitOperator(op, query.offset(), query.limit());
    }
    return op;
  }
}
