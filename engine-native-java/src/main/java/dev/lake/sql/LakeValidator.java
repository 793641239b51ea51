package dev.lake.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.runtime.CalciteException;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlNameMatchers;
import org.apache.calcite.sql.validate.SqlValidatorCatalogReader;
import org.apache.calcite.sql.validate.SqlValidatorImpl;
import org.apache.calcite.sql.validate.SqlValidatorScope;

/**
 * Calcite's validator over lake's operator table ({@link FunctionOperators}), refusing a call of a
 * function that does not exist with the names closest to it.
 *
 * <p>A {@code ?} whose type nothing around it tells (a bare {@code SELECT ?}) is VARCHAR instead
 * of the error "Illegal use of dynamic parameter": PostgreSQL's rule that an unknown-typed
 * parameter is text. Everywhere else a parameter takes the type Calcite infers from its context
 * ({@code id = ?} the type of {@code id}, {@code CAST(? AS DATE)} DATE).
 */
final class LakeValidator extends SqlValidatorImpl {

  LakeValidator(SqlOperatorTable opTab, SqlValidatorCatalogReader catalogReader,
      RelDataTypeFactory typeFactory, Config config) {
    super(opTab, catalogReader, typeFactory, config);
  }

  @Override
  protected void inferUnknownTypes(RelDataType inferredType, SqlValidatorScope scope, SqlNode node) {
    if (node instanceof SqlDynamicParam && inferredType.equals(unknownType)) {
      inferredType = typeFactory.createTypeWithNullability(
          typeFactory.createSqlType(SqlTypeName.VARCHAR), true);
    }
    super.inferUnknownTypes(inferredType, scope, node);
  }

  /**
   * Infers the types of the {@code ?} in ORDER BY expressions from their context as the select
   * list's are ({@code ORDER BY l2_distance(embedding, ?)}), which Calcite leaves unknown.
   */
  @Override
  protected void validateOrderList(org.apache.calcite.sql.SqlSelect select) {
    org.apache.calcite.sql.SqlNodeList order = select.getOrderList();
    if (order != null) {
      SqlValidatorScope scope = getOrderScope(select);
      for (SqlNode item : order) {
        SqlNode e = item;
        while (e instanceof SqlCall call && (call.getKind() == org.apache.calcite.sql.SqlKind.DESCENDING
            || call.getKind() == org.apache.calcite.sql.SqlKind.NULLS_FIRST
            || call.getKind() == org.apache.calcite.sql.SqlKind.NULLS_LAST)) {
          e = call.operand(0);
        }
        if (e instanceof SqlCall) {
          inferUnknownTypes(unknownType, scope, e);
        }
      }
    }
    super.validateOrderList(select);
  }

  @Override
  public CalciteException handleUnresolvedFunction(SqlCall call, SqlOperator unresolvedFunction,
      List<RelDataType> argTypes, List<String> argNames) {
    String name = unresolvedFunction.getName().toLowerCase(Locale.ROOT);
    List<SqlOperator> known = new ArrayList<>();
    getOperatorTable().lookupOperatorOverloads(new SqlIdentifier(name, SqlParserPos.ZERO),
        SqlFunctionCategory.USER_DEFINED_FUNCTION, SqlSyntax.FUNCTION, known, SqlNameMatchers.withCaseSensitive(false));
    if (!known.isEmpty()) {
      // A function that exists, called with arguments none of its forms takes (aggregates).
      return super.handleUnresolvedFunction(call, unresolvedFunction, argTypes, argNames);
    }
    List<String> closest = FunctionOperators.registry().closestNames(name, FunctionOperators.standardFunctionNames())
        .stream().filter(n -> Character.isLetter(n.charAt(0))).toList();
    String message = "function " + name + FunctionOperators.describeArguments(argTypes) + " does not exist"
        + (closest.isEmpty() ? "" : "; did you mean " + String.join(", ", closest) + "?")
        + " (docs/sql.md lists the functions)";
    return FunctionOperators.invalidCall(call, message);
  }
}
