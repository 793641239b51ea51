package dev.lake.sql;

import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.implicit.TypeCoercionImpl;

/**
 * Calcite's implicit conversions, without those PostgreSQL does not make between text and
 * numbers: {@code robot = 1}, {@code 'a' + 1}, {@code sum(robot)} and {@code robot LIKE 1} are
 * type errors naming the operator and its argument types, not casts that fail at run time. A
 * string literal that reads as a number is taken as one ({@code id = '3'}, {@code '1' + 1}), as
 * PostgreSQL types an untyped literal by its context.
 */
final class LakeTypeCoercion extends TypeCoercionImpl {

  LakeTypeCoercion(RelDataTypeFactory typeFactory, SqlValidator validator) {
    super(typeFactory, validator);
  }

  @Override
  public boolean binaryArithmeticCoercion(SqlCallBinding binding) {
    return !mixesTextAndNumbers(binding) && super.binaryArithmeticCoercion(binding);
  }

  /**
   * A comparison of text with a number is refused here, at validation, naming the operator and
   * both types: left to later passes, Calcite's simplifier would fold it into a range of mixed
   * types (inside an OR) and fail.
   */
  @Override
  public boolean binaryComparisonCoercion(SqlCallBinding binding) {
    if (mixesTextAndNumbers(binding)) {
      throw binding.newValidationSignatureError();
    }
    return super.binaryComparisonCoercion(binding);
  }

  @Override
  public boolean builtinFunctionCoercion(SqlCallBinding binding, List<RelDataType> operandTypes,
      List<SqlTypeFamily> expectedFamilies) {
    for (int i = 0; i < operandTypes.size() && i < expectedFamilies.size(); i++) {
      RelDataType t = operandTypes.get(i);
      SqlTypeFamily want = expectedFamilies.get(i);
      boolean wantsNumber = want == SqlTypeFamily.NUMERIC || want == SqlTypeFamily.INTEGER
          || want == SqlTypeFamily.EXACT_NUMERIC || want == SqlTypeFamily.APPROXIMATE_NUMERIC
          || want == SqlTypeFamily.DECIMAL;
      boolean wantsText = want == SqlTypeFamily.CHARACTER || want == SqlTypeFamily.STRING;
      if (wantsNumber && SqlTypeUtil.isCharacter(t) && !numericLiteral(binding.operand(i))
          || wantsText && SqlTypeUtil.isNumeric(t)) {
        return false;
      }
    }
    return super.builtinFunctionCoercion(binding, operandTypes, expectedFamilies);
  }

  private static boolean mixesTextAndNumbers(SqlCallBinding binding) {
    if (binding.getOperandCount() != 2) {
      return false;
    }
    for (int i = 0; i < 2; i++) {
      RelDataType text = binding.getOperandType(i);
      RelDataType other = binding.getOperandType(1 - i);
      if (SqlTypeUtil.isCharacter(text) && SqlTypeUtil.isNumeric(other)
          && !numericLiteral(binding.operand(i))) {
        return true;
      }
    }
    return false;
  }

  /** A string literal whose text is a number. */
  private static boolean numericLiteral(SqlNode node) {
    if (!(node instanceof SqlCharStringLiteral literal)) {
      return false;
    }
    try {
      new java.math.BigDecimal(literal.getValueAs(String.class).trim());
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
