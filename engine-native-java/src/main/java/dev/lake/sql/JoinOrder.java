package dev.lake.sql;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Orders each region of inner joins left-deep by estimated cost ({@link Cardinality}): from every
 * possible first relation, greedily join next the relation connected by a key equality that
 * gives the smallest result, and keep the cheapest of these orders. A relation with no key
 * condition to those already joined waits until nothing else is left (so {@code FROM part,
 * supplier, lineitem} never forms part x supplier). The executor builds the smaller side of each
 * join.
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
    List<Integer> order = cheapestOrder(leaves, conditions, uses, start,
        new Cardinality(rel.getCluster().getMetadataQuery()));
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

  /** A condition {@code $a = $b} between fields of two different leaves. */
  private record KeyPair(int leftLeaf, int leftField, int rightLeaf, int rightField) {}

  /**
   * Greedy left-deep ordering from every possible first leaf: each step joins, among the leaves
   * connected to those joined by an equality of columns, the one that gives the smallest
   * estimated result; the cost of an order is the sum over its joins of inputs and output rows.
   * A leaf connected only by other conditions, or not at all, is joined when no other is left.
   * Ties keep the order the query names the relations in.
   */
  private static List<Integer> cheapestOrder(List<RelNode> leaves, List<RexNode> conditions,
      List<ImmutableBitSet> uses, int[] start, Cardinality cardinality) {
    List<KeyPair> keys = new ArrayList<>();
    for (RexNode c : conditions) {
      if ((c.getKind() == SqlKind.EQUALS || c.getKind() == SqlKind.IS_NOT_DISTINCT_FROM)
          && c instanceof RexCall call
          && call.getOperands().get(0) instanceof RexInputRef a
          && call.getOperands().get(1) instanceof RexInputRef b) {
        int la = leafOf(start, a.getIndex());
        int lb = leafOf(start, b.getIndex());
        if (la != lb) {
          keys.add(new KeyPair(la, a.getIndex() - start[la], lb, b.getIndex() - start[lb]));
        }
      }
    }
    List<Integer> best = null;
    double bestCost = Double.MAX_VALUE;
    for (int first = 0; first < leaves.size(); first++) {
      List<Integer> order = new ArrayList<>();
      BitSet placed = new BitSet();
      order.add(first);
      placed.set(first);
      double rows = cardinality.rows(leaves.get(first));
      double cost = 0;
      while (order.size() < leaves.size()) {
        PlanningControl.check();
        int next = -1;
        double nextRows = Double.MAX_VALUE;
        for (int x = 0; x < leaves.size(); x++) {
          if (placed.get(x)) {
            continue;
          }
          double divisor = 0;
          for (KeyPair k : keys) {
            if (k.leftLeaf() == x && placed.get(k.rightLeaf())) {
              divisor = Math.max(divisor, distinct(cardinality, leaves, k.leftLeaf(), k.leftField(), rows, k.rightLeaf(), k.rightField()));
            } else if (k.rightLeaf() == x && placed.get(k.leftLeaf())) {
              divisor = Math.max(divisor, distinct(cardinality, leaves, k.rightLeaf(), k.rightField(), rows, k.leftLeaf(), k.leftField()));
            }
          }
          if (divisor == 0) {
            continue;
          }
          double out = rows * cardinality.rows(leaves.get(x)) / divisor;
          // Equal estimates (common: guessed selectivities) go to the smaller relation.
          if (out < nextRows * 0.999
              || (out <= nextRows * 1.001 && cardinality.rows(leaves.get(x)) < cardinality.rows(leaves.get(next)))) {
            next = x;
            nextRows = out;
          }
        }
        if (next < 0) {
          // Nothing joins by keys: prefer a leaf some condition connects, then the query's order.
          for (int x = placed.nextClearBit(0); x < leaves.size() && next < 0; x = placed.nextClearBit(x + 1)) {
            for (ImmutableBitSet use : uses) {
              if (use.get(x) && use.cardinality() > 1 && allPlacedOr(use, placed, x)) {
                next = x;
                break;
              }
            }
          }
          if (next < 0) {
            next = placed.nextClearBit(0);
          }
          nextRows = rows * cardinality.rows(leaves.get(next));
        }
        cost += rows + cardinality.rows(leaves.get(next)) + nextRows;
        rows = Math.max(1, nextRows);
        order.add(next);
        placed.set(next);
      }
      if (cost < bestCost) {
        bestCost = cost;
        best = order;
      }
    }
    return best;
  }

  /**
   * The larger distinct count of the two sides of a key pair, both drawn from the smaller of the
   * two columns' domains ({@link Cardinality#tableDistinct}); the joined side's also bounded by
   * the rows joined so far.
   */
  private static double distinct(Cardinality cardinality, List<RelNode> leaves, int leaf, int field,
      double joinedRows, int joinedLeaf, int joinedField) {
    double domain = Math.min(cardinality.tableDistinct(leaves.get(leaf), field),
        cardinality.tableDistinct(leaves.get(joinedLeaf), joinedField));
    double mine = Math.min(cardinality.rows(leaves.get(leaf)), domain);
    double theirs = Math.min(Math.min(joinedRows, cardinality.rows(leaves.get(joinedLeaf))), domain);
    return Math.max(1, Math.max(mine, theirs));
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
