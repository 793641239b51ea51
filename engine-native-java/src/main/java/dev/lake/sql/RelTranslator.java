package dev.lake.sql;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.expr.Expression;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.Kernel;
import dev.lake.exec.fn.AggregateFunction;
import dev.lake.exec.fn.Binding;
import dev.lake.exec.fn.CoreAggregates;
import dev.lake.exec.op.FilterOperator;
import dev.lake.exec.op.GatherOperator;
import dev.lake.exec.op.HashAggregateOperator;
import dev.lake.exec.op.HashJoinOperator;
import dev.lake.exec.op.JoinSpec;
import dev.lake.exec.op.JoinTable;
import dev.lake.exec.op.LimitOperator;
import dev.lake.exec.op.Morsels;
import dev.lake.exec.op.ParallelAggregateOperator;
import dev.lake.exec.op.PartialStates;
import dev.lake.exec.op.Operator;
import dev.lake.exec.op.ProjectOperator;
import dev.lake.exec.op.ScanOperator;
import dev.lake.exec.op.SortOperator;
import dev.lake.exec.op.UnionAllOperator;
import dev.lake.exec.op.ValuesOperator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Turns an optimised logical plan into lake's physical operators: scans with projection and
 * predicate pushdown, filters, projections, hash aggregates, hash joins (inner, left, right,
 * semi, anti; the smaller input of an inner join is built), sorts with top-N, limits, UNION ALL
 * and constant rows. Expressions are translated once here; operators are created per execution.
 */
final class RelTranslator {

  /**
   * A semi or anti join builds its kept side when the other side is estimated at least this many
   * times larger: a table of the large side (all of lineitem for TPC-H Q21's EXISTS) costs more to
   * build than streaming it past a table of the small one.
   */
  static final double BUILD_KEPT_SIDE_RATIO = 4;

  /**
   * A physical plan node: its output columns ({@code types.get(i)} is null for a column the
   * engine only passes through, such as a struct), how to open it, and its EXPLAIN line.
   */
  record Node(List<Field> fields, List<SqlType> types, Function<BufferAllocator, Operator> open,
      java.util.function.Supplier<String> label, List<Node> inputs, Pipeline pipeline) {

    Node(List<Field> fields, List<SqlType> types, Function<BufferAllocator, Operator> open,
        String label, List<Node> inputs) {
      this(fields, types, open, () -> label, inputs, null);
    }

    Schema schema() {
      return new Schema(fields);
    }

    List<String> names() {
      return fields.stream().map(Field::getName).toList();
    }

    void explain(String indent, List<String> lines) {
      lines.add(indent + label.get());
      for (Node input : inputs) {
        input.explain(indent + "  ", lines);
      }
    }
  }

  /**
   * A scan with the filters, projections and hash join probes stacked on it. Each execution
   * starts it once (which builds the tables its probes read) and then runs copies of it over
   * disjoint morsels of the scan, on several workers.
   */
  record Pipeline(Function<BufferAllocator, Morsels> start) {

    /** This pipeline with a stage that keeps no state shared between copies. */
    Pipeline then(java.util.function.BiFunction<Operator, BufferAllocator, Operator> next) {
      return new Pipeline(a -> start.apply(a).then(op -> next.apply(op, a), null));
    }

    /** This pipeline probing the table {@code build} makes, one table per execution. */
    Pipeline probing(Function<BufferAllocator, JoinTable> build, JoinSpec spec) {
      return new Pipeline(a -> {
        JoinTable table = build.apply(a);
        try {
          return start.apply(a).then(op -> new HashJoinOperator(op, () -> table, false, spec, a), table);
        } catch (RuntimeException e) {
          table.close();
          throw e;
        }
      });
    }
  }

  private final RexBuilder rexBuilder;
  private final int threads;
  private final Cardinality cardinality;
  private final List<Expr.Literal> parameters;

  RelTranslator(RexBuilder rexBuilder, RelMetadataQuery mq, int threads) {
    this(rexBuilder, mq, threads, List.of());
  }

  /** @param parameters the value bound to each {@code ?} of the plan, by index */
  RelTranslator(RexBuilder rexBuilder, RelMetadataQuery mq, int threads, List<Expr.Literal> parameters) {
    this.rexBuilder = rexBuilder;
    this.threads = threads;
    this.cardinality = new Cardinality(mq);
    this.parameters = parameters;
  }

  Node translate(RelNode rel) {
    return switch (rel) {
      case TableScan scan -> scan(scan, null, null);
      case Filter filter -> filter(filter);
      case Project project -> project(project);
      case Aggregate aggregate when GroupingSets.needed(aggregate) -> translate(GroupingSets.expand(aggregate));
      case Aggregate aggregate -> aggregate(aggregate);
      case Join join -> join(join);
      case Sort sort -> sort(sort);
      case Union union -> union(union);
      case org.apache.calcite.rel.core.SetOp setOp when SetOperations.handles(setOp) -> setOperation(setOp);
      case Values values -> values(values);
      case org.apache.calcite.rel.core.Window window ->
          WindowTranslation.translate(window, gather(translate(window.getInput())), threads);
      case org.apache.calcite.rel.core.Correlate correlate when unnestOf(correlate) != null -> unnest(correlate);
      case org.apache.calcite.rel.core.Uncollect uncollect -> uncollect(uncollect);
      default -> throw RexToExpr.unsupported(describe(rel));
    };
  }

  private static String describe(RelNode rel) {
    return switch (rel.getRelTypeName()) {
      case "LogicalCorrelate" -> "a correlated subquery of this shape";
      case "LogicalIntersect" -> "INTERSECT";
      case "LogicalMinus" -> "EXCEPT";
      case "LogicalWindow" -> "window functions";
      default -> rel.getRelTypeName();
    };
  }

  private RexToExpr rex(Node input) {
    return new RexToExpr(rexBuilder, input.types(), input.names(), parameters);
  }

  private static Field field(String name, SqlType type) {
    return type.field(name);
  }

  // ---------------------------------------------------------------- scan

  private Node scan(TableScan scan, List<Integer> columns, RexNode condition) {
    return scan(scan, columns, condition, OptionalLong.empty());
  }

  /** @param limitHint rows the consumer needs at most (the engine may return more), or empty */
  private Node scan(TableScan scan, List<Integer> columns, RexNode condition, OptionalLong limitHint) {
    CalciteTables.LakeTable table = scan.getTable().unwrap(CalciteTables.LakeTable.class);
    if (table == null) {
      throw RexToExpr.unsupported("table " + scan.getTable().getQualifiedName());
    }
    List<Field> all = table.snapshot.schema().getFields();
    List<Integer> read = columns;
    if (read == null) {
      read = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        read.add(i);
      }
    }
    List<Field> fields = new ArrayList<>();
    List<SqlType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i : read) {
      Field f = all.get(i);
      fields.add(f);
      types.add(SqlType.fromArrow(f.getType(), f.isNullable()).orElse(null));
      names.add(f.getName());
    }
    boolean empty = names.isEmpty();
    List<String> request = empty && !all.isEmpty() ? List.of(all.getFirst().getName()) : names;
    Expr predicate = null;
    Optional<Expression> pushed = Optional.empty();
    if (condition != null) {
      predicate = new RexToExpr(rexBuilder, types, names, parameters).convert(condition);
      pushed = Pushdown.translate(predicate, names);
    }
    Optional<Expression> filter = pushed;
    String filterText = predicate == null ? "" : " filter=" + condition;
    java.util.function.Supplier<String> label = () -> scanLabel(table, request, filter) + filterText;
    ScanRequest scanRequest = new ScanRequest(request, filter, limitHint);
    Expr finalPredicate = predicate;
    java.util.function.BiFunction<Operator, BufferAllocator, Operator> above = (scanOp, allocator) -> {
      Operator op = scanOp;
      if (finalPredicate != null) {
        op = new FilterOperator(op, finalPredicate);
      }
      if (empty) {
        op = new ProjectOperator(op, new Schema(List.of()), List.of(), allocator);
      }
      return op;
    };
    String scanName = table.name.qualified();
    Function<BufferAllocator, Operator> open = allocator ->
        above.apply(new ScanOperator(scanName, table.snapshot, scanRequest, allocator), allocator);
    Pipeline pipeline = new Pipeline(allocator -> new Morsels(plan(table, scanRequest).units(),
        units -> new ScanOperator(scanName, table.snapshot, scanRequest, units, allocator), null)).then(above);
    return new Node(fields, types, open, label, List.of(), pipeline);
  }

  /** Plans a scan of {@code table}; damage found in its footers names the table. */
  private static dev.lake.engine.Snapshot.ScanPlan plan(CalciteTables.LakeTable table,
      ScanRequest request) {
    try {
      return table.snapshot.plan(request);
    } catch (dev.lake.engine.CorruptDataException e) {
      throw e.table() != null ? e : e.inTable(table.name.qualified());
    }
  }

  /** What a scan reads, with the blocks its pushed predicate prunes (asks the engine to plan). */
  static String scanLabel(CalciteTables.LakeTable table, List<String> columns, Optional<Expression> filter) {
    dev.lake.engine.Snapshot.ScanPlan plan =
        plan(table, new ScanRequest(columns, filter, OptionalLong.empty()));
    return "Scan " + table.name.qualified() + " version " + table.version.number()
        + " columns=" + columns + filter.map(e -> " pushed=" + e).orElse("")
        + " units=" + plan.units().size() + " blocks=" + plan.blocksTotal()
        + " pruned=" + plan.blocksPruned();
  }

  /** The columns of a projection made only of column references, or null. */
  private static List<Integer> columnRefs(Project project) {
    List<Integer> refs = new ArrayList<>();
    for (RexNode e : project.getProjects()) {
      if (!(e instanceof RexInputRef ref)) {
        return null;
      }
      refs.add(ref.getIndex());
    }
    return refs;
  }

  // ---------------------------------------------------------------- filter, project

  private Node filter(Filter filter) {
    RelNode input = filter.getInput();
    if (input instanceof TableScan scan) {
      return scan(scan, null, filter.getCondition());
    }
    if (input instanceof Project project && project.getInput() instanceof TableScan scan
        && columnRefs(project) != null) {
      return scan(scan, columnRefs(project), filter.getCondition());
    }
    Node anti = antiJoin(filter);
    if (anti != null) {
      return anti;
    }
    Node in = translate(input);
    Expr predicate = rex(in).convert(filter.getCondition());
    return new Node(in.fields(), in.types(),
        a -> new FilterOperator(in.open().apply(a), predicate),
        () -> "Filter " + filter.getCondition(), List.of(in),
        in.pipeline() == null ? null
            : in.pipeline().then((op, a) -> new FilterOperator(op, predicate)));
  }

  /**
   * {@code LEFT JOIN ... WHERE r IS NULL} for a column {@code r} of the right side that is never
   * NULL itself (how the decorrelator writes NOT EXISTS) keeps exactly the left rows without a
   * match: an anti join, followed by NULLs for the right side's columns. Null otherwise.
   */
  private Node antiJoin(Filter filter) {
    if (!(filter.getInput() instanceof Join join) || join.getJoinType() != JoinRelType.LEFT
        || !(filter.getCondition() instanceof RexCall call) || call.getKind() != SqlKind.IS_NULL
        || !(call.getOperands().getFirst() instanceof RexInputRef ref)) {
      return null;
    }
    int nLeft = join.getLeft().getRowType().getFieldCount();
    if (ref.getIndex() < nLeft
        || join.getRight().getRowType().getFieldList().get(ref.getIndex() - nLeft).getType().isNullable()) {
      return null;
    }
    Node anti = join(join.copy(join.getTraitSet(), join.getCondition(), join.getLeft(), join.getRight(),
        JoinRelType.ANTI, join.isSemiJoinDone()));
    Node right = anti.inputs().get(1);
    List<Expr> exprs = new ArrayList<>();
    List<Field> fields = new ArrayList<>();
    List<SqlType> types = new ArrayList<>();
    for (int i = 0; i < nLeft; i++) {
      exprs.add(new Expr.Column(i, anti.names().get(i), anti.types().get(i)));
      fields.add(anti.fields().get(i));
      types.add(anti.types().get(i));
    }
    for (int i = 0; i < right.fields().size(); i++) {
      SqlType t = right.types().get(i).withNullable(true);
      exprs.add(new Expr.Literal(null, t));
      fields.add(field(right.names().get(i), t));
      types.add(t);
    }
    return project(anti, exprs, fields, types, "Project (NULL right columns of NOT EXISTS)");
  }

  private Node project(Project project) {
    List<Integer> refs = columnRefs(project);
    if (refs != null && project.getInput() instanceof TableScan scan
        && refs.stream().distinct().count() == refs.size()) {
      Node node = scan(scan, refs, null);
      return rename(node, project.getRowType().getFieldNames());
    }
    Pruned pruned = pruned(project.getInput(), project.getProjects());
    Node in = pruned != null ? pruned.scan() : translate(project.getInput());
    List<RexNode> projects = pruned != null ? pruned.exprs() : project.getProjects();
    RexToExpr rex = rex(in);
    List<Expr> exprs = new ArrayList<>();
    List<Field> fields = new ArrayList<>();
    List<SqlType> types = new ArrayList<>();
    List<String> names = project.getRowType().getFieldNames();
    for (int i = 0; i < projects.size(); i++) {
      RexNode e = projects.get(i);
      if (e instanceof RexInputRef ref && in.types().get(ref.getIndex()) == null) {
        exprs.add(new Expr.Column(ref.getIndex(), names.get(i), RexToExpr.PASS_THROUGH));
        Field f = in.fields().get(ref.getIndex());
        fields.add(new Field(names.get(i), f.getFieldType(), f.getChildren()));
        types.add(null);
        continue;
      }
      if (RexToExpr.isScalarList(e.getType()) && !rex.isPath(e)) {
        // A computed list (ARRAY[...], a list literal): written as a list, then passed through.
        Expr x = rex.convert(e);
        exprs.add(x);
        fields.add(x.type().field(names.get(i)));
        types.add(null);
        continue;
      }
      if (RexToExpr.isNested(e.getType())) {
        // A struct or list inside a column (video.meta, events[1]), passed through whole.
        Expr.Nested x = rex.nestedPassThrough(e);
        Field f = fieldAt(in.fields().get(x.column()), x.path());
        exprs.add(x);
        fields.add(new Field(names.get(i), FieldType.nullable(f.getType()), f.getChildren()));
        types.add(null);
        continue;
      }
      Expr x = rex.convert(e);
      exprs.add(x);
      fields.add(field(names.get(i), x.type()));
      types.add(x.type());
    }
    return project(in, exprs, fields, types, "Project " + project.getProjects());
  }

  /** A scan of only the columns some expressions use, and those expressions over it. */
  private record Pruned(Node scan, List<RexNode> exprs) {}

  /**
   * When {@code input} is a table (or a filter straight over one), the scan of just the columns
   * {@code exprs} and the filter use, with {@code exprs} over the scan's columns; null otherwise.
   */
  private Pruned pruned(RelNode input, List<RexNode> exprs) {
    RexNode condition = null;
    TableScan scan;
    if (input instanceof TableScan t) {
      scan = t;
    } else if (input instanceof Filter f && f.getInput() instanceof TableScan t) {
      scan = t;
      condition = f.getCondition();
    } else {
      return null;
    }
    List<Integer> columns = RelOptUtil.InputFinder.bits(exprs, condition).asList();
    int[] at = new int[scan.getRowType().getFieldCount()];
    for (int i = 0; i < columns.size(); i++) {
      at[columns.get(i)] = i;
    }
    RexShuttle remap = new RexShuttle() {
      @Override
      public RexNode visitInputRef(RexInputRef ref) {
        return new RexInputRef(at[ref.getIndex()], ref.getType());
      }
    };
    Node read = scan(scan, columns, condition == null ? null : condition.accept(remap));
    return new Pruned(read, exprs.stream().map(e -> e.accept(remap)).toList());
  }

  /** The Arrow field of the value {@code path} reaches inside column {@code column}. */
  private static Field fieldAt(Field column, List<Expr.Step> path) {
    Field f = column;
    for (Expr.Step step : path) {
      f = step instanceof Expr.Step.Member m ? f.getChildren().get(m.child()) : f.getChildren().getFirst();
    }
    return f;
  }

  private static Node project(Node in, List<Expr> exprs, List<Field> fields, List<SqlType> types, String label) {
    Schema schema = new Schema(fields);
    return new Node(fields, types, a -> new ProjectOperator(in.open().apply(a), schema, exprs, a),
        () -> label, List.of(in),
        in.pipeline() == null ? null : in.pipeline().then((op, a) -> new ProjectOperator(op, schema, exprs, a)));
  }

  private static Node rename(Node node, List<String> names) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      Field f = node.fields().get(i);
      fields.add(new Field(names.get(i), f.getFieldType(), f.getChildren()));
    }
    return new Node(fields, node.types(), node.open(), node.label(), node.inputs(), node.pipeline());
  }

  // ---------------------------------------------------------------- aggregate

  private Node aggregate(Aggregate aggregate) {
    if (aggregate.getGroupType() != Aggregate.Group.SIMPLE) {
      throw RexToExpr.unsupported("GROUPING SETS, ROLLUP and CUBE");
    }
    // Over a computing projection, the aggregate evaluates the projected expressions itself on
    // the projection's input: no intermediate vectors are written and read back.
    Fused fusion = aggregate.getInput() instanceof TableScan scan
        ? scanOfUsedColumns(aggregate, scan) : fusedProjection(aggregate.getInput());
    List<Expr> fused = fusion == null ? null : fusion.exprs();
    Node in = fusion == null ? translate(aggregate.getInput()) : fusion.input();
    List<String> names = aggregate.getRowType().getFieldNames();
    List<String> inNames = aggregate.getInput().getRowType().getFieldNames();
    List<Expr> keys = new ArrayList<>();
    List<Field> fields = new ArrayList<>();
    List<SqlType> types = new ArrayList<>();
    int k = 0;
    for (int g : aggregate.getGroupSet()) {
      SqlType t = fused != null ? fused.get(g).type() : in.types().get(g);
      if (t == null) {
        throw RexToExpr.wholeValue("GROUP BY (or DISTINCT) on " + inNames.get(g),
            aggregate.getInput().getRowType().getFieldList().get(g).getType());
      }
      keys.add(fused != null ? fused.get(g) : new Expr.Column(g, in.names().get(g), t));
      fields.add(field(names.get(k), t));
      types.add(t);
      k++;
    }
    List<Expr.Agg> calls = new ArrayList<>();
    // Per output aggregate: its index among the calls, or -1 for LITERAL_AGG (a constant).
    List<Integer> slots = new ArrayList<>();
    List<Expr> literals = new ArrayList<>();
    List<Boolean> sum0 = new ArrayList<>();
    // Per call: how its partial results combine, or null when it cannot run split.
    List<AggregateFunction.Split> splits = new ArrayList<>();
    List<Field> outFields = new ArrayList<>(fields);
    List<SqlType> outTypes = new ArrayList<>(types);
    for (AggregateCall call : aggregate.getAggCallList()) {
      SqlKind kind = call.getAggregation().getKind();
      if (kind == SqlKind.LITERAL_AGG) {
        Expr literal = new RexToExpr(rexBuilder, List.of(), List.of(), parameters).convert(call.rexList.getFirst());
        slots.add(-1);
        literals.add(literal);
        sum0.add(false);
        outFields.add(field(names.get(k), literal.type()));
        outTypes.add(literal.type());
        k++;
        continue;
      }
      java.util.function.IntFunction<Expr> input = a -> {
        if (fused != null) {
          return fused.get(a);
        }
        if (in.types().get(a) == null) {
          throw RexToExpr.wholeValue(call.getAggregation().getName() + "(" + in.names().get(a) + ")",
              aggregate.getInput().getRowType().getFieldList().get(a).getType());
        }
        return new Expr.Column(a, in.names().get(a), in.types().get(a));
      };
      Expr filter = call.filterArg >= 0 ? input.apply(call.filterArg) : null;
      if (call.getAggregation() instanceof FunctionOperators.AggregateOperator registered) {
        Expr.Agg agg = RegistryAggregates.translate(registered.function, call, input, filter);
        SqlType type = agg.type();
        boolean list = registered.function.listResult();
        Field f = list ? RegistryAggregates.listField(names.get(k), type) : field(names.get(k), type);
        slots.add(calls.size());
        literals.add(null);
        calls.add(agg);
        splits.add(registered.function.split());
        sum0.add(false);
        fields.add(f);
        types.add(list ? null : type);
        outFields.add(f);
        outTypes.add(list ? null : type);
        k++;
        continue;
      }
      if (call.getArgList().size() > 1 || !call.getCollation().getFieldCollations().isEmpty()) {
        throw RexToExpr.unsupported("aggregate " + call);
      }
      Expr arg = null;
      if (!call.getArgList().isEmpty()) {
        int a = call.getArgList().getFirst();
        if (fused != null) {
          arg = fused.get(a);
        } else {
          RelDataType argType = aggregate.getInput().getRowType().getFieldList().get(a).getType();
          if (in.types().get(a) != null) {
            arg = new Expr.Column(a, in.names().get(a), in.types().get(a));
          } else if (kind == SqlKind.COUNT && !call.isDistinct() && RexToExpr.isNested(argType)) {
            // count(video) counts the rows where the value is not NULL.
            SqlType one = SqlType.of(SqlType.Kind.INT64, true);
            arg = new Expr.Case(List.of(new Expr.Nested(a, in.names().get(a), List.of(), Expr.Reach.IS_NULL,
                SqlType.of(SqlType.Kind.BOOL, false))), List.of(new Expr.Literal(null, one)),
                new Expr.Literal(1L, one), one);
          } else {
            throw RexToExpr.wholeValue(call.getAggregation().getName()
                + (call.isDistinct() ? "(DISTINCT " : "(") + in.names().get(a) + "): "
                + in.names().get(a), argType);
          }
        }
      }
      // SINGLE_VALUE (a scalar subquery's one row) is Calcite's own; every other function is
      // the registry's, run on the typed kernel it names. $SUM0 is Calcite's sum that reads 0
      // over no rows.
      AggregateFunction core = kind == SqlKind.SINGLE_VALUE ? null : kernelFunction(call);
      Expr.AggFn fn = core == null ? Expr.AggFn.SINGLE_VALUE : switch (core.kernel().orElseThrow()) {
        case COUNT -> Expr.AggFn.COUNT;
        case SUM -> Expr.AggFn.SUM;
        case AVG -> Expr.AggFn.AVG;
        case MIN -> Expr.AggFn.MIN;
        case MAX -> Expr.AggFn.MAX;
      };
      SqlType type = core == null ? arg.type().withNullable(true)
          : core.resultType(Binding.of(arg == null ? List.of() : List.of(arg.type())));
      splits.add(core == null ? null : core.split());
      slots.add(calls.size());
      literals.add(null);
      calls.add(new Expr.Agg(fn, call.isDistinct(), arg, type, filter, null));
      sum0.add(kind == SqlKind.SUM0);
      fields.add(field(names.get(k), type));
      types.add(type);
      outFields.add(field(names.get(k), kind == SqlKind.SUM0 ? type.withNullable(false) : type));
      outTypes.add(kind == SqlKind.SUM0 ? type.withNullable(false) : type);
      k++;
    }
    Schema schema = new Schema(fields);
    int keyCount = keys.size();
    boolean parallel = threads > 1 && in.pipeline() != null;
    for (int c = 0; c < calls.size() && parallel; c++) {
      parallel = decomposable(calls.get(c), splits.get(c));
    }
    Function<BufferAllocator, Operator> open = parallel
        ? parallelAggregate(in.pipeline(), keys, calls, splits, fields)
        : a -> new HashAggregateOperator(gather(in).open().apply(a), schema, keys, calls, a);
    Node agg = new Node(fields, types, open,
        (parallel ? "ParallelHashAggregate (partial per morsel, final in morsel order) threads=" + threads + " "
            : "HashAggregate ") + "keys=" + aggregate.getGroupSet() + " aggs=" + aggregate.getAggCallList(),
        List.of(in));
    if (!sum0.contains(true) && !slots.contains(-1)) {
      return agg;
    }
    List<Expr> exprs = new ArrayList<>();
    for (int i = 0; i < keyCount; i++) {
      exprs.add(new Expr.Column(i, fields.get(i).getName(), types.get(i)));
    }
    for (int j = 0; j < slots.size(); j++) {
      if (slots.get(j) < 0) {
        exprs.add(literals.get(j));
        continue;
      }
      int i = keyCount + slots.get(j);
      SqlType t = types.get(i);
      Expr col = new Expr.Column(i, fields.get(i).getName(), t);
      exprs.add(sum0.get(j) ? zeroIfNull(col) : col);
    }
    return project(agg, exprs, outFields, outTypes, "Project (SUM0 of no rows is 0; LITERAL_AGG)");
  }

  /** {@code col}, or 0 where it is NULL: a sum over no rows that must read 0 (SUM0, COUNT). */
  private static Expr zeroIfNull(Expr col) {
    SqlType t = col.type();
    Expr zero = RexToExpr.cast(new Expr.Literal(0L, SqlType.of(SqlType.Kind.INT64, false)), t);
    return new Expr.Case(List.of(new Expr.Call(Expr.Op.IS_NOT_NULL, List.of(col), SqlType.of(SqlType.Kind.BOOL, false))),
        List.of(col), zero, t.withNullable(false));
  }

  /**
   * The expressions of {@code input} when it is a projection the aggregate can evaluate itself
   * (over its own input), or null: a projection of bare columns over a scan is already free, and
   * one passing a nested column through is left to {@link ProjectOperator}.
   */
  private Fused fusedProjection(RelNode input) {
    if (!(input instanceof Project project)) {
      return null;
    }
    List<Integer> refs = columnRefs(project);
    if (refs != null && project.getInput() instanceof TableScan) {
      return null;
    }
    Pruned pruned = pruned(project.getInput(), project.getProjects());
    Node below = pruned != null ? pruned.scan() : translate(project.getInput());
    List<Expr> exprs = new ArrayList<>();
    RexToExpr rex = rex(below);
    for (RexNode e : pruned != null ? pruned.exprs() : project.getProjects()) {
      if ((e instanceof RexInputRef ref && below.types().get(ref.getIndex()) == null)
          || RexToExpr.isNested(e.getType())) {
        return null;
      }
      exprs.add(rex.convert(e));
    }
    return new Fused(below, exprs);
  }

  /**
   * An aggregate straight over a table reads only the columns its keys and arguments use
   * ({@code count(*)} one column, for the row count): the scan of those, and per table column
   * its reference into the scan (null where unused). Null when a used column is nested (the
   * aggregate's own checks then name it).
   */
  private Fused scanOfUsedColumns(Aggregate aggregate, TableScan scan) {
    java.util.TreeSet<Integer> used = new java.util.TreeSet<>(aggregate.getGroupSet().asList());
    for (AggregateCall call : aggregate.getAggCallList()) {
      used.addAll(call.getArgList());
    }
    Node below = scan(scan, new ArrayList<>(used), null);
    List<Expr> exprs = new ArrayList<>(java.util.Collections.nCopies(scan.getRowType().getFieldCount(), null));
    int at = 0;
    for (int column : used) {
      SqlType t = below.types().get(at);
      if (t == null) {
        return null;
      }
      exprs.set(column, new Expr.Column(at, below.names().get(at), t));
      at++;
    }
    return new Fused(below, exprs);
  }

  /** A projection's input and its expressions over that input. */
  private record Fused(Node input, List<Expr> exprs) {}

  private static boolean decomposable(Expr.Agg call, AggregateFunction.Split split) {
    if (split == null) {
      return false;
    }
    if (split == AggregateFunction.Split.STATES) {
      // Any registry state merges its partials; a list result is not yet projected through.
      return !call.registered().spec().function().listResult();
    }
    // A typed kernel's DISTINCT keeps its values whole, not per morsel.
    return !call.distinct();
  }

  /** The registry's function of a typed kernel that Calcite's aggregate {@code call} spells. */
  private static AggregateFunction kernelFunction(AggregateCall call) {
    String name = call.getAggregation().getKind() == SqlKind.SUM0 ? "sum" : call.getAggregation().getName();
    return FunctionOperators.registry().lookupAggregate(name).filter(f -> f.kernel().isPresent())
        .orElseThrow(() -> RexToExpr.unsupported("aggregate function " + call.getAggregation().getName()));
  }

  /**
   * Partial aggregates over each morsel of the pipeline, merged by a final aggregate as each
   * call's function says ({@link AggregateFunction#split()}): counts are summed (0 when there are
   * none), sums, minimums and maximums aggregate themselves, an average travels as a sum and a
   * count, a registry state merges its partial states.
   */
  private Function<BufferAllocator, Operator> parallelAggregate(Pipeline pipeline, List<Expr> keys,
      List<Expr.Agg> calls, List<AggregateFunction.Split> splits, List<Field> outFields) {
    int k = keys.size();
    List<Field> partialFields = new ArrayList<>(outFields.subList(0, k));
    List<Field> finalFields = new ArrayList<>(outFields.subList(0, k));
    List<Expr.Agg> partialCalls = new ArrayList<>();
    List<Expr.Agg> finalCalls = new ArrayList<>();
    List<Expr> finalKeys = new ArrayList<>();
    List<Expr> out = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      finalKeys.add(new Expr.Column(i, outFields.get(i).getName(), keys.get(i).type()));
      out.add(finalKeys.get(i));
    }
    SqlType int64 = SqlType.of(SqlType.Kind.INT64, true);
    for (int i = 0; i < calls.size(); i++) {
      Expr.Agg call = calls.get(i);
      switch (splits.get(i)) {
        case COUNT -> {
          // A scan with no units (an empty table, or every block pruned) leaves the final
          // aggregate no partials: their SUM is NULL, but the count of no rows is 0.
          Expr p = partialColumn(partialCalls, partialFields, k, new Expr.Agg(Expr.AggFn.COUNT, false, call.arg(), call.type(), call.filter(), null));
          out.add(zeroIfNull(finalColumn(finalCalls, finalFields, k, new Expr.Agg(Expr.AggFn.SUM, false, p, int64))));
        }
        case SUM_AND_COUNT -> {
          SqlType sumType = CoreAggregates.SUM.resultType(Binding.of(List.of(call.arg().type())));
          Expr s = partialColumn(partialCalls, partialFields, k, new Expr.Agg(Expr.AggFn.SUM, false, call.arg(), sumType, call.filter(), null));
          Expr c = partialColumn(partialCalls, partialFields, k, new Expr.Agg(Expr.AggFn.COUNT, false, call.arg(), int64, call.filter(), null));
          Expr sum = finalColumn(finalCalls, finalFields, k, new Expr.Agg(Expr.AggFn.SUM, false, s, sumType));
          Expr count = finalColumn(finalCalls, finalFields, k, new Expr.Agg(Expr.AggFn.SUM, false, c, int64));
          Expr none = new Expr.Call(Expr.Op.EQ, List.of(count, new Expr.Literal(0L, int64)), SqlType.of(SqlType.Kind.BOOL, true));
          out.add(new Expr.Case(List.of(none), List.of(new Expr.Literal(null, call.type())),
              averageOf(sum, count, call.type()), call.type()));
        }
        case STATES -> {
          // Each morsel's states travel as handles; the final aggregate merges the states.
          Expr.Registered r = call.registered();
          Expr p = partialColumn(partialCalls, partialFields, k, new Expr.Agg(Expr.AggFn.REGISTERED, call.distinct(),
              call.arg(), int64.withNullable(false), call.filter(), new Expr.Registered(r.spec(), r.inputs(), Expr.Phase.PARTIAL)));
          out.add(finalColumn(finalCalls, finalFields, k, new Expr.Agg(Expr.AggFn.REGISTERED, call.distinct(), p,
              call.type(), null, new Expr.Registered(r.spec(), List.of(p), Expr.Phase.FINAL))));
        }
        case SELF -> {
          Expr p = partialColumn(partialCalls, partialFields, k, call);
          out.add(finalColumn(finalCalls, finalFields, k, new Expr.Agg(call.fn(), false, p, call.type())));
        }
      }
    }
    Schema partialSchema = new Schema(partialFields);
    Schema finalSchema = new Schema(finalFields);
    Schema outSchema = new Schema(outFields);
    int workers = threads;
    return a -> {
      PartialStates states = new PartialStates(a);
      return new ParallelAggregateOperator(() -> pipeline.start().apply(a),
          source -> new HashAggregateOperator(source, partialSchema, keys, partialCalls, a, states),
          partialSchema, k,
          partials -> new ProjectOperator(
              new HashAggregateOperator(partials, finalSchema, finalKeys, finalCalls, a, states), outSchema, out, a),
          outSchema, workers, a, states);
    };
  }

  /**
   * The final {@code sum / count} of a split AVG: a DOUBLE quotient, or for decimals the
   * quotient rounded half up to the average's scale, exactly what the one-pass accumulator
   * returns.
   */
  private static Expr averageOf(Expr sum, Expr count, SqlType avg) {
    SqlType operand = avg.kind() == SqlType.Kind.DECIMAL
        ? SqlType.decimal(SqlType.MAX_DECIMAL_PRECISION, sum.type().scale(), true)
        : SqlType.of(SqlType.Kind.FLOAT64, true);
    return new Expr.Call(Expr.Op.DIV, List.of(RexToExpr.cast(sum, operand), RexToExpr.cast(count, operand)),
        avg.withNullable(true));
  }

  private static Expr partialColumn(List<Expr.Agg> calls, List<Field> fields, int k, Expr.Agg call) {
    calls.add(call);
    String name = "p" + fields.size();
    fields.add(field(name, call.type()));
    return new Expr.Column(k + calls.size() - 1, name, call.type());
  }

  private static Expr finalColumn(List<Expr.Agg> calls, List<Field> fields, int k, Expr.Agg call) {
    calls.add(call);
    String name = "f" + fields.size();
    fields.add(field(name, call.type()));
    return new Expr.Column(k + calls.size() - 1, name, call.type());
  }

  // ---------------------------------------------------------------- join

  private Node join(Join join) {
    JoinRelType type = join.getJoinType();
    if (type == JoinRelType.ASOF || type == JoinRelType.LEFT_ASOF) {
      throw RexToExpr.unsupported(type + " JOIN");
    }
    Node left = translate(join.getLeft());
    Node right = translate(join.getRight());
    int nLeft = left.fields().size();
    // A semi or anti join whose kept (left) side is far smaller than the other builds the kept
    // side and streams the other past it (HashJoinOperator's RIGHT_SEMI, RIGHT_ANTI).
    boolean buildKept = (type == JoinRelType.SEMI || type == JoinRelType.ANTI) && hasEquiKey(join, nLeft)
        && rows(join.getRight()) >= BUILD_KEPT_SIDE_RATIO * rows(join.getLeft());
    boolean symmetric = type == JoinRelType.INNER || type == JoinRelType.FULL;
    boolean swap = type == JoinRelType.RIGHT || buildKept
        || (symmetric && rows(join.getLeft()) < rows(join.getRight()));
    if (symmetric && nested(swap ? left : right) && !nested(swap ? right : left)) {
      // Struct and list columns pass through the probe side only: build the other side.
      swap = !swap;
    }
    Node probe = swap ? right : left;
    Node build = swap ? left : right;
    int nProbe = probe.fields().size();
    // Condition over probe-then-build columns.
    RexNode condition = swap ? join.getCondition().accept(new RexShuttle() {
      @Override
      public RexNode visitInputRef(RexInputRef ref) {
        int i = ref.getIndex();
        return new RexInputRef(i < nLeft ? i + right.fields().size() : i - nLeft, ref.getType());
      }
    }) : join.getCondition();
    List<Expr> probeKeys = new ArrayList<>();
    List<Expr> buildKeys = new ArrayList<>();
    List<Boolean> nullSafe = new ArrayList<>();
    List<RexNode> residual = new ArrayList<>();
    for (RexNode c : RelOptUtil.conjunctions(condition)) {
      if (c instanceof RexCall call && (c.getKind() == SqlKind.EQUALS || c.getKind() == SqlKind.IS_NOT_DISTINCT_FROM)) {
        RexNode a = call.getOperands().get(0);
        RexNode b = call.getOperands().get(1);
        ImmutableBitSet fa = RelOptUtil.InputFinder.bits(a);
        ImmutableBitSet fb = RelOptUtil.InputFinder.bits(b);
        ImmutableBitSet probeSide = ImmutableBitSet.range(0, nProbe);
        ImmutableBitSet buildSide = ImmutableBitSet.range(nProbe, nProbe + build.fields().size());
        RexNode p = null;
        RexNode q = null;
        if (!fa.isEmpty() && !fb.isEmpty() && probeSide.contains(fa) && buildSide.contains(fb)) {
          p = a;
          q = b;
        } else if (!fa.isEmpty() && !fb.isEmpty() && probeSide.contains(fb) && buildSide.contains(fa)) {
          p = b;
          q = a;
        }
        if (p != null) {
          Expr pe = rex(probe).convert(p);
          Expr qe = rex(build).convert(RexUtil.shift(q, -nProbe));
          SqlType common = RexToExpr.common(pe.type(), qe.type());
          probeKeys.add(RexToExpr.cast(pe, common));
          buildKeys.add(RexToExpr.cast(qe, common));
          nullSafe.add(c.getKind() == SqlKind.IS_NOT_DISTINCT_FROM);
          continue;
        }
      }
      if (!c.isAlwaysTrue()) {
        residual.add(c);
      }
    }
    HashJoinOperator.Type physical = switch (type) {
      case INNER -> HashJoinOperator.Type.INNER;
      case LEFT, RIGHT -> HashJoinOperator.Type.LEFT;
      case FULL -> HashJoinOperator.Type.FULL;
      case SEMI -> buildKept ? HashJoinOperator.Type.RIGHT_SEMI : HashJoinOperator.Type.SEMI;
      case ANTI -> buildKept ? HashJoinOperator.Type.RIGHT_ANTI : HashJoinOperator.Type.ANTI;
      default -> throw RexToExpr.unsupported(type + " JOIN");
    };
    boolean full = physical == HashJoinOperator.Type.FULL;
    boolean outer = physical == HashJoinOperator.Type.LEFT || full;
    List<Field> combinedFields = new ArrayList<>();
    List<SqlType> combinedTypes = new ArrayList<>();
    for (int i = 0; i < nProbe; i++) {
      SqlType t = probe.types().get(i);
      Field f = probe.fields().get(i);
      if (full && t != null) {
        // The build rows no probe row joined come with NULL probe columns.
        t = t.withNullable(true);
        combinedFields.add(field(probe.names().get(i), t));
      } else if (full) {
        combinedFields.add(new Field(f.getName(), FieldType.nullable(f.getType()), f.getChildren()));
      } else {
        combinedFields.add(f);
      }
      combinedTypes.add(t);
    }
    for (int i = 0; i < build.fields().size(); i++) {
      SqlType t = build.types().get(i);
      Field f = build.fields().get(i);
      if (t == null) {
        // A struct or list column, copied value by value; NULL where an outer join fills the side.
        combinedFields.add(outer ? new Field(f.getName(), FieldType.nullable(f.getType()), f.getChildren()) : f);
        combinedTypes.add(null);
        continue;
      }
      t = outer ? t.withNullable(true) : t;
      combinedFields.add(field(build.names().get(i), t));
      combinedTypes.add(t);
    }
    Expr residualExpr = residual.isEmpty() ? null : new RexToExpr(rexBuilder, combinedTypes,
        combinedFields.stream().map(Field::getName).toList(), parameters)
        .convert(RexUtil.composeConjunction(rexBuilder, residual));
    Schema combined = new Schema(combinedFields);
    boolean[] safe = new boolean[nullSafe.size()];
    for (int i = 0; i < safe.length; i++) {
      safe[i] = nullSafe.get(i);
    }
    JoinSpec spec = new JoinSpec(physical, probeKeys, buildKeys, safe, residualExpr, probe.types(),
        build.types(), combined);
    // The build side runs on the workers when it is a pipeline; its table is then probed by one
    // copy of the probe side per morsel when the probe side is a pipeline too (and the consumer,
    // a parallel aggregate, runs it so), else by this join's own operator.
    boolean parallelBuild = threads > 1 && build.pipeline() != null;
    int workers = threads;
    Function<BufferAllocator, JoinTable> buildTable = parallelBuild
        ? a -> {
          try (Morsels morsels = build.pipeline().start().apply(a)) {
            return JoinTable.build(morsels, spec, workers, a);
          }
        }
        : a -> {
          try (Operator input = build.open().apply(a)) {
            return JoinTable.build(input, spec, workers, a);
          }
        };
    String label = "HashJoin " + type + (swap ? " (build left)" : "") + " keys=" + probeKeys.size()
        + (residualExpr == null ? "" : " residual") + " on " + join.getCondition()
        + (parallelBuild ? " build=parallel threads=" + threads : "");
    if (full) {
      // One operator sees every probe row, then returns the build rows none joined.
      Node streamed = gather(probe);
      Node joined = new Node(combinedFields, combinedTypes,
          a -> new HashJoinOperator(streamed.open().apply(a), () -> buildTable.apply(a), true, spec, a),
          () -> label, List.of(streamed, build), null);
      return swap ? reorder(joined, nLeft, right.fields().size()) : joined;
    }
    if (buildKept) {
      // The probe side's batches all reach one operator (through a Gather when it is a pipeline),
      // which then returns the kept build rows: the left rows, in their order.
      Node streamed = gather(probe);
      return new Node(build.fields(), build.types(),
          a -> new HashJoinOperator(streamed.open().apply(a), () -> buildTable.apply(a), true, spec, a),
          () -> label, List.of(streamed, build), null);
    }
    boolean semi = physical == HashJoinOperator.Type.SEMI || physical == HashJoinOperator.Type.ANTI;
    Node joined = new Node(semi ? probe.fields() : combinedFields, semi ? probe.types() : combinedTypes,
        a -> new HashJoinOperator(probe.open().apply(a), () -> buildTable.apply(a), true, spec, a),
        () -> label, List.of(probe, build),
        probe.pipeline() == null ? null : probe.pipeline().probing(buildTable, spec));
    if (!swap) {
      return joined;
    }
    return reorder(joined, nLeft, right.fields().size());
  }

  /** A join's output, right-then-left columns, back in left-then-right column order. */
  private static Node reorder(Node joined, int nLeft, int nRight) {
    List<Field> combinedFields = joined.fields();
    List<SqlType> combinedTypes = joined.types();
    List<Expr> exprs = new ArrayList<>();
    List<Field> fields = new ArrayList<>();
    List<SqlType> types = new ArrayList<>();
    for (int i = 0; i < nLeft + nRight; i++) {
      int from = i < nLeft ? nRight + i : i - nLeft;
      SqlType t = combinedTypes.get(from);
      exprs.add(new Expr.Column(from, combinedFields.get(from).getName(), t));
      fields.add(combinedFields.get(from));
      types.add(t);
    }
    return project(joined, exprs, fields, types, "Reorder columns");
  }

  /** Whether any of {@code node}'s columns is a struct or list the engine only passes through. */
  private static boolean nested(Node node) {
    return node.types().stream().anyMatch(java.util.Objects::isNull);
  }

  private double rows(RelNode rel) {
    return cardinality.rows(rel);
  }

  /** Whether the join's condition has a conjunct {@code left expression = right expression}. */
  private static boolean hasEquiKey(Join join, int nLeft) {
    ImmutableBitSet leftSide = ImmutableBitSet.range(0, nLeft);
    for (RexNode c : RelOptUtil.conjunctions(join.getCondition())) {
      if (c instanceof RexCall call && (c.getKind() == SqlKind.EQUALS || c.getKind() == SqlKind.IS_NOT_DISTINCT_FROM)) {
        ImmutableBitSet a = RelOptUtil.InputFinder.bits(call.getOperands().get(0));
        ImmutableBitSet b = RelOptUtil.InputFinder.bits(call.getOperands().get(1));
        boolean aLeft = !a.isEmpty() && leftSide.contains(a);
        boolean bLeft = !b.isEmpty() && leftSide.contains(b);
        boolean aRight = !a.isEmpty() && a.nextSetBit(0) >= nLeft;
        boolean bRight = !b.isEmpty() && b.nextSetBit(0) >= nLeft;
        if ((aLeft && bRight) || (bLeft && aRight)) {
          return true;
        }
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- unnest

  /**
   * The {@code UNNEST} a lateral join of the form {@code FROM t, UNNEST(<lists of t>)} reads: the
   * right side is an Uncollect of one row of expressions over the left row; null for any other
   * correlation.
   */
  private static org.apache.calcite.rel.core.Uncollect unnestOf(org.apache.calcite.rel.core.Correlate c) {
    RelNode right = c.getRight();
    if (right instanceof Filter f && c.getJoinType() == JoinRelType.INNER) {
      right = f.getInput();
    }
    if (right instanceof Project p && p.getInput() instanceof org.apache.calcite.rel.core.Uncollect
        && columnRefs(p) != null && columnRefs(p).equals(java.util.stream.IntStream.range(0,
            p.getInput().getRowType().getFieldCount()).boxed().toList())) {
      right = p.getInput();
    }
    if (!(right instanceof org.apache.calcite.rel.core.Uncollect u)
        || !(u.getInput() instanceof Project lists) || !(lists.getInput() instanceof Values one)
        || one.getTuples().size() != 1
        || c.getJoinType() != JoinRelType.INNER && c.getJoinType() != JoinRelType.LEFT) {
      return null;
    }
    return u;
  }

  /** {@code FROM t, UNNEST(t.a [, t.b ...]) [WITH ORDINALITY]}: t's rows repeated per element. */
  private Node unnest(org.apache.calcite.rel.core.Correlate correlate) {
    org.apache.calcite.rel.core.Uncollect u = unnestOf(correlate);
    Node in = translate(correlate.getLeft());
    RexToExpr rex = rex(in);
    org.apache.calcite.rel.core.CorrelationId id = correlate.getCorrelationId();
    RexShuttle toInput = new RexShuttle() {
      @Override
      public RexNode visitFieldAccess(org.apache.calcite.rex.RexFieldAccess access) {
        if (access.getReferenceExpr() instanceof org.apache.calcite.rex.RexCorrelVariable v && v.id.equals(id)) {
          return new RexInputRef(access.getField().getIndex(), access.getType());
        }
        return super.visitFieldAccess(access);
      }
    };
    List<Expr> lists = new ArrayList<>();
    for (RexNode e : ((Project) u.getInput()).getProjects()) {
      RexNode list = e.accept(toInput);
      if (!RexToExpr.isScalarList(list.getType())) {
        throw RexToExpr.unsupported("UNNEST of " + RexToExpr.describe(list.getType())
            + " (only lists of scalars are unnested)");
      }
      lists.add(rex.listValue(list));
    }
    Node unnested = unnest(in, lists, u.withOrdinality, correlate.getJoinType() == JoinRelType.LEFT,
        correlate.getRowType().getFieldNames());
    if (!(correlate.getRight() instanceof Filter f)) {
      return unnested;
    }
    // A filter of the unnested rows (WHERE x = ...), pushed into the lateral side by the planner.
    RexNode condition = RexUtil.shift(f.getCondition(), in.fields().size()).accept(toInput);
    Expr predicate = rex(unnested).convert(condition);
    return new Node(unnested.fields(), unnested.types(),
        a -> new FilterOperator(unnested.open().apply(a), predicate),
        () -> "Filter " + condition, List.of(unnested),
        unnested.pipeline() == null ? null : unnested.pipeline().then((op, a) -> new FilterOperator(op, predicate)));
  }

  /** {@code SELECT * FROM UNNEST(<constant lists>)}: the lists' elements alone. */
  private Node uncollect(org.apache.calcite.rel.core.Uncollect u) {
    Node in = translate(u.getInput());
    List<Expr> lists = new ArrayList<>();
    List<String> names = new ArrayList<>(in.names());
    for (int i = 0; i < in.fields().size(); i++) {
      RelDataType t = u.getInput().getRowType().getFieldList().get(i).getType();
      if (!RexToExpr.isScalarList(t)) {
        throw RexToExpr.unsupported("UNNEST of " + RexToExpr.describe(t) + " (only lists of scalars are unnested)");
      }
      lists.add(new Expr.Nested(i, in.names().get(i), List.of(), Expr.Reach.VALUE, RelTypes.toLake(t).withNullable(true)));
    }
    names.addAll(u.getRowType().getFieldNames());
    Node all = unnest(in, lists, u.withOrdinality, false, names);
    int width = in.fields().size();
    List<Expr> exprs = new ArrayList<>();
    for (int i = width; i < all.fields().size(); i++) {
      exprs.add(new Expr.Column(i, all.names().get(i), all.types().get(i)));
    }
    return project(all, exprs, all.fields().subList(width, all.fields().size()),
        all.types().subList(width, all.types().size()), "Project (the elements)");
  }

  /**
   * {@code in}'s rows repeated per element of {@code lists} (zipped), the elements (and with
   * {@code ordinality} their position) as columns after {@code in}'s, named {@code names}.
   */
  private static Node unnest(Node in, List<Expr> lists, boolean ordinality, boolean outer, List<String> names) {
    List<Field> fields = new ArrayList<>(in.fields());
    List<SqlType> types = new ArrayList<>(in.types());
    List<SqlType> elements = new ArrayList<>();
    for (Expr x : lists) {
      SqlType element = x.type().element().withNullable(true);
      elements.add(element);
      fields.add(field(names.get(fields.size()), element));
      types.add(element);
    }
    if (ordinality) {
      SqlType ordinal = SqlType.of(SqlType.Kind.INT32, outer);
      fields.add(field(names.get(fields.size()), ordinal));
      types.add(ordinal);
    }
    Schema schema = new Schema(fields);
    java.util.function.BiFunction<Operator, BufferAllocator, Operator> stage = (op, a) ->
        new dev.lake.exec.op.UnnestOperator(op, schema, Kernel.compileShared(lists), elements, ordinality,
            outer, a);
    return new Node(fields, types, a -> stage.apply(in.open().apply(a), a),
        () -> "Unnest " + lists.stream().map(x -> x instanceof Expr.Nested n ? n.describe() : "list").toList()
            + (ordinality ? " with ordinality" : "") + (outer ? " (left)" : ""), List.of(in),
        in.pipeline() == null ? null : in.pipeline().then(stage));
  }

  // ---------------------------------------------------------------- sort, union, values

  /**
   * {@code in} for a consumer on one thread (a sort, a serial aggregate, the query's result): when
   * it is a pipeline, its morsels run on the workers and reach the consumer in morsel order.
   */
  Node gather(Node in) {
    if (threads <= 1 || in.pipeline() == null) {
      return in;
    }
    int workers = threads;
    return new Node(in.fields(), in.types(),
        a -> new GatherOperator(() -> in.pipeline().start().apply(a), workers, a),
        () -> "Gather (pipeline on " + workers + " workers, in morsel order)", List.of(in), null);
  }

  private Node sort(Sort sort) {
    long offset = sort.offset == null ? 0 : constant(sort.offset, "OFFSET", 0);
    long fetch = sort.fetch == null ? Long.MAX_VALUE : constant(sort.fetch, "LIMIT", Long.MAX_VALUE);
    Node input = limitedScan(sort, offset, fetch);
    Node topK = topK(sort, input);
    if (topK != null) {
      return topK;
    }
    Node in = gather(input);
    List<SortOperator.Key> keys = new ArrayList<>();
    for (RelFieldCollation c : sort.getCollation().getFieldCollations()) {
      boolean descending = c.getDirection().isDescending();
      boolean nullsFirst = switch (c.nullDirection) {
        case FIRST -> true;
        case LAST -> false;
        default -> descending;
      };
      if (in.types().get(c.getFieldIndex()) == null) {
        throw RexToExpr.wholeValue("ORDER BY " + in.names().get(c.getFieldIndex()),
            sort.getInput().getRowType().getFieldList().get(c.getFieldIndex()).getType());
      }
      keys.add(new SortOperator.Key(c.getFieldIndex(), descending, nullsFirst));
    }
    Schema schema = in.schema();
    long needed = fetch == Long.MAX_VALUE ? Long.MAX_VALUE : saturatedAdd(offset, fetch);
    return new Node(in.fields(), in.types(), a -> {
      Operator op = in.open().apply(a);
      if (!keys.isEmpty()) {
        op = new SortOperator(op, schema, keys, needed, a);
      }
      if (offset > 0 || fetch != Long.MAX_VALUE) {
        op = new LimitOperator(op, offset, fetch);
      }
      return op;
    }, "Sort " + sort.getCollation() + (fetch == Long.MAX_VALUE ? "" : " limit " + fetch)
        + (offset == 0 ? "" : " offset " + offset), List.of(in));
  }

  /**
   * The input of {@code sort}; when it is an unordered LIMIT straight over a table's columns (no
   * filter, no aggregate), a scan told how many rows are needed, so it reads no more units.
   */
  private Node limitedScan(Sort sort, long offset, long fetch) {
    RelNode input = sort.getInput();
    if (!sort.getCollation().getFieldCollations().isEmpty() || fetch == Long.MAX_VALUE) {
      return translate(input);
    }
    OptionalLong hint = OptionalLong.of(saturatedAdd(offset, fetch));
    if (input instanceof TableScan scan) {
      return scan(scan, null, null, hint);
    }
    List<Integer> refs = input instanceof Project project ? columnRefs(project) : null;
    if (refs != null && ((Project) input).getInput() instanceof TableScan scan
        && refs.stream().distinct().count() == refs.size()) {
      return rename(scan(scan, refs, null, hint), input.getRowType().getFieldNames());
    }
    return translate(input);
  }

  /** {@code a + b} for non-negative counts, saturating at {@link Long#MAX_VALUE}. */
  static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  /**
   * {@code ORDER BY keys LIMIT k [OFFSET m]} as a top-k: each morsel keeps its first {@code m + k}
   * rows ({@link dev.lake.exec.op.TopKOperator}) on the workers, and one more top-k merges them;
   * null when there is no limit, no key, or the keys are not all scalar columns.
   */
  private Node topK(Sort sort, Node input) {
    if (sort.fetch == null || sort.getCollation().getFieldCollations().isEmpty()) {
      return null;
    }
    long offset = sort.offset == null ? 0 : constant(sort.offset, "OFFSET", 0);
    long fetch = constant(sort.fetch, "LIMIT", Long.MAX_VALUE);
    long needed = saturatedAdd(offset, fetch);
    if (fetch == Long.MAX_VALUE || needed > Integer.MAX_VALUE / 4 || fetch == 0) {
      return null;
    }
    List<SortOperator.Key> keys = new ArrayList<>();
    for (RelFieldCollation c : sort.getCollation().getFieldCollations()) {
      if (input.types().get(c.getFieldIndex()) == null) {
        return null;
      }
      boolean descending = c.getDirection().isDescending();
      boolean nullsFirst = switch (c.nullDirection) {
        case FIRST -> true;
        case LAST -> false;
        default -> descending;
      };
      keys.add(new SortOperator.Key(c.getFieldIndex(), descending, nullsFirst));
    }
    Schema schema = input.schema();
    String what = "TopK " + sort.getCollation();
    Node in = input;
    if (threads > 1 && input.pipeline() != null) {
      in = gather(new Node(input.fields(), input.types(),
          a -> new dev.lake.exec.op.TopKOperator(input.open().apply(a), schema, keys, needed, a),
          () -> what + " keep " + needed + " (per morsel)", List.of(input),
          input.pipeline().then((op, a) -> new dev.lake.exec.op.TopKOperator(op, schema, keys, needed, a))));
    }
    Node merged = in;
    return new Node(in.fields(), in.types(), a -> {
      Operator op = new dev.lake.exec.op.TopKOperator(merged.open().apply(a), schema, keys, needed, a);
      return offset > 0 || fetch != needed ? new LimitOperator(op, offset, fetch) : op;
    }, what + " limit " + fetch + (offset == 0 ? "" : " offset " + offset), List.of(in));
  }

  /** A LIMIT or OFFSET: a literal, or a bound parameter (NULL meaning {@code whenNull}, as in PostgreSQL). */
  private long constant(RexNode node, String clause, long whenNull) {
    if (node instanceof org.apache.calcite.rex.RexDynamicParam param) {
      Object value = RexToExpr.parameter(parameters, param).value();
      if (value == null) {
        return whenNull;
      }
      long n = ((Number) value).longValue();
      if (n < 0) {
        throw new SqlException(SqlException.Kind.INVALID, "parameter " + (param.getIndex() + 1)
            + " (" + clause + ") must not be negative, not " + n);
      }
      return n;
    }
    if (node instanceof RexLiteral literal) {
      return literal.getValueAs(java.math.BigDecimal.class).longValueExact();
    }
    throw RexToExpr.unsupported("LIMIT or OFFSET that is not a constant");
  }

  private Node union(Union union) {
    List<Node> inputs = new ArrayList<>();
    List<String> names = union.getRowType().getFieldNames();
    List<SqlType> types = null;
    List<Node> translated = union.getInputs().stream().map(this::translate).toList();
    for (Node in : translated) {
      if (types == null) {
        types = new ArrayList<>(in.types());
      } else {
        for (int i = 0; i < types.size(); i++) {
          if (types.get(i) == null && in.types().get(i) == null) {
            nestedUnionField(names.get(i), translated, i);
            continue;
          }
          types.set(i, unionType(types.get(i), in.types().get(i)));
        }
      }
    }
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      fields.add(types.get(i) == null ? nestedUnionField(names.get(i), translated, i)
          : field(names.get(i), types.get(i)));
    }
    for (Node in : translated) {
      List<Expr> exprs = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        exprs.add(types.get(i) == null ? new Expr.Column(i, in.names().get(i), RexToExpr.PASS_THROUGH)
            : RexToExpr.cast(new Expr.Column(i, in.names().get(i), in.types().get(i)), types.get(i)));
      }
      inputs.add(project(in, exprs, fields, types, "Project (union column types)"));
    }
    List<SqlType> finalTypes = types;
    Node all = new Node(fields, finalTypes, a -> {
      List<Operator> ops = new ArrayList<>();
      try {
        for (Node in : inputs) {
          ops.add(in.open().apply(a));
        }
      } catch (RuntimeException e) {
        ops.forEach(Operator::close);
        throw e;
      }
      return new UnionAllOperator(ops);
    }, "UnionAll", inputs);
    if (union.all) {
      return all;
    }
    List<Expr> keys = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      if (finalTypes.get(i) == null) {
        throw RexToExpr.wholeValue("UNION (distinct) of column " + names.get(i),
            union.getRowType().getFieldList().get(i).getType());
      }
      keys.add(new Expr.Column(i, names.get(i), finalTypes.get(i)));
    }
    Schema schema = new Schema(fields);
    return new Node(fields, finalTypes, a -> new HashAggregateOperator(all.open().apply(a), schema, keys, List.of(), a),
        "HashAggregate (UNION distinct)", List.of(all));
  }

  /**
   * INTERSECT and EXCEPT as a count per distinct row ({@link SetOperations}); the ALL forms then
   * repeat each row as often as its count says.
   */
  private Node setOperation(org.apache.calcite.rel.core.SetOp op) {
    String what = (op instanceof org.apache.calcite.rel.core.Intersect ? "INTERSECT" : "EXCEPT") + (op.all ? " ALL" : "");
    for (org.apache.calcite.rel.type.RelDataTypeField f : op.getRowType().getFieldList()) {
      if (RexToExpr.isNested(f.getType())) {
        throw RexToExpr.wholeValue(what + " of column " + f.getName(), f.getType());
      }
    }
    Node counted = translate(SetOperations.counted(op));
    if (!op.all) {
      return counted;
    }
    int k = counted.fields().size() - 1;
    List<Field> fields = counted.fields().subList(0, k);
    List<SqlType> types = counted.types().subList(0, k);
    Schema schema = new Schema(fields);
    Node in = gather(counted);
    return new Node(fields, types, a -> new dev.lake.exec.op.RepeatRowsOperator(in.open().apply(a), schema, a),
        (op instanceof org.apache.calcite.rel.core.Intersect ? "INTERSECT" : "EXCEPT")
            + " ALL (each row repeated by its count)", List.of(in));
  }

  /**
   * The field of a struct or list column {@code i} of a union: the inputs' common Arrow type
   * (nullable), which must be the same in every input since the engine only passes it through.
   */
  private static Field nestedUnionField(String name, List<Node> inputs, int i) {
    Field first = inputs.getFirst().fields().get(i);
    for (Node in : inputs) {
      Field f = in.fields().get(i);
      if (!new Field("", FieldType.nullable(f.getType()), f.getChildren())
          .equals(new Field("", FieldType.nullable(first.getType()), first.getChildren()))) {
        throw new SqlException(SqlException.Kind.UNSUPPORTED, "UNION column " + (i + 1) + " (" + name
            + ") is a struct or list of different types in its inputs: " + first + " and " + f);
      }
    }
    return new Field(name, FieldType.nullable(first.getType()), first.getChildren());
  }

  private static SqlType unionType(SqlType a, SqlType b) {
    if (a == null || b == null) {
      throw RexToExpr.unsupported("UNION of nested-type columns");
    }
    SqlType t = a.kind() == b.kind() && a.kind() != SqlType.Kind.DECIMAL ? a : RexToExpr.common(a, b);
    return t.withNullable(a.nullable() || b.nullable());
  }

  private Node values(Values values) {
    List<String> names = values.getRowType().getFieldNames();
    List<SqlType> types = values.getRowType().getFieldList().stream()
        .map(f -> RelTypes.toLake(f.getType())).toList();
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      fields.add(field(names.get(i), types.get(i)));
    }
    List<List<Object>> rows = new ArrayList<>();
    for (List<RexLiteral> tuple : values.getTuples()) {
      List<Object> row = new ArrayList<>();
      for (int i = 0; i < tuple.size(); i++) {
        row.add(RexToExpr.literal(tuple.get(i), types.get(i)).value());
      }
      rows.add(row);
    }
    Schema schema = new Schema(fields);
    return new Node(fields, types, a -> new ValuesOperator(schema, types, rows, a),
        "Values rows=" + rows.size(), List.of());
  }
}
