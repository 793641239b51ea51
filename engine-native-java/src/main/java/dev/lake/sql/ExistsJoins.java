package dev.lake.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Turns correlated {@code EXISTS} / {@code NOT EXISTS} subqueries into semi and anti joins before
 * general decorrelation. Calcite removes such a subquery into a correlate whose right side is
 * {@code SELECT DISTINCT TRUE FROM r WHERE c} with {@code c} referring to the outer row; its
 * decorrelator then evaluates the whole outer query a second time to collect the outer values
 * (in TPC-H Q21, a four-table join three times). A semi join of the outer rows with {@code r} on
 * {@code c}, outer references becoming columns of the left input, needs no such copy; it hashes
 * on the equalities in {@code c} and checks the rest on the pairs found.
 *
 * <p>An inner correlate (EXISTS) keeps the outer rows with a match and its marker column is TRUE
 * for them: a semi join plus a constant TRUE. A left correlate (NOT EXISTS, or EXISTS under OR)
 * keeps every outer row with a marker that is TRUE or NULL; it is rewritten only when the filter
 * above it requires {@code marker IS NULL} (anti join, marker NULL) or {@code marker IS NOT NULL}
 * (semi join, marker TRUE) as a top-level conjunct, so every row that survives that filter has
 * the same marker as before.
 */
final class ExistsJoins {
  private ExistsJoins() {}

  static RelNode rewrite(RelNode rel, RexBuilder rexBuilder) {
    return rel.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        if (other instanceof Filter filter) {
          List<RexNode> conjuncts = RelOptUtil.conjunctions(filter.getCondition());
          RelNode input = rewriteChain(filter.getInput(), conjuncts, rexBuilder);
          RelNode rewritten = input == filter.getInput() ? filter
              : filter.copy(filter.getTraitSet(), input, filter.getCondition());
          return super.visit(rewritten);
        }
        if (other instanceof Correlate) {
          RelNode rewritten = rewriteChain(other, List.of(), rexBuilder);
          return super.visit(rewritten);
        }
        return super.visit(other);
      }
    });
  }

  /** Rewrites {@code rel} and the correlates nested in its left inputs; same row type. */
  private static RelNode rewriteChain(RelNode rel, List<RexNode> filterConjuncts, RexBuilder rexBuilder) {
    if (!(rel instanceof Correlate correlate)) {
      return rel;
    }
    RelNode left = rewriteChain(correlate.getLeft(), filterConjuncts, rexBuilder);
    Match match = match(correlate);
    if (match == null) {
      return left == correlate.getLeft() ? rel
          : correlate.copy(correlate.getTraitSet(), List.of(left, correlate.getRight()));
    }
    int marker = left.getRowType().getFieldCount();
    JoinRelType type;
    boolean markerTrue;
    if (correlate.getJoinType() == JoinRelType.INNER) {
      type = JoinRelType.SEMI;
      markerTrue = true;
    } else if (correlate.getJoinType() == JoinRelType.LEFT && requires(filterConjuncts, SqlKind.IS_NULL, marker)) {
      type = JoinRelType.ANTI;
      markerTrue = false;
    } else if (correlate.getJoinType() == JoinRelType.LEFT && requires(filterConjuncts, SqlKind.IS_NOT_NULL, marker)) {
      type = JoinRelType.SEMI;
      markerTrue = true;
    } else {
      return left == correlate.getLeft() ? rel
          : correlate.copy(correlate.getTraitSet(), List.of(left, correlate.getRight()));
    }
    int nLeft = left.getRowType().getFieldCount();
    RexNode condition = match.condition().accept(new RexShuttle() {
      @Override
      public RexNode visitInputRef(RexInputRef ref) {
        return new RexInputRef(ref.getIndex() + nLeft, ref.getType());
      }

      @Override
      public RexNode visitFieldAccess(RexFieldAccess access) {
        if (access.getReferenceExpr() instanceof RexCorrelVariable) {
          return new RexInputRef(access.getField().getIndex(), access.getType());
        }
        return super.visitFieldAccess(access);
      }
    });
    RelNode join = LogicalJoin.create(left, match.source(), List.of(), condition, java.util.Set.of(), type);
    List<RexNode> exprs = new ArrayList<>();
    for (int i = 0; i < nLeft; i++) {
      exprs.add(rexBuilder.makeInputRef(left, i));
    }
    var markerType = correlate.getRowType().getFieldList().get(marker).getType();
    exprs.add(markerTrue ? rexBuilder.makeLiteral(Boolean.TRUE, markerType) : rexBuilder.makeNullLiteral(markerType));
    return LogicalProject.create(join, List.of(), exprs, correlate.getRowType());
  }

  /** {@code SELECT DISTINCT TRUE FROM source WHERE condition}, the condition's outer references all to this correlate. */
  private record Match(RelNode source, RexNode condition) {}

  private static Match match(Correlate correlate) {
    if (!(correlate.getRight() instanceof Aggregate aggregate)
        || !aggregate.getAggCallList().isEmpty()
        || !aggregate.getGroupSet().equals(ImmutableBitSet.of(0))
        || aggregate.getGroupType() != Aggregate.Group.SIMPLE
        || !(aggregate.getInput() instanceof Project project)
        || project.getProjects().size() != 1
        || !(project.getProjects().get(0) instanceof RexLiteral literal)
        || !Boolean.TRUE.equals(literal.getValueAs(Boolean.class))
        || !(project.getInput() instanceof Filter filter)) {
      return null;
    }
    CorrelationId id = correlate.getCorrelationId();
    RexNode condition = filter.getCondition();
    boolean[] foreign = {false};
    condition.accept(new RexShuttle() {
      @Override
      public RexNode visitCorrelVariable(RexCorrelVariable variable) {
        foreign[0] |= !variable.id.equals(id);
        return variable;
      }

      @Override
      public RexNode visitFieldAccess(RexFieldAccess access) {
        foreign[0] |= !(access.getReferenceExpr() instanceof RexCorrelVariable);
        return super.visitFieldAccess(access);
      }

      @Override
      public RexNode visitSubQuery(org.apache.calcite.rex.RexSubQuery subQuery) {
        foreign[0] = true;
        return subQuery;
      }
    });
    if (foreign[0] || !RexUtil.isDeterministic(condition) || hasCorrelation(filter.getInput())) {
      return null;
    }
    // At least one equality must tie the subquery to the outer row, so the join hashes on it;
    // other terms about the outer row (Q21's l2.l_suppkey <> l1.l_suppkey) are checked on the
    // pairs it finds. Without an equality every outer row would meet every subquery row: that
    // is left to the decorrelator. Terms about the subquery alone filter it first.
    List<RexNode> local = new ArrayList<>();
    List<RexNode> onOuter = new ArrayList<>();
    boolean equality = false;
    for (RexNode c : RelOptUtil.conjunctions(condition)) {
      if (!RexUtil.containsCorrelation(c)) {
        local.add(c);
        continue;
      }
      onOuter.add(c);
      equality |= c.getKind() == SqlKind.EQUALS && c instanceof RexCall call
          && isOuterField(call.getOperands().get(0)) != isOuterField(call.getOperands().get(1))
          && (call.getOperands().get(0) instanceof RexInputRef || call.getOperands().get(1) instanceof RexInputRef);
    }
    if (!equality) {
      return null;
    }
    RexBuilder rexBuilder = filter.getCluster().getRexBuilder();
    RelNode source = local.isEmpty() ? filter.getInput()
        : filter.copy(filter.getTraitSet(), filter.getInput(), RexUtil.composeConjunction(rexBuilder, local));
    return new Match(source, RexUtil.composeConjunction(rexBuilder, onOuter));
  }

  private static boolean isOuterField(RexNode node) {
    return node instanceof RexFieldAccess access && access.getReferenceExpr() instanceof RexCorrelVariable;
  }

  private static boolean hasCorrelation(RelNode rel) {
    return !RelOptUtil.getVariablesUsed(rel).isEmpty() || rel instanceof Correlate
        || rel.getInputs().stream().anyMatch(ExistsJoins::hasCorrelation);
  }

  private static boolean requires(List<RexNode> conjuncts, SqlKind kind, int field) {
    for (RexNode c : conjuncts) {
      if (c.getKind() == kind && c instanceof RexCall call
          && call.getOperands().get(0) instanceof RexInputRef ref && ref.getIndex() == field) {
        return true;
      }
    }
    return false;
  }
}
