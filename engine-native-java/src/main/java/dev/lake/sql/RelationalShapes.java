package dev.lake.sql;

import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Single-table shapes only the relational planner plans: grouping sets ({@code GROUPING SETS},
 * {@code ROLLUP}, {@code CUBE}, {@code GROUPING()}), set operations, outer joins, and {@code IN}
 * lists with an element that is not a constant ({@code a IN (b, c + 1)}, {@code count(*) IN (1,
 * max(x))}).
 */
final class RelationalShapes {

  private RelationalShapes() {}

  /** Whether {@code statement} has one of these shapes anywhere. */
  static boolean present(SqlNode statement) {
    boolean[] found = {false};
    statement.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlCall call) {
        switch (call.getKind()) {
          case ROLLUP, CUBE, GROUPING_SETS, GROUPING, GROUPING_ID, GROUP_ID, INTERSECT, EXCEPT -> found[0] = true;
          case IN, NOT_IN -> found[0] |= call.operandCount() == 2
              && call.operand(1) instanceof SqlNodeList list && !constants(list);
          default -> { }
        }
        return super.visit(call);
      }
    });
    return found[0];
  }

  /** Whether every element of an IN list is a literal, a negated literal or a cast of one. */
  private static boolean constants(SqlNodeList list) {
    for (SqlNode element : list) {
      if (!constant(element)) {
        return false;
      }
    }
    return true;
  }

  private static boolean constant(SqlNode node) {
    if (node instanceof SqlLiteral) {
      return true;
    }
    if (node instanceof SqlCall call) {
      return switch (call.getKind()) {
        case MINUS_PREFIX, PLUS_PREFIX -> constant(call.operand(0));
        default -> false;
      };
    }
    return false;
  }
}
