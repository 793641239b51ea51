package dev.lake.sql;

import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlWindow;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Window functions in planning: frames checked before validation, and
 * the rewrite of the converter's windowed expressions ({@code RexOver} inside a projection) into
 * {@code Window} nodes, one group per distinct window, which {@link WindowTranslation} runs.
 */
final class Windows {
  private Windows() {}

  /**
   * Refuses, before validation, a frame that makes no sense, with PostgreSQL's reason and the
   * frame as written: a start after the end ({@code ROWS BETWEEN CURRENT ROW AND 1 PRECEDING}),
   * {@code UNBOUNDED FOLLOWING} as start or {@code UNBOUNDED PRECEDING} as end, a negative offset.
   *
   * @throws SqlException INVALID naming the frame, with its line and column
   */
  static void checkFrames(SqlNode statement) {
    statement.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlCall call) {
        if (call instanceof SqlWindow window && window.getLowerBound() != null) {
          check(window);
        }
        return super.visit(call);
      }
    });
  }

  private enum Bound { UNBOUNDED_PRECEDING, PRECEDING, CURRENT_ROW, FOLLOWING, UNBOUNDED_FOLLOWING }

  private static void check(SqlWindow window) {
    SqlNode lower = window.getLowerBound();
    SqlNode upper = window.getUpperBound();
    Bound from = bound(lower);
    Bound to = upper == null ? Bound.CURRENT_ROW : bound(upper);
    String frame = (window.isRows() ? "ROWS" : "RANGE") + " BETWEEN " + text(lower, from) + " AND "
        + (upper == null ? "CURRENT ROW" : text(upper, to));
    String problem = null;
    if (from == Bound.UNBOUNDED_FOLLOWING) {
      problem = "frame start cannot be UNBOUNDED FOLLOWING";
    } else if (to == Bound.UNBOUNDED_PRECEDING) {
      problem = "frame end cannot be UNBOUNDED PRECEDING";
    } else if (from == Bound.CURRENT_ROW && to == Bound.PRECEDING) {
      problem = "frame starting from current row cannot have preceding rows";
    } else if (from == Bound.FOLLOWING && (to == Bound.PRECEDING || to == Bound.CURRENT_ROW)) {
      problem = "frame starting from following row cannot have preceding rows";
    } else if (negative(lower)) {
      problem = "frame starting offset must not be negative";
    } else if (upper != null && negative(upper)) {
      problem = "frame ending offset must not be negative";
    }
    if (problem != null) {
      SqlParserPos pos = lower.getParserPosition();
      throw new SqlException(SqlException.Kind.INVALID, "window frame " + frame + ": " + problem
          + " (line " + pos.getLineNum() + ", column " + pos.getColumnNum() + ")",
          pos.getLineNum(), pos.getColumnNum(), null);
    }
  }

  private static Bound bound(SqlNode node) {
    if (SqlWindow.isUnboundedPreceding(node)) {
      return Bound.UNBOUNDED_PRECEDING;
    }
    if (SqlWindow.isUnboundedFollowing(node)) {
      return Bound.UNBOUNDED_FOLLOWING;
    }
    if (SqlWindow.isCurrentRow(node)) {
      return Bound.CURRENT_ROW;
    }
    return node.getKind() == SqlKind.PRECEDING ? Bound.PRECEDING : Bound.FOLLOWING;
  }

  private static String text(SqlNode node, Bound bound) {
    return switch (bound) {
      case UNBOUNDED_PRECEDING -> "UNBOUNDED PRECEDING";
      case UNBOUNDED_FOLLOWING -> "UNBOUNDED FOLLOWING";
      case CURRENT_ROW -> "CURRENT ROW";
      default -> ((SqlCall) node).operand(0).toSqlString(c -> c.withQuoteAllIdentifiers(false)).getSql()
          + " " + bound.name();
    };
  }

  private static boolean negative(SqlNode node) {
    if (!(node instanceof SqlCall call) || (node.getKind() != SqlKind.PRECEDING && node.getKind() != SqlKind.FOLLOWING)) {
      return false;
    }
    SqlNode offset = call.operand(0);
    return offset.getKind() == SqlKind.MINUS_PREFIX
        || (offset instanceof SqlNumericLiteral n && n.bigDecimalValue() != null && n.bigDecimalValue().signum() < 0);
  }

  /** {@code rel} with each projection that computes windowed expressions split into a window and projections. */
  static RelNode toWindows(RelNode rel) {
    HepPlanner planner = new HepPlanner(HepProgram.builder()
        .addRuleInstance(CoreRules.PROJECT_TO_LOGICAL_PROJECT_AND_WINDOW)
        .build());
    planner.addListener(PlanningControl.listener());
    planner.setRoot(rel);
    return planner.findBestExp();
  }
}
