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

  private final SqlCatalog catalog;
  private final CalciteTables tables;

  /** @param catalog and {@code tables}: what errors about unknown names are checked against */
  LakeValidator(SqlOperatorTable opTab, SqlValidatorCatalogReader catalogReader,
      RelDataTypeFactory typeFactory, SqlCatalog catalog, CalciteTables tables, Config config) {
    super(opTab, catalogReader, typeFactory, config);
    this.catalog = catalog;
    this.tables = tables;
  }

  /** Errors about names and grouping in lake's words and statuses ({@link ValidationErrors}). */
  @Override
  public org.apache.calcite.runtime.CalciteContextException newValidationError(SqlNode node,
      org.apache.calcite.runtime.Resources.ExInst<org.apache.calcite.sql.validate.SqlValidatorException> e) {
    org.apache.calcite.runtime.CalciteContextException lake =
        ValidationErrors.translate(node, e, this, catalog, tables.opened().values());
    return lake != null ? lake : super.newValidationError(node, e);
  }

  /**
   * Casts as PostgreSQL allows them beyond Calcite's rules: BOOLEAN to the integer types ({@code CAST(success AS INTEGER)} is 1 or 0).
   */
  @Override
  public org.apache.calcite.sql.type.SqlTypeMappingRule getTypeMappingRule() {
    return config().conformance().allowLenientCoercion() ? LENIENT_CASTS : CASTS;
  }

  private static final org.apache.calcite.sql.type.SqlTypeMappingRule CASTS =
      castRule(org.apache.calcite.sql.type.SqlTypeCoercionRule.instance());
  private static final org.apache.calcite.sql.type.SqlTypeMappingRule LENIENT_CASTS =
      castRule(org.apache.calcite.sql.type.SqlTypeCoercionRule.lenientInstance());

  private static org.apache.calcite.sql.type.SqlTypeMappingRule castRule(
      org.apache.calcite.sql.type.SqlTypeMappingRule calcite) {
    var base = calcite.getTypeMapping();
    java.util.Map<SqlTypeName, com.google.common.collect.ImmutableSet<SqlTypeName>> rules =
        new java.util.HashMap<>(base);
    java.util.List<SqlTypeName> integers = java.util.List.of(SqlTypeName.TINYINT, SqlTypeName.SMALLINT,
        SqlTypeName.INTEGER, SqlTypeName.BIGINT);
    for (SqlTypeName t : integers) {
      rules.put(t, com.google.common.collect.ImmutableSet.<SqlTypeName>builder()
          .addAll(base.getOrDefault(t, com.google.common.collect.ImmutableSet.of())).add(SqlTypeName.BOOLEAN).build());
    }
    return org.apache.calcite.sql.type.SqlTypeCoercionRule.instance(rules);
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
