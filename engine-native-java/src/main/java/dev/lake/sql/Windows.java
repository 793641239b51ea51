package dev.lake.sql;

import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Window functions in planning: which statements have them (they take the relational path) and
 * the rewrite of the converter's windowed expressions ({@code RexOver} inside a projection) into
 * {@code Window} nodes, one group per distinct window, which {@link WindowTranslation} runs.
 */
final class Windows {
  private Windows() {}

  /** Whether the statement calls a function {@code OVER} a window anywhere. */
  static boolean present(SqlNode statement) {
    boolean[] found = {false};
    statement.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlCall call) {
        if (call.getKind() == SqlKind.OVER || call.getKind() == SqlKind.WINDOW) {
          found[0] = true;
          return null;
        }
        return super.visit(call);
      }
    });
    return found[0];
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
