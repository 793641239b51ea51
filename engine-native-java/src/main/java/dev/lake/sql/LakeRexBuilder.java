package dev.lake.sql;

import java.math.BigDecimal;
import java.math.RoundingMode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Calcite's expression builder, folding a cast of a numeric constant to fewer decimal places as
 * the engine casts a column: rounding half away from zero ({@code CAST(2.5 AS DECIMAL(3,0))} is
 * 3, as in PostgreSQL), where Calcite truncates.
 */
final class LakeRexBuilder extends RexBuilder {

  LakeRexBuilder(RelDataTypeFactory typeFactory) {
    super(typeFactory);
  }

  @Override
  public RexNode makeCast(SqlParserPos pos, RelDataType type, RexNode exp, boolean matchNullability,
      boolean safe, RexLiteral format) {
    if (exp instanceof RexLiteral literal && SqlTypeUtil.isExactNumeric(literal.getType())
        && SqlTypeUtil.isExactNumeric(type) && literal.getValue() != null) {
      int scale = type.getSqlTypeName() == SqlTypeName.DECIMAL ? type.getScale() : 0;
      BigDecimal value = literal.getValueAs(BigDecimal.class);
      if (value != null && value.scale() > scale) {
        exp = makeExactLiteral(value.setScale(scale, RoundingMode.HALF_UP));
      }
    }
    return super.makeCast(pos, type, exp, matchNullability, safe, format);
  }
}
