package dev.lake.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * Semi-join reduction of a grouped aggregate that is joined on a group key: in {@code L JOIN
 * (SELECT k, agg(..) FROM x GROUP BY k) a ON L.c = a.k}, only groups whose key some row of
 * {@code L} carries survive the join, and every value of {@code L.c} comes from the filtered
 * table {@code s} that provides column {@code c} (inner joins only narrow it). So {@code x}'s
 * table providing {@code k} may first be semi-joined with {@code s}: the aggregate then groups
 * only the rows that can matter. This is what decorrelated scalar subqueries need (TPC-H Q2's
 * minimum cost per part, Q17's average quantity per part, Q20's quantity per part and supplier):
 * a few thousand filtered parts instead of every row of partsupp or lineitem. Applied only when
 * the estimates say {@code s} is much smaller than the table it reduces.
 */
final class GroupKeyReduction {
  private static final double WORTH_IT = 4;

  private GroupKeyReduction() {}

  static RelNode apply(RelNode rel, RexBuilder rexBuilder) {
    Cardinality cardinality = new Cardinality(rel.getCluster().getMetadataQuery());
    return rel.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        RelNode visited = super.visit(other);
        if (visited instanceof Join join && join.getJoinType() == JoinRelType.INNER) {
          RelNode reduced = reduce(join, cardinality, rexBuilder);
          return reduced == null ? visited : reduced;
        }
        return visited;
      }
    });
  }

  /** A leaf providing a column: a join-free subtree and the column's index in its row. */
  private record Provider(RelNode leaf, int field) {}

  private static RelNode reduce(Join join, Cardinality cardinality, RexBuilder rexBuilder) {
    int nLeft = join.getLeft().getRowType().getFieldCount();
    for (RexNode c : RelOptUtil.conjunctions(join.getCondition())) {
      if (c.getKind() != SqlKind.EQUALS || !(c instanceof RexCall call)
          || !(call.getOperands().get(0) instanceof RexInputRef a)
          || !(call.getOperands().get(1) instanceof RexInputRef b)) {
        continue;
      }
      int l = Math.min(a.getIndex(), b.getIndex());
      int r = Math.max(a.getIndex(), b.getIndex());
      if (l >= nLeft || r < nLeft) {
        continue;
      }
      // The aggregate on either side; the other side provides the keys.
      for (boolean aggregateRight : new boolean[] {true, false}) {
        RelNode aggSide = aggregateRight ? join.getRight() : join.getLeft();
        RelNode keySide = aggregateRight ? join.getLeft() : join.getRight();
        int aggField = aggregateRight ? r - nLeft : l;
        int keyField = aggregateRight ? l : r - nLeft;
        if (!(aggSide instanceof Aggregate agg) || agg.getGroupType() != Aggregate.Group.SIMPLE
            || aggField >= agg.getGroupCount()) {
          continue;
        }
        Provider target = provider(agg.getInput(), agg.getGroupSet().nth(aggField));
        Provider keys = null;
        for (Provider candidate : providers(keySide, keyField)) {
          if (containsFilter(candidate.leaf())
              && (keys == null || cardinality.rows(candidate.leaf()) < cardinality.rows(keys.leaf()))) {
            keys = candidate;
          }
        }
        if (keys == null || target == null
            || cardinality.rows(keys.leaf()) * WORTH_IT > cardinality.rows(target.leaf())) {
          continue;
        }
        int nTarget = target.leaf().getRowType().getFieldCount();
        RexNode on = rexBuilder.makeCall(SqlStdOperatorTable.EQUALS,
            rexBuilder.makeInputRef(target.leaf(), target.field()),
            new RexInputRef(nTarget + keys.field(),
                keys.leaf().getRowType().getFieldList().get(keys.field()).getType()));
        RelNode semi = LogicalJoin.create(target.leaf(), keys.leaf(), List.of(), on, Set.of(), JoinRelType.SEMI);
        RelNode newAgg = agg.copy(agg.getTraitSet(), List.of(replace(agg.getInput(), target.leaf(), semi)));
        List<RelNode> inputs = aggregateRight ? List.of(join.getLeft(), newAgg) : List.of(newAgg, join.getRight());
        return join.copy(join.getTraitSet(), inputs);
      }
    }
    return null;
  }

  /**
   * The join-free subtree of {@code rel} that column {@code field} comes from, followed through
   * inner joins, filters and projections of plain columns; null when it is computed or comes
   * through anything else.
   */
  private static Provider provider(RelNode rel, int field) {
    if (joinFree(rel)) {
      return new Provider(rel, field);
    }
    return switch (rel) {
      case Join join when join.getJoinType() == JoinRelType.INNER -> {
        int nLeft = join.getLeft().getRowType().getFieldCount();
        yield field < nLeft ? provider(join.getLeft(), field) : provider(join.getRight(), field - nLeft);
      }
      case Filter filter -> provider(filter.getInput(), field);
      case Project project when project.getProjects().get(field) instanceof RexInputRef ref ->
          provider(project.getInput(), ref.getIndex());
      default -> null;
    };
  }

  /**
   * Every join-free subtree whose values of the column include all of {@code rel}'s: the column's
   * own origin, and through each inner join's equality {@code a = b} the subtree {@code b} comes
   * from (a row that passed the join has {@code a} equal to some {@code b}).
   */
  private static List<Provider> providers(RelNode rel, int field) {
    List<Provider> out = new ArrayList<>();
    if (joinFree(rel)) {
      out.add(new Provider(rel, field));
      return out;
    }
    switch (rel) {
      case Join join when join.getJoinType() == JoinRelType.INNER -> {
        int nLeft = join.getLeft().getRowType().getFieldCount();
        out.addAll(field < nLeft ? providers(join.getLeft(), field) : providers(join.getRight(), field - nLeft));
        for (RexNode c : RelOptUtil.conjunctions(join.getCondition())) {
          if (c.getKind() == SqlKind.EQUALS && c instanceof RexCall call
              && call.getOperands().get(0) instanceof RexInputRef a
              && call.getOperands().get(1) instanceof RexInputRef b
              && (a.getIndex() == field || b.getIndex() == field)) {
            int other = a.getIndex() == field ? b.getIndex() : a.getIndex();
            if ((other < nLeft) != (field < nLeft)) {
              out.addAll(other < nLeft ? providers(join.getLeft(), other) : providers(join.getRight(), other - nLeft));
            }
          }
        }
      }
      case Filter filter -> out.addAll(providers(filter.getInput(), field));
      case Project project when project.getProjects().get(field) instanceof RexInputRef ref ->
          out.addAll(providers(project.getInput(), ref.getIndex()));
      default -> { }
    }
    return out;
  }

  /** A subtree without joins: scans under filters, projections and groupings. */
  private static boolean joinFree(RelNode rel) {
    return switch (rel) {
      case TableScan scan -> true;
      case Filter filter -> joinFree(filter.getInput());
      case Project project -> joinFree(project.getInput());
      case Aggregate aggregate -> joinFree(aggregate.getInput());
      default -> false;
    };
  }

  private static boolean containsFilter(RelNode rel) {
    return rel instanceof Filter || rel.getInputs().stream().anyMatch(GroupKeyReduction::containsFilter);
  }

  /** {@code root} with the subtree {@code target} (by identity) replaced. */
  private static RelNode replace(RelNode root, RelNode target, RelNode replacement) {
    if (root == target) {
      return replacement;
    }
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode input : root.getInputs()) {
      RelNode r = replace(input, target, replacement);
      changed |= r != input;
      inputs.add(r);
    }
    return changed ? root.copy(root.getTraitSet(), inputs) : root;
  }
}
