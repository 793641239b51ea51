package dev.lake.sql;

import dev.lake.engine.Version;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.calcite.config.CalciteConnectionConfigImpl;
import org.apache.calcite.config.CalciteConnectionProperty;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSnapshot;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql2rel.RelDecorrelator;
import org.apache.calcite.sql2rel.RelFieldTrimmer;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.apache.calcite.tools.RelBuilder;

/**
 * Plans every query (single-table ones, joins, subqueries, set operations, derived tables,
 * WITH): Calcite validates and converts the parse tree into a logical
 * {@link RelNode} tree, removes subqueries, decorrelates, pushes filters and projections down and
 * orders joins by estimated size. The physical operators are lake's ({@link RelTranslator}).
 */
final class RelPlanner {

  private static final SqlValidator.Config VALIDATOR_CONFIG = SqlValidator.Config.DEFAULT
      .withIdentifierExpansion(true)
      .withTypeCoercionFactory(LakeTypeCoercion::new)
      .withConformance(SqlConformanceEnum.LENIENT);

  /** A logical plan and the tables (at their pinned snapshots) it reads. */
  record Planned(RelNode rel, List<String> names, Map<String, CalciteTables.LakeTable> tables) {}

  private final SqlCatalog catalog;
  private final Map<TableName, Version> pins;

  private Map<Integer, org.apache.calcite.rel.type.RelDataType> parameterTypes = Map.of();

  /** The validated type of each {@code ?} of the statement {@link #plan} planned, by 0-based index. */
  Map<Integer, org.apache.calcite.rel.type.RelDataType> parameterTypes() {
    return parameterTypes;
  }

  RelPlanner(SqlCatalog catalog, Map<TableName, Version> pins) {
    this.catalog = catalog;
    this.pins = pins;
  }

  /**
   * @throws SqlException INVALID / TABLE_NOT_FOUND / VERSION_NOT_FOUND with positions when the
   *     statement does not validate; UNSUPPORTED for statements that are not queries
   */
  Planned plan(SqlNode statement) {
    SqlKind kind = statement.getKind();
    if (!SqlKind.QUERY.contains(kind)) {
      throw SqlParsing.unsupported(kind.sql, statement);
    }
    Validation v = validate(rewriteVersions(statement));
    RelRoot relRoot = convert(v, v.validated());
    RelNode rel = optimise(relRoot.project(), v);
    List<String> names = OutputNames.of(v.validated(), relRoot.fields.stream().map(f -> outputName(f.getValue())).toList());
    return new Planned(rel, names, v.tables().opened());
  }

  /**
   * An INSERT validated as Calcite validates one (target columns exist, counts match, each value
   * assignable to its column, NOT NULL columns given) with its source planned as a query whose
   * columns are the listed target columns in order, already cast to their types.
   *
   * @param source the source's plan, or null when the source is a VALUES made of parameters only
   *     ({@code VALUES (?, ?)}), which is not planned: the bound values are the rows
   * @param parameterTypes the types of the statement's {@code ?}, in order
   */
  record PlannedInsert(List<String> columns, Planned source, List<RelDataTypeField> parameterTypes) {}

  /**
   * @throws SqlException as {@link #plan}; INVALID naming the column for a count or type that
   *     does not fit the target
   */
  PlannedInsert planInsert(org.apache.calcite.sql.SqlInsert insert, List<String> tableColumns,
      boolean parametersOnly) {
    Validation v = validate(rewriteVersions(insert));
    org.apache.calcite.sql.SqlInsert validated = (org.apache.calcite.sql.SqlInsert) v.validated();
    List<String> columns = validated.getTargetColumnList() == null
        ? tableColumns
        : validated.getTargetColumnList().stream()
            .map(c -> ((SqlIdentifier) c).names.getLast()).toList();
    List<RelDataTypeField> parameters = v.validator().getParameterRowType(validated).getFieldList();
    if (parametersOnly) {
      return new PlannedInsert(columns, null, parameters);
    }
    RelRoot relRoot = convert(v, validated);
    RelNode modify = relRoot.rel;
    while (!(modify instanceof org.apache.calcite.rel.core.TableModify) && modify.getInputs().size() == 1) {
      modify = modify.getInput(0);
    }
    RelNode input = modify.getInput(0);
    // The converter filled unlisted columns with NULLs; the caller fills them itself (a NULL of
    // a struct or list type is not a value the operators compute).
    List<Integer> listed = new java.util.ArrayList<>();
    for (String column : columns) {
      listed.add(tableColumns.indexOf(column));
    }
    RelBuilder builder = RelFactories.LOGICAL_BUILDER.create(input.getCluster(), v.reader());
    RelNode projected = builder.push(input)
        .project(listed.stream().map(builder::field).toList(), columns, true).build();
    RelNode rel = optimise(projected, v);
    return new PlannedInsert(columns, new Planned(rel, columns, v.tables().opened()), parameters);
  }

  private record Validation(CalciteTables tables, CalciteCatalogReader reader,
      SqlValidator validator, SqlNode validated) {}

  private Validation validate(SqlNode statement) {
    SqlNode query = ParameterTyping.rewrite(FunctionSyntax.rewrite(SelectListUnnest.rewrite(statement)));
    Windows.checkFrames(query);
    CalciteTables tables = new CalciteTables(catalog, pins);
    tables.versionsAt(query);
    JavaTypeFactoryImpl typeFactory = new JavaTypeFactoryImpl(RelTypes.TYPE_SYSTEM) {
      // Character literals hold any Unicode text (Calcite's default, ISO-8859-1, refuses '日本').
      @Override
      public java.nio.charset.Charset getDefaultCharset() {
        return java.nio.charset.StandardCharsets.UTF_8;
      }
    };
    CalciteSchema root = CalciteSchema.createRootSchema(false, false, "", tables.root());
    Properties props = new Properties();
    props.setProperty(CalciteConnectionProperty.CASE_SENSITIVE.camelName(), "true");
    CalciteCatalogReader reader = new CalciteCatalogReader(root, List.of(), typeFactory,
        new CalciteConnectionConfigImpl(props));
    SqlValidator validator = new LakeValidator(FunctionOperators.table(), reader,
        typeFactory, catalog, tables, VALIDATOR_CONFIG);
    query = ColumnQualification.apply(query, names -> {
      org.apache.calcite.prepare.Prepare.PreparingTable table = reader.getTable(names);
      return table == null ? null : table.getRowType();
    });
    SqlNode validated;
    try {
      validated = validator.validate(query);
    } catch (CalciteContextException e) {
      throw translate(e);
    } catch (RuntimeException e) {
      SqlException cause = findSqlException(e);
      if (cause != null) {
        throw cause;
      }
      storageFailure(e);
      throw new SqlException(SqlException.Kind.INVALID, String.valueOf(e.getMessage()), 0, 0, e);
    } catch (AssertionError e) {
      // Calcite's implicit coercion asserts on some mixes of types (an IN list of an INTEGER
      // column, a string and a date) instead of reporting them.
      throw new SqlException(SqlException.Kind.INVALID, "the statement mixes types that do not"
          + " convert to one another (such as numbers and dates in one IN list or CASE)", 0, 0, e);
    }
    parameterTypes = Parameters.types(validator, validated);
    return new Validation(tables, reader, validator, validated);
  }

  private static RelRoot convert(Validation v, SqlNode validated) {
    HepPlanner hep = new HepPlanner(NO_RULES);
    hep.setExecutor(ConstantFolding.EXECUTOR);
    RexBuilder rexBuilder = new LakeRexBuilder(v.validator().getTypeFactory());
    RelOptCluster cluster = RelOptCluster.create(hep, rexBuilder);
    SqlToRelConverter converter = new SqlToRelConverter(null, v.validator(), v.reader(), cluster,
        StandardConvertletTable.INSTANCE,
        SqlToRelConverter.config().withTrimUnusedFields(true).withExpand(false));
    try {
      return converter.convertQuery(validated, false, true);
    } catch (SqlException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new SqlException(SqlException.Kind.UNSUPPORTED,
          "cannot plan this statement: " + e.getMessage(), 0, 0, e);
    }
  }

  private static RelNode optimise(RelNode logical, Validation v) {
    RelNode rel = logical;
    RexBuilder rexBuilder = rel.getCluster().getRexBuilder();
    RelBuilder relBuilder = RelFactories.LOGICAL_BUILDER.create(rel.getCluster(), v.reader());
    SqlValidator validator = v.validator();
    if (hasWindow(rel)) {
      rel = Windows.toWindows(rel);
    }
    if (hasSubQuery(rel)) {
      rel = run(rel, SUB_QUERY_TO_CORRELATE);
      rel = ExistsJoins.rewrite(rel, rexBuilder);
    }
    if (hasCorrelate(rel)) {
      // Not free even when there is nothing to do: it rebuilds and re-registers the whole tree.
      rel = RelDecorrelator.decorrelateQuery(rel, relBuilder);
    }
    // One trimmer for both trims: it looks its trimFields methods up reflectively, once per instance.
    RelFieldTrimmer trimmer = new RelFieldTrimmer(validator, relBuilder);
    rel = trimmer.trim(rel);
    rel = pullFactors(rel, rexBuilder);
    rel = run(rel, PUSH_DOWN);
    RelNode pushed = rel;
    rel = GroupKeyReduction.apply(rel, rexBuilder);
    rel = JoinOrder.reorder(rel, relBuilder);
    if (rel != pushed) {
      // Both return their input itself when there is no join to change; the push-down ran to a
      // fixed point, so running it again on an unchanged plan would fire nothing.
      rel = run(rel, PUSH_DOWN);
    }
    rel = trimmer.trim(rel);
    rel = run(rel, MERGE_PROJECTS);
    return rel;
  }

  /**
   * Pulls conjuncts common to every branch of an OR out of it ({@code (a AND b) OR (a AND c)}
   * becomes {@code a AND (b OR c)}), so a join key repeated in each branch, as in TPC-H Q19,
   * becomes an equi-join condition instead of a cross product.
   */
  private static RelNode pullFactors(RelNode rel, RexBuilder rexBuilder) {
    return rel.accept(new org.apache.calcite.rel.RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        RelNode visited = super.visit(other);
        if (visited instanceof org.apache.calcite.rel.core.Filter filter) {
          org.apache.calcite.rex.RexNode pulled = OrFactors.deriveColumnFilters(rexBuilder,
              org.apache.calcite.rex.RexUtil.pullFactors(rexBuilder, filter.getCondition()));
          if (!pulled.equals(filter.getCondition())) {
            return filter.copy(filter.getTraitSet(), filter.getInput(), pulled);
          }
        }
        return visited;
      }
    });
  }

  /** Whether any node's expressions hold a subquery ({@code IN (SELECT ...)}, {@code EXISTS}, a scalar one). */
  private static boolean hasSubQuery(RelNode rel) {
    boolean[] found = {false};
    rel.accept(new org.apache.calcite.rex.RexShuttle() {
      @Override
      public org.apache.calcite.rex.RexNode visitSubQuery(org.apache.calcite.rex.RexSubQuery subQuery) {
        found[0] = true;
        return subQuery;
      }
    });
    return found[0] || rel.getInputs().stream().anyMatch(RelPlanner::hasSubQuery);
  }

  /** Whether any node defines a correlation variable (a correlate, or a node a subquery left). */
  private static boolean hasCorrelate(RelNode rel) {
    if (rel instanceof org.apache.calcite.rel.core.Correlate || !rel.getVariablesSet().isEmpty()) {
      return true;
    }
    for (RelNode input : rel.getInputs()) {
      if (hasCorrelate(input)) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasWindow(RelNode rel) {
    if (rel instanceof org.apache.calcite.rel.core.Window
        || (rel instanceof org.apache.calcite.rel.core.Project p
            && p.getProjects().stream().anyMatch(org.apache.calcite.rex.RexOver::containsOver))
        || (rel instanceof org.apache.calcite.rel.core.Filter f
            && org.apache.calcite.rex.RexOver.containsOver(f.getCondition()))) {
      return true;
    }
    return rel.getInputs().stream().anyMatch(RelPlanner::hasWindow);
  }

  // Hep programs are immutable (a planner keeps its own state of one), so each is built once.
  private static final HepProgram SUB_QUERY_TO_CORRELATE = HepProgram.builder()
      .addRuleInstance(CoreRules.FILTER_SUB_QUERY_TO_CORRELATE)
      .addRuleInstance(CoreRules.PROJECT_SUB_QUERY_TO_CORRELATE)
      .addRuleInstance(CoreRules.JOIN_SUB_QUERY_TO_CORRELATE)
      .build();

  /** Filter and projection push-down, run to a fixed point. */
  private static final HepProgram PUSH_DOWN = new HepProgramBuilder()
      .addRuleCollection(List.of(
          CoreRules.FILTER_INTO_JOIN,
          CoreRules.JOIN_CONDITION_PUSH,
          CoreRules.FILTER_PROJECT_TRANSPOSE,
          CoreRules.FILTER_AGGREGATE_TRANSPOSE,
          CoreRules.FILTER_MERGE,
          CoreRules.PROJECT_MERGE,
          CoreRules.PROJECT_REMOVE,
          CoreRules.JOIN_PUSH_EXPRESSIONS))
      .build();

  private static final HepProgram MERGE_PROJECTS = HepProgram.builder()
      .addRuleInstance(CoreRules.PROJECT_MERGE)
      .addRuleInstance(CoreRules.PROJECT_REMOVE)
      .build();

  /** The no-rule program of the cluster's planner (conversion only needs one to exist). */
  private static final HepProgram NO_RULES = HepProgram.builder().build();

  private static RelNode run(RelNode rel, HepProgram program) {
    HepPlanner planner = new HepPlanner(program);
    planner.addListener(PlanningControl.listener());
    planner.setRoot(rel);
    return planner.findBestExp();
  }

  /** Calcite names unnamed expressions {@code EXPR$i}; lake's convention is {@code expr$i}. */
  private static String outputName(String name) {
    return name.startsWith("EXPR$") ? "expr$" + name.substring(5) : name;
  }

  private static SqlException findSqlException(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SqlException s) {
        return s;
      }
    }
    return null;
  }

  /**
   * Rethrows what stopped the validator while it resolved a table as what it is, not as an
   * invalid statement: a storage failure (a damaged commit log or checkpoint, an unreadable
   * version), or the query's deadline or cancellation.
   */
  private static void storageFailure(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof dev.lake.engine.EngineException
          || c instanceof dev.lake.exec.QueryStoppedException) {
        throw Execution.failure(null, (RuntimeException) c);
      }
    }
  }

  private static SqlException translate(CalciteContextException e) {
    SqlException inner = findSqlException(e);
    if (inner != null) {
      return new SqlException(inner.kind(), inner.getMessage()
          + (e.getPosLine() > 0 ? " (line " + e.getPosLine() + ", column " + e.getPosColumn() + ")" : ""),
          e.getPosLine(), e.getPosColumn(), inner);
    }
    storageFailure(e);
    String message = e.getCause() != null && e.getCause().getMessage() != null
        ? e.getCause().getMessage() : e.getMessage();
    SqlException.Kind kind = SqlException.Kind.INVALID;
    String where = e.getPosLine() > 0
        ? " (line " + e.getPosLine() + ", column " + e.getPosColumn() + ")" : "";
    return new SqlException(kind, message + where, e.getPosLine(), e.getPosColumn(), e);
  }

  /**
   * Replaces each {@code t FOR SYSTEM_TIME AS OF n} (how the parser reads {@code FOR VERSION AS
   * OF n}) by the name {@code t@n}, aliased as {@code t}, which {@link CalciteTables} resolves.
   */
  private static SqlNode rewriteVersions(SqlNode node) {
    if (node instanceof SqlSnapshot snapshot) {
      SqlIdentifier id = versioned(snapshot);
      return new SqlBasicCall(SqlStdOperatorTable.AS,
          List.of(id, new SqlIdentifier(((SqlIdentifier) snapshot.getTableRef()).names.getLast(),
              SqlParserPos.ZERO)), snapshot.getParserPosition());
    }
    if (node instanceof SqlOrderBy ob) {
      return new SqlOrderBy(ob.getParserPosition(), rewriteVersions(ob.query),
          (SqlNodeList) rewriteVersions(ob.orderList), ob.offset, ob.fetch);
    }
    if (node instanceof SqlNodeList list) {
      for (int i = 0; i < list.size(); i++) {
        list.set(i, rewriteVersions(list.get(i)));
      }
      return list;
    }
    if (node instanceof SqlCall call) {
      if (call.getKind() == SqlKind.AS && call.operand(0) instanceof SqlSnapshot snapshot) {
        call.setOperand(0, versioned(snapshot));
        return call;
      }
      List<SqlNode> operands = call.getOperandList();
      for (int i = 0; i < operands.size(); i++) {
        SqlNode operand = operands.get(i);
        if (operand != null) {
          SqlNode rewritten = rewriteVersions(operand);
          if (rewritten != operand) {
            call.setOperand(i, rewritten);
          }
        }
      }
    }
    return node;
  }

  private static SqlIdentifier versioned(SqlSnapshot snapshot) {
    if (snapshot.getTableRef() instanceof SqlIdentifier id && TimeTravel.isTime(snapshot.getPeriod())) {
      List<String> names = new java.util.ArrayList<>(id.names);
      names.set(names.size() - 1, names.getLast() + CalciteTables.VERSION_MARK + TimeTravel.TIME_MARK
          + TimeTravel.micros(snapshot.getPeriod()));
      return new SqlIdentifier(names, id.getParserPosition());
    }
    if (!(snapshot.getTableRef() instanceof SqlIdentifier id)
        || !(snapshot.getPeriod() instanceof SqlLiteral literal)
        || !(literal.getValue() instanceof java.math.BigDecimal number)) {
      throw SqlParsing.unsupported("FOR VERSION AS OF with anything but a table and an integer", snapshot);
    }
    List<String> names = new java.util.ArrayList<>(id.names);
    names.set(names.size() - 1, names.getLast() + CalciteTables.VERSION_MARK + number.longValueExact());
    return new SqlIdentifier(names, id.getParserPosition());
  }
}
