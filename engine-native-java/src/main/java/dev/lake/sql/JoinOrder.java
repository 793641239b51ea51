package dev.lake.sql;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Orders each region of inner joins left-deep in the order the query names the relations, except
 * that a relation with no join condition to those already joined waits until one that has one
 * has been joined (so {@code FROM part, supplier, lineitem} joins lineitem before supplier instead
 * of forming part x supplier). Lake has no column statistics yet (distinct counts, keys), without
 * which cost-based reordering picks many-to-many joins; the executor still builds the smaller side
 * of each join.
 */
final class JoinOrder {
  private JoinOrder() {}

  static RelNode reorder(RelNode rel, RelBuilder builder) {
    List<RelNode> inputs = new ArrayList<>();
    for (RelNode input : rel.getInputs()) {
      inputs.add(reorder(input, builder));
    }
    if (!(rel instanceof Join join) || join.getJoinType() != JoinRelType.INNER) {
      return inputs.equals(rel.getInputs()) ? rel : rel.copy(rel.getTraitSet(), inputs);
    }
    List<RelNode> leaves = new ArrayList<>();
    List<RexNode> conditions = new ArrayList<>();
    flatten(rel, 0, leaves, conditions, builder);
    if (leaves.size() <= 2) {
      return rel.copy(rel.getTraitSet(), inputs);
    }
    int[] start = new int[leaves.size() + 1];
    for (int i = 0; i < leaves.size(); i++) {
      start[i + 1] = start[i] + leaves.get(i).getRowType().getFieldCount();
    }
    List<ImmutableBitSet> uses = new ArrayList<>();
    for (RexNode c : conditions) {
      ImmutableBitSet fields = RelOptUtil.InputFinder.bits(c);
      ImmutableBitSet.Builder leavesUsed = ImmutableBitSet.builder();
      for (int f : fields) {
        leavesUsed.set(leafOf(start, f));
      }
      uses.add(leavesUsed.build());
    }
    List<Integer> order = new ArrayList<>();
    BitSet placed = new BitSet();
    order.add(0);
    placed.set(0);
    while (order.size() < leaves.size()) {
      int next = -1;
      for (int r = 0; r < leaves.size() && next < 0; r++) {
        if (placed.get(r)) {
          continue;
        }
        for (ImmutableBitSet use : uses) {
          if (use.get(r) && use.cardinality() > 1 && allPlacedOr(use, placed, r)) {
            next = r;
            break;
          }
        }
      }
      if (next < 0) {
        next = placed.nextClearBit(0);
      }
      order.add(next);
      placed.set(next);
    }
    // Global field index -> position in the reordered concatenation.
    int[] position = new int[start[leaves.size()]];
    int at = 0;
    for (int leaf : order) {
      for (int f = start[leaf]; f < start[leaf + 1]; f++) {
        position[f] = at++;
      }
    }
    RexBuilder rex = builder.getRexBuilder();
    boolean[] used = new boolean[conditions.size()];
    BitSet done = new BitSet();
    builder.push(leaves.get(order.getFirst()));
    done.set(order.getFirst());
    for (int i = 1; i < order.size(); i++) {
      int leaf = order.get(i);
      done.set(leaf);
      builder.push(leaves.get(leaf));
      List<RexNode> now = new ArrayList<>();
      for (int c = 0; c < conditions.size(); c++) {
        if (!used[c] && allIn(uses.get(c), done)) {
          used[c] = true;
          now.add(remap(conditions.get(c), position));
        }
      }
      builder.join(JoinRelType.INNER, RexUtil.composeConjunction(rex, now));
    }
    List<RexNode> rest = new ArrayList<>();
    for (int c = 0; c < conditions.size(); c++) {
      if (!used[c]) {
        rest.add(remap(conditions.get(c), position));
      }
    }
    if (!rest.isEmpty()) {
      builder.filter(rest);
    }
    List<RexNode> project = new ArrayList<>();
    for (int f = 0; f < position.length; f++) {
      project.add(builder.field(position[f]));
    }
    builder.project(project, rel.getRowType().getFieldNames(), true);
    return builder.build();
  }

  private static boolean allPlacedOr(ImmutableBitSet use, BitSet placed, int r) {
    for (int l : use) {
      if (l != r && !placed.get(l)) {
        return false;
      }
    }
    return true;
  }

  private static boolean allIn(ImmutableBitSet use, BitSet done) {
    for (int l : use) {
      if (!done.get(l)) {
        return false;
      }
    }
    return true;
  }

  private static int leafOf(int[] start, int field) {
    int leaf = 0;
    while (start[leaf + 1] <= field) {
      leaf++;
    }
    return leaf;
  }

  /** Collects the leaves of an inner-join region in order and its conditions over their fields. */
  private static void flatten(RelNode rel, int offset, List<RelNode> leaves, List<RexNode> conditions,
      RelBuilder builder) {
    if (rel instanceof Join join && join.getJoinType() == JoinRelType.INNER) {
      flatten(join.getLeft(), offset, leaves, conditions, builder);
      flatten(join.getRight(), offset + join.getLeft().getRowType().getFieldCount(), leaves, conditions, builder);
      for (RexNode c : RelOptUtil.conjunctions(join.getCondition())) {
        if (!c.isAlwaysTrue()) {
          conditions.add(RexUtil.shift(c, offset));
        }
      }
    } else {
      leaves.add(reorder(rel, builder));
    }
  }

  private static RexNode remap(RexNode node, int[] position) {
    return node.accept(new RexShuttle() {
      @Override
      public RexNode visitInputRef(RexInputRef ref) {
        return new RexInputRef(position[ref.getIndex()], ref.getType());
      }
    });
  }
}
