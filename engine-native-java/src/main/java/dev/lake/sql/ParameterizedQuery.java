package dev.lake.sql;

import dev.lake.engine.Version;
import dev.lake.exec.QueryControl;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;

/**
 * A query with dynamic parameters, validated and optimised once by Calcite with the parameters
 * still open (the logical plan holds {@code RexDynamicParam}s), and made into a physical plan per
 * set of bound values: {@link #bind} turns each parameter into a typed literal while it
 * translates, so the scan's pushed predicate, block pruning and LIMIT see constants, and a
 * re-execution with new values pays the translation (microseconds) but not Calcite's parse,
 * validation and rewriting (milliseconds). Kept in the {@link PlanCache} like any plan.
 *
 * <p>Immutable and thread-safe. Without values it reports its result and parameter schemas and
 * explains its plan as if every parameter were NULL; {@link #execute} refuses to run it.
 */
final class ParameterizedQuery implements PreparedQuery {

  private final RelNode rel;
  private final List<String> names;
  private final Map<TableName, Version> pins;
  private final List<SqlType> types;
  private final Set<Integer> versions;
  private final int threads;
  private final Execution execution;
  private final Schema parameterSchema;
  private final RelPreparedQuery unbound;
  private final List<java.util.Optional<ColumnOrigin>> origins;

  /**
   * @param parameterTypes the validated type of each {@code ?} the plan holds, by 0-based index
   * @param versions the indices of the {@code ?} of {@code FOR VERSION AS OF ?}, which the plan
   *     does not hold (the statement is planned again with the bound versions)
   * @throws SqlException INVALID if a parameter is typed as something lake cannot bind
   */
  ParameterizedQuery(RelPlanner.Planned planned, Map<Integer, RelDataType> parameterTypes,
      Set<Integer> versions, int threads, Execution execution) {
    this.rel = planned.rel();
    this.names = planned.names();
    this.versions = Set.copyOf(versions);
    this.threads = threads;
    this.execution = execution;
    Map<TableName, Version> read = new LinkedHashMap<>();
    planned.tables().values().forEach(t -> read.put(t.name, t.version));
    this.pins = Map.copyOf(read);
    int count = 0;
    for (int index : parameterTypes.keySet()) {
      count = Math.max(count, index + 1);
    }
    for (int index : versions) {
      count = Math.max(count, index + 1);
    }
    List<SqlType> list = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      RelDataType type = parameterTypes.get(i);
      if (versions.contains(i)) {
        list.add(SqlType.of(SqlType.Kind.INT64, true));
      } else if (type == null) {
        throw new SqlException(SqlException.Kind.INVALID, "parameter " + (i + 1)
            + " is in a place whose type cannot be known");
      } else {
        try {
          list.add(RelTypes.toLake(type).withNullable(true));
        } catch (SqlException e) {
          throw new SqlException(SqlException.Kind.INVALID, "parameter " + (i + 1) + " would be of type "
              + type.getFullTypeString() + ", which cannot be bound; cast it (CAST(? AS INTEGER))");
        }
      }
    }
    this.types = List.copyOf(list);
    this.parameterSchema = Parameters.schema(types);
    List<Expr.Literal> nulls = new ArrayList<>();
    for (SqlType t : types) {
      nulls.add(new Expr.Literal(null, t));
    }
    this.origins = ColumnOrigin.of(rel);
    this.unbound = translate(nulls);
  }

  /** The types of the parameters, in order. */
  List<SqlType> types() {
    return types;
  }

  /** Whether a parameter is the version of a {@code FOR VERSION AS OF ?}. */
  boolean bindsVersions() {
    return !versions.isEmpty();
  }

  /**
   * The physical plan with {@code values} bound, ready to execute any number of times.
   *
   * @throws SqlException INVALID if the count of values or a value's type does not fit
   */
  PreparedQuery bind(List<?> values) {
    List<Expr.Literal> converted = Parameters.convert(types, values);
    return ClockedQuery.readsClock(rel) ? new ClockedQuery(() -> translate(converted)) : translate(converted);
  }

  // The logical plan and its cluster's metadata caches are shared; one translation at a time.
  private synchronized RelPreparedQuery translate(List<Expr.Literal> values) {
    RelTranslator translator = new RelTranslator(rel.getCluster().getRexBuilder(),
        RelMetadataQuery.instance(), threads, values);
    RelTranslator.Node plan = translator.gather(translator.translate(rel));
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < plan.fields().size(); i++) {
      Field f = plan.fields().get(i);
      fields.add(new Field(names.get(i), f.getFieldType(), f.getChildren()));
    }
    return new RelPreparedQuery(plan, new Schema(fields), pins, execution, origins);
  }

  @Override
  public List<java.util.Optional<ColumnOrigin>> origins() {
    return origins;
  }

  @Override
  public Schema schema() {
    return unbound.schema();
  }

  @Override
  public Schema parameterSchema() {
    return parameterSchema;
  }

  @Override
  public Map<TableName, Version> pins() {
    return pins;
  }

  /** @throws SqlException INVALID always: the statement needs its values ({@link SqlEngine#prepare(String, Map, List)}) */
  @Override
  public ArrowReader execute(BufferAllocator allocator, QueryControl control) {
    throw new SqlException(SqlException.Kind.INVALID, "the statement has " + types.size()
        + (types.size() == 1 ? " parameter" : " parameters") + " and no values were bound");
  }

  @Override
  public List<String> explain() {
    return unbound.explain();
  }
}
