package dev.lake.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.fun.SqlMonotonicBinaryOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorScope;

/**
 * PostgreSQL's arithmetic of dates and integers, which Calcite's {@code +} and {@code -} refuse:
 * {@code date - date} is the INTEGER number of days between them, {@code date ± integer} and
 * {@code integer + date} the DATE that many days away. Every {@code +} and {@code -} is parsed
 * as one of these two operators ({@link FunctionSyntax}); a call whose operands are not a date
 * and a date or an integer goes back to Calcite's own operator while it is validated, so every
 * other use of {@code +} and {@code -} is typed and converted exactly as before.
 */
final class DateArithmetic extends SqlMonotonicBinaryOperator {
  static final DateArithmetic PLUS = new DateArithmetic("+", SqlKind.PLUS);
  static final DateArithmetic MINUS = new DateArithmetic("-", SqlKind.MINUS);

  private DateArithmetic(String name, SqlKind kind) {
    super(name, kind, 40, true, DateArithmetic::returnType, InferTypes.FIRST_KNOWN,
        kind == SqlKind.PLUS ? OperandTypes.PLUS_OPERATOR : OperandTypes.MINUS_OPERATOR);
  }

  /** Calcite's operator for {@code op}. */
  private SqlMonotonicBinaryOperator standard() {
    return (SqlMonotonicBinaryOperator) (kind == SqlKind.PLUS ? SqlStdOperatorTable.PLUS : SqlStdOperatorTable.MINUS);
  }

  @Override
  public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
    RelDataType a = validator.deriveType(scope, call.operand(0));
    RelDataType b = validator.deriveType(scope, call.operand(1));
    RelDataType type = dateResult(kind, a, b, validator.getTypeFactory());
    if (type == null && kind == SqlKind.MINUS && datetime(a) && datetime(b)) {
      var pos = call.getParserPosition();
      throw new SqlException(SqlException.Kind.UNSUPPORTED, "the difference of two timestamps (" + call
          + ") is an INTERVAL, and INTERVAL values are not supported yet; for the seconds between them use"
          + " EXTRACT(epoch FROM a) - EXTRACT(epoch FROM b), for days between dates date - date (line "
          + pos.getLineNum() + ", column " + pos.getColumnNum() + ")", pos.getLineNum(), pos.getColumnNum(), null);
    }
    if (type == null) {
      ((SqlBasicCall) call).setOperator(standard());
      return standard().deriveType(validator, scope, call);
    }
    return type;
  }

  private static RelDataType returnType(SqlOperatorBinding binding) {
    RelDataType type = dateResult(binding.getOperator().getKind(), binding.getOperandType(0),
        binding.getOperandType(1), binding.getTypeFactory());
    return type != null ? type : ReturnTypes.NULLABLE_SUM.inferReturnType(binding);
  }

  private static boolean datetime(RelDataType t) {
    return t.getSqlTypeName() == SqlTypeName.DATE || t.getSqlTypeName() == SqlTypeName.TIMESTAMP;
  }

  /** The type of a date's arithmetic with {@code a} and {@code b}, or null when it is not one. */
  static RelDataType dateResult(SqlKind kind, RelDataType a, RelDataType b, RelDataTypeFactory types) {
    boolean aDate = a.getSqlTypeName() == SqlTypeName.DATE;
    boolean bDate = b.getSqlTypeName() == SqlTypeName.DATE;
    SqlTypeName result;
    if (kind == SqlKind.MINUS && aDate && bDate) {
      result = SqlTypeName.INTEGER;
    } else if (aDate && SqlTypeUtil.isIntType(b) || kind == SqlKind.PLUS && bDate && SqlTypeUtil.isIntType(a)) {
      result = SqlTypeName.DATE;
    } else {
      return null;
    }
    return types.createTypeWithNullability(types.createSqlType(result), a.isNullable() || b.isNullable());
  }
}
