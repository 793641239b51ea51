package dev.lake.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlValidatorCatalogReader;
import org.apache.calcite.sql.validate.SqlValidatorImpl;
import org.apache.calcite.sql.validate.SqlValidatorScope;

/**
 * Calcite's validator, except that a {@code ?} whose type nothing around it tells (a bare
 * {@code SELECT ?}, {@code COALESCE(?, ?)}) is VARCHAR instead of the error "Illegal use of
 * dynamic parameter": PostgreSQL's rule that an unknown-typed parameter is text. Everywhere else
 * a parameter takes the type Calcite infers from its context ({@code id = ?} the type of
 * {@code id}, {@code ? + 1} INTEGER, {@code CAST(? AS DATE)} DATE).
 */
final class ParameterTypingValidator extends SqlValidatorImpl {

  ParameterTypingValidator(SqlOperatorTable operators, SqlValidatorCatalogReader reader,
      RelDataTypeFactory typeFactory, Config config) {
    super(operators, reader, typeFactory, config);
  }

  @Override
  protected void inferUnknownTypes(RelDataType inferredType, SqlValidatorScope scope, SqlNode node) {
    if (node instanceof SqlDynamicParam && inferredType.equals(unknownType)) {
      inferredType = typeFactory.createTypeWithNullability(
          typeFactory.createSqlType(SqlTypeName.VARCHAR), true);
    }
    super.inferUnknownTypes(inferredType, scope, node);
  }
}
