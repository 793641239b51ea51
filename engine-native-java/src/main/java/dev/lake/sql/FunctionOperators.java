package dev.lake.sql;

import dev.lake.exec.SqlType;
import dev.lake.exec.fn.AggregateFunction;
import dev.lake.exec.fn.Binding;
import dev.lake.exec.fn.FunctionRegistry;
import dev.lake.exec.fn.Param;
import dev.lake.exec.fn.RegisteredFunction;
import dev.lake.exec.fn.ScalarFunction;
import dev.lake.exec.fn.Signature;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperandCountRange;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlOperandCountRanges;
import org.apache.calcite.sql.type.SqlOperandTypeChecker;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.util.Optionality;
import org.apache.calcite.sql.validate.SqlNameMatcher;

/**
 * The operator table the validator reads: one Calcite function per function of the {@link
 * FunctionRegistry}, whose argument checks, argument conversions and result types are the
 * registry's, followed by Calcite's standard operators minus the functions the engine does not
 * run. So a statement validates exactly when lake can run its functions, and an unknown
 * function's name is refused at validation with the closest names ({@link LakeValidator}).
 */
final class FunctionOperators implements SqlOperatorTable {

  /**
   * Calcite's standard functions (not operators) the engine runs outside the registry: the
   * special forms rewritten or translated on their own (CAST, COALESCE, NULLIF, CASE, EXTRACT,
   * MOD, which is the arithmetic {@code %}), nested values (CARDINALITY, ITEM) and the aggregates
   * (kept by {@link SqlOperator#isAggregator()}).
   */
  private static final Set<String> STANDARD_FUNCTIONS = Set.of("CAST", "COALESCE", "NULLIF", "EXTRACT",
      "MOD", "CARDINALITY", "ITEM");

  private static final FunctionOperators STANDARD = new FunctionOperators(FunctionRegistry.standard());

  /** The registry's operators first, then the standard operators the engine runs. */
  private static final SqlOperatorTable TABLE = SqlOperatorTables.chain(STANDARD, new Standard(STANDARD));

  private final FunctionRegistry registry;
  private final Map<String, Operator> byName = new HashMap<>();
  private final Map<ScalarFunction, Operator> byFunction = new HashMap<>();
  private final List<SqlOperator> operators = new ArrayList<>();
  private final Map<String, AggregateOperator> aggregatesByName = new HashMap<>();
  private final Set<String> kernelAggregates = new java.util.HashSet<>();

  private FunctionOperators(FunctionRegistry registry) {
    this.registry = registry;
    for (AggregateFunction f : registry.aggregates()) {
      if (f.kernel().isPresent()) {
        // Calcite's own operator spells a function of the typed kernels (count, sum, ...): its
        // planner rules know it (count(*), avg's reduction, sum over no rows).
        kernelAggregates.add(f.name().toUpperCase(Locale.ROOT));
        continue;
      }
      AggregateOperator op = new AggregateOperator(f);
      operators.add(op);
      aggregatesByName.put(f.name().toUpperCase(Locale.ROOT), op);
      for (String alias : f.aliases()) {
        aggregatesByName.put(alias.toUpperCase(Locale.ROOT), op);
      }
    }
    for (ScalarFunction f : registry.functions()) {
      Operator op = new Operator(f);
      byFunction.put(f, op);
      operators.add(op);
      byName.put(f.name().toUpperCase(Locale.ROOT), op);
      for (String alias : f.aliases()) {
        byName.put(alias.toUpperCase(Locale.ROOT), op);
      }
    }
  }

  /** The table the validator uses. */
  static SqlOperatorTable table() {
    return TABLE;
  }

  static FunctionRegistry registry() {
    return STANDARD.registry;
  }

  /** The Calcite operator of the registry's {@code function}. */
  static SqlOperator operator(ScalarFunction function) {
    return STANDARD.byFunction.get(function);
  }

  /** The Calcite operator of the registry's aggregate called {@code name}, or null. */
  static AggregateOperator aggregateOperator(String name) {
    return STANDARD.aggregatesByName.get(name.toUpperCase(Locale.ROOT));
  }

  /** Names of the standard functions the engine runs, for suggestions beside the registry's. */
  static List<String> standardFunctionNames() {
    return List.of("coalesce", "nullif", "extract", "cast", "mod", "cardinality");
  }

  @Override
  public void lookupOperatorOverloads(SqlIdentifier opName, SqlFunctionCategory category, SqlSyntax syntax,
      List<SqlOperator> operatorList, SqlNameMatcher nameMatcher) {
    if (!opName.isSimple()) {
      return;
    }
    String name = opName.getSimple().toUpperCase(Locale.ROOT);
    SqlOperator op = byName.containsKey(name) ? byName.get(name) : aggregatesByName.get(name);
    ScalarFunction clock = DateTimeSyntax.nullary(opName.getSimple());
    if (op == null && clock != null) {
      op = byFunction.get(clock);
    }
    if (op != null) {
      operatorList.add(op);
    }
  }

  @Override
  public List<SqlOperator> getOperatorList() {
    return operators;
  }

  /** Calcite's standard table without the functions the engine does not run or the registry defines. */
  private static final class Standard implements SqlOperatorTable {
    private final FunctionOperators registry;

    Standard(FunctionOperators registry) {
      this.registry = registry;
    }

    private boolean keeps(SqlOperator op) {
      if (op.getSyntax() != SqlSyntax.FUNCTION) {
        return true;
      }
      String name = op.getName().toUpperCase(Locale.ROOT);
      if (registry.kernelAggregates.contains(name)) {
        return op.isAggregator();
      }
      if (registry.byName.containsKey(name) || registry.aggregatesByName.containsKey(name)) {
        return false;
      }
      return op.isAggregator() || STANDARD_FUNCTIONS.contains(name);
    }

    @Override
    public void lookupOperatorOverloads(SqlIdentifier opName, SqlFunctionCategory category, SqlSyntax syntax,
        List<SqlOperator> operatorList, SqlNameMatcher nameMatcher) {
      List<SqlOperator> found = new ArrayList<>();
      SqlStdOperatorTable.instance().lookupOperatorOverloads(opName, category, syntax, found, nameMatcher);
      for (SqlOperator op : found) {
        if (keeps(op)) {
          operatorList.add(op);
        }
      }
    }

    @Override
    public List<SqlOperator> getOperatorList() {
      return SqlStdOperatorTable.instance().getOperatorList().stream().filter(this::keeps).toList();
    }
  }

  /** The lake types of a call's operands (a type the engine cannot compute with is null). */
  private static List<SqlType> lakeTypes(SqlOperatorBinding binding) {
    List<SqlType> types = new ArrayList<>();
    for (int i = 0; i < binding.getOperandCount(); i++) {
      RelDataType t = binding.getOperandType(i);
      SqlType lake;
      try {
        lake = RexToExpr.isNested(t) && !RexToExpr.isScalarList(t) ? null : RelTypes.toLake(t);
      } catch (SqlException e) {
        lake = null;
      }
      types.add(lake);
    }
    return types;
  }

  /**
   * The call's binding for the registry: operand types, and the value of each operand written as
   * an integer or text constant (what a result type may depend on, as {@code round}'s scale and
   * {@code date_part}'s field do).
   */
  private static Binding binding(SqlOperatorBinding binding, List<SqlType> types) {
    Binding b = Binding.of(types);
    for (int i = 0; i < types.size(); i++) {
      if (types.get(i).isInteger() && binding.isOperandLiteral(i, false) && !binding.isOperandNull(i, false)) {
        BigDecimal v = binding.getOperandLiteralValue(i, BigDecimal.class);
        if (v != null) {
          b = b.withConstant(i, v.longValueExact());
        }
      } else if (types.get(i).kind() == SqlType.Kind.UTF8 && binding.isOperandLiteral(i, false)
          && !binding.isOperandNull(i, false)) {
        // A text constant a result type may depend on (date_part's field).
        b = b.withConstant(i, binding.getOperandLiteralValue(i, String.class));
      }
    }
    return b;
  }

  /** How a call's argument types are spelled in a message: {@code (VARCHAR, INTEGER)}. */
  static String describeArguments(List<RelDataType> types) {
    return "(" + String.join(", ", types.stream().map(t -> t.getSqlTypeName() == SqlTypeName.NULL ? "NULL"
        : RexToExpr.isNested(t) ? RexToExpr.describe(t) : lakeName(t)).toList()) + ")";
  }

  private static String lakeName(RelDataType t) {
    try {
      return RelTypes.toLake(t).toString();
    } catch (SqlException e) {
      return t.getSqlTypeName().getName();
    }
  }

  /** A validation error at {@code call}, carrying a {@link SqlException} of kind INVALID. */
  static CalciteContextException invalidCall(SqlCall call, String message) {
    SqlParserPos pos = call.getParserPosition();
    return new CalciteContextException(message, new SqlException(SqlException.Kind.INVALID, message),
        pos.getLineNum(), pos.getColumnNum(), pos.getEndLineNum(), pos.getEndColumnNum());
  }

  /** The Calcite function standing for one registry function. */
  static final class Operator extends SqlFunction {
    final ScalarFunction function;

    Operator(ScalarFunction function) {
      super(function.name().toUpperCase(Locale.ROOT), SqlKind.OTHER_FUNCTION,
          binding -> returnType(function, binding),
          (callBinding, returnType, operandTypes) -> inferUnknown(function, callBinding, operandTypes),
          new Checker(function, types -> FunctionRegistry.resolve(function, Binding.of(types)).isPresent()),
          SqlFunctionCategory.SYSTEM);
      this.function = function;
    }

    @Override
    public boolean isDeterministic() {
      return true;
    }

    /** The clock functions are constant within one execution, not between executions. */
    @Override
    public boolean isDynamicFunction() {
      return dev.lake.exec.fn.DateTimeFunctions.CLOCK.contains(function);
    }

    private static RelDataType returnType(ScalarFunction function, SqlOperatorBinding binding) {
      List<SqlType> types = lakeTypes(binding);
      if (types.contains(null)) {
        throw new IllegalStateException(function.name() + " called with operands it was not checked for");
      }
      FunctionRegistry.Resolution r = FunctionRegistry.resolve(function, binding(binding, types))
          .orElseThrow(() -> new IllegalStateException(function.name() + " resolved no signature for " + types));
      return RelTypes.toCalcite(binding.getTypeFactory(), r.result());
    }

    /** Types for operands written as bare NULL (or parameters): the first matching signature's. */
    private static void inferUnknown(RegisteredFunction function, SqlCallBinding binding, RelDataType[] operandTypes) {
      RelDataTypeFactory f = binding.getTypeFactory();
      int n = binding.getOperandCount();
      Signature signature = function.signatures().stream().filter(s -> s.takes(n)).findFirst()
          .orElse(function.signatures().getFirst());
      RelDataType same = null;
      for (int i = 0; i < n; i++) {
        RelDataType known = binding.getOperandType(i);
        if (signature.param(i) == Param.SAME && known.getSqlTypeName() != SqlTypeName.NULL
            && known.getSqlTypeName() != SqlTypeName.UNKNOWN) {
          same = known;
        }
      }
      for (int i = 0; i < n; i++) {
        SqlType.Kind kind = switch (signature.param(i)) {
          case STRING, TEXT -> SqlType.Kind.UTF8;
          case BIGINT -> SqlType.Kind.INT64;
          case DOUBLE, NUMBER -> SqlType.Kind.FLOAT64;
          case BOOLEAN -> SqlType.Kind.BOOL;
          case TIMESTAMP -> SqlType.Kind.TIMESTAMP;
          case SAME, ELEMENT, LIST, VECTOR -> null;
        };
        if (signature.param(i) == Param.ELEMENT) {
          RelDataType element = null;
          for (int j = 0; j < n; j++) {
            if (signature.param(j) == Param.LIST && binding.getOperandType(j).getComponentType() != null) {
              element = binding.getOperandType(j).getComponentType();
            }
          }
          if (element != null) {
            operandTypes[i] = f.createTypeWithNullability(element, true);
            continue;
          }
        }
        if (signature.param(i) == Param.VECTOR || signature.param(i) == Param.LIST) {
          operandTypes[i] = f.createTypeWithNullability(f.createArrayType(f.createTypeWithNullability(
              f.createSqlType(signature.param(i) == Param.VECTOR ? SqlTypeName.DOUBLE : SqlTypeName.VARCHAR),
              true), -1), true);
          continue;
        }
        operandTypes[i] = kind == null
            ? (same != null ? f.createTypeWithNullability(same, true) : f.createTypeWithNullability(
                f.createSqlType(SqlTypeName.VARCHAR), true))
            : RelTypes.toCalcite(f, SqlType.of(kind, true));
      }
    }
  }

  /**
   * The Calcite aggregate function standing for one registry aggregate: the registry checks its
   * arguments and gives its type; {@code DISTINCT}, {@code FILTER} and (as the function allows)
   * an ordering of its rows are accepted.
   */
  static final class AggregateOperator extends SqlAggFunction {
    final AggregateFunction function;

    AggregateOperator(AggregateFunction function) {
      super(function.name().toUpperCase(Locale.ROOT), null, SqlKind.OTHER_FUNCTION,
          binding -> aggregateType(function, binding),
          (callBinding, returnType, operandTypes) -> Operator.inferUnknown(function, callBinding, operandTypes),
          new Checker(function, types -> FunctionRegistry.resolve(function, Binding.of(types)).isPresent()),
          SqlFunctionCategory.SYSTEM, false, false, switch (function.ordering()) {
            case FORBIDDEN -> Optionality.FORBIDDEN;
            case OPTIONAL -> Optionality.OPTIONAL;
            case REQUIRED -> Optionality.MANDATORY;
          });
      this.function = function;
    }

    @Override
    public boolean isQuantifierAllowed() {
      return true;
    }

    private static RelDataType aggregateType(AggregateFunction function, SqlOperatorBinding binding) {
      List<SqlType> types = lakeTypes(binding);
      FunctionRegistry.AggregateResolution r = types.contains(null) ? null
          : FunctionRegistry.resolve(function, Binding.of(types)).orElse(null);
      if (r == null) {
        throw new IllegalStateException(function.name() + " called with operands it was not checked for");
      }
      RelDataTypeFactory f = binding.getTypeFactory();
      RelDataType t = RelTypes.toCalcite(f, r.result());
      return function.listResult() ? f.createTypeWithNullability(f.createArrayType(t, -1), true) : t;
    }
  }

  /** Accepts a call exactly when the registry resolves it; names the signatures when it does not. */
  private record Checker(RegisteredFunction function, Predicate<List<SqlType>> resolves)
      implements SqlOperandTypeChecker {
    @Override
    public boolean checkOperandTypes(SqlCallBinding binding, boolean throwOnFailure) {
      List<SqlType> types = lakeTypes(binding);
      boolean ok = !types.contains(null) && resolves.test(types);
      if (!ok && throwOnFailure) {
        List<RelDataType> operandTypes = new ArrayList<>();
        for (int i = 0; i < binding.getOperandCount(); i++) {
          operandTypes.add(binding.getOperandType(i));
        }
        throw invalidCall(binding.getCall(), "function " + function.name() + " cannot take "
            + describeArguments(operandTypes) + "; it takes " + FunctionRegistry.describeSignatures(function));
      }
      return ok;
    }

    @Override
    public SqlOperandCountRange getOperandCountRange() {
      return SqlOperandCountRanges.any();
    }

    @Override
    public String getAllowedSignatures(SqlOperator op, String opName) {
      return FunctionRegistry.describeSignatures(function);
    }
  }
}
