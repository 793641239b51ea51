package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

class ConstantFoldingTest {
  private final JavaTypeFactoryImpl types = new JavaTypeFactoryImpl(RelTypes.TYPE_SYSTEM);
  private final RexBuilder rex = new RexBuilder(types);

  private RexNode fold(RexNode e) {
    List<RexNode> out = new ArrayList<>();
    ConstantFolding.EXECUTOR.reduce(rex, List.of(e), out);
    assertEquals(1, out.size());
    return out.getFirst();
  }

  private RexNode cast(RelDataType type, RexNode operand) {
    return rex.makeAbstractCast(type, operand, false);
  }

  @Test
  void aCastOfALiteralFoldsToTheSameValueEachTimeAndIsKept() {
    RelDataType decimal = types.createTypeWithNullability(types.createSqlType(SqlTypeName.DECIMAL, 7, 2), false);
    RexNode first = fold(cast(decimal, rex.makeLiteral("12.5")));
    RexNode second = fold(cast(decimal, rex.makeLiteral("12.5")));
    assertEquals(new BigDecimal("12.50"), ((RexLiteral) first).getValueAs(BigDecimal.class));
    assertSame(first, second);
    // A different literal is its own entry, not the kept one.
    assertEquals(new BigDecimal("3.00"), ((RexLiteral) fold(cast(decimal, rex.makeLiteral("3")))).getValueAs(BigDecimal.class));
  }

  @Test
  void aCastThatCannotFoldIsLeftAsWrittenEveryTime() {
    RelDataType integer = types.createTypeWithNullability(types.createSqlType(SqlTypeName.INTEGER), false);
    RexNode e = cast(integer, rex.makeLiteral("not a number"));
    assertSame(e, fold(e));
    assertSame(e, fold(e));
  }

  @Test
  void aListValuedExpressionIsLeftToLakesKernels() {
    RelDataType list = types.createArrayType(types.createSqlType(SqlTypeName.INTEGER), -1);
    RexNode e = cast(list, rex.makeLiteral("[1, 2]"));
    assertSame(e, fold(e));
  }
}
