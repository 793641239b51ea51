package dev.lake.sql;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
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
 *
 * <p>Planning time is bounded: a region is flattened without recursion and ordered once (never
 * again as part of an enclosing region); each greedy pass costs about {@code n * (n + 2k)} steps
 * for {@code n} relations and {@code k} key equalities, and when trying every first relation
 * would exceed {@link #BUDGET} steps only the smallest relations are tried as first. A 64-way join
 * is ordered in well under a million steps. Every {@value #CHECK_EVERY} steps the ordering checks
 * whether planning was cancelled ({@link #checkCancelled}).
 */
final class JoinOrder {

  /** Steps one region's ordering may take before fewer first relations are tried. */
  static final long BUDGET = 2_000_000;

  private static final int CHECK_EVERY = 4096;

  private final RelBuilder builder;
  private long steps;
  private long nextCheck;

  private JoinOrder(RelBuilder builder) {
    this.builder = builder;
  }

  /**
   * @throws SqlException CANCELLED if the planning thread is interrupted while joins are ordered
   */
  static RelNode reorder(RelNode rel, RelBuilder builder) {
    return new JoinOrder(builder).visit(rel);
  }

  /** As {@link #reorder}, and the steps the ordering took (for tests that bound the work). */
  static long countSteps(RelNode rel, RelBuilder builder) {
    JoinOrder order = new JoinOrder(builder);
    order.visit(rel);
    return order.steps;
  }

  /** Counts {@code n} steps of work; the one place ordering checks for cancellation. */
  private void step(long n) {
    steps += n;
    if (steps >= nextCheck) {
      nextCheck = steps + CHECK_EVERY;
      checkCancelled();
    }
  }

  private static void checkCancelled() {
    if (Thread.currentThread().isInterrupted()) {
      throw new SqlException(SqlException.Kind.CANCELLED, "planning was cancelled while ordering joins");
    }
  }

  private RelNode visit(RelNode rel) {
    if (rel instanceof Join join && join.getJoinType() == JoinRelType.INNER) {
      return region(join);
    }
    List<RelNode> inputs = new ArrayList<>(rel.getInputs().size());
    for (RelNode input : rel.getInputs()) {
      inputs.add(visit(input));
    }
    return inputs.equals(rel.getInputs()) ? rel : rel.copy(rel.getTraitSet(), inputs);
  }

  /** An inner-join region: its leaves (each ordered inside), its conditions, and then its order. */
  private RelNode region(Join rel) {
    step(1);
    List<RelNode> leaves = new ArrayList<>();
    List<RexNode> conditions = new ArrayList<>();
    flatten(rel, leaves, conditions);
    if (leaves.size() <= 2) {
      return rel.copy(rel.getTraitSet(), leaves);
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
    int[] order = cheapestOrder(leaves, conditions, uses, start,
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
    builder.push(leaves.get(order[0]));
    done.set(order[0]);
    for (int i = 1; i < order.length; i++) {
      int leaf = order[i];
      done.set(leaf);
      builder.push(leaves.get(leaf));
      List<RexNode> now = new ArrayList<>();
      for (int c = 0; c < conditions.size(); c++) {
        if (!used[c] && allIn(uses.get(c), done)) {
          used[c] = true;
          now.add(remap(conditions.get(c), position));
        }
      }
      step(conditions.size());
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

  /**
   * Collects the leaves of an inner-join region left to right (each ordered inside by {@link
   * #visit}) and its conditions over their fields, those of lower joins first, with an explicit
   * stack so a region of any size takes no recursion.
   */
  private void flatten(Join root, List<RelNode> leaves, List<RexNode> conditions) {
    // Post-order (left subtree, right subtree, node) by two stacks.
    Deque<Object[]> pending = new ArrayDeque<>();
    Deque<Object[]> postOrder = new ArrayDeque<>();
    pending.push(new Object[] {root, 0});
    while (!pending.isEmpty()) {
      Object[] item = pending.pop();
      postOrder.push(item);
      if (item[0] instanceof Join join && join.getJoinType() == JoinRelType.INNER) {
        int offset = (Integer) item[1];
        pending.push(new Object[] {join.getLeft(), offset});
        pending.push(new Object[] {join.getRight(), offset + join.getLeft().getRowType().getFieldCount()});
      }
    }
    while (!postOrder.isEmpty()) {
      Object[] item = postOrder.pop();
      step(1);
      if (item[0] instanceof Join join && join.getJoinType() == JoinRelType.INNER) {
        for (RexNode c : RelOptUtil.conjunctions(join.getCondition())) {
          if (!c.isAlwaysTrue()) {
            conditions.add(RexUtil.shift(c, (Integer) item[1]));
          }
        }
      } else {
        leaves.add(visit((RelNode) item[0]));
      }
    }
  }

  /**
   * A condition {@code $a = $b} between fields of two different leaves, with what the estimates
   * need of it: the smaller of the two columns' domains ({@link Cardinality#tableDistinct}) and
   * each side's distinct keys within it.
   */
  private record KeyPair(int leftLeaf, int rightLeaf, double domain, double leftKeys, double rightKeys) {}

  /**
   * Greedy left-deep ordering from every possible first leaf (within {@link #BUDGET}): each step
   * joins, among the leaves connected to those joined by an equality of columns, the one that
   * gives the smallest estimated result; the cost of an order is the sum over its joins of inputs
   * and output rows. A leaf connected only by other conditions, or not at all, is joined when no
   * other is left. Ties keep the order the query names the relations in.
   */
  private int[] cheapestOrder(List<RelNode> leaves, List<RexNode> conditions,
      List<ImmutableBitSet> uses, int[] start, Cardinality cardinality) {
    int n = leaves.size();
    double[] leafRows = new double[n];
    for (int i = 0; i < n; i++) {
      leafRows[i] = cardinality.rows(leaves.get(i));
    }
    List<KeyPair> keys = new ArrayList<>();
    for (RexNode c : conditions) {
      if ((c.getKind() == SqlKind.EQUALS || c.getKind() == SqlKind.IS_NOT_DISTINCT_FROM)
          && c instanceof RexCall call
          && call.getOperands().get(0) instanceof RexInputRef a
          && call.getOperands().get(1) instanceof RexInputRef b) {
        int la = leafOf(start, a.getIndex());
        int lb = leafOf(start, b.getIndex());
        if (la != lb) {
          double domain = Math.min(cardinality.tableDistinct(leaves.get(la), a.getIndex() - start[la]),
              cardinality.tableDistinct(leaves.get(lb), b.getIndex() - start[lb]));
          keys.add(new KeyPair(la, lb, domain, Math.min(leafRows[la], domain), Math.min(leafRows[lb], domain)));
        }
      }
    }
    // Per leaf: the key pairs it is on, and the conditions over it and other leaves.
    List<List<KeyPair>> keysOf = new ArrayList<>();
    List<List<ImmutableBitSet>> conditionsOf = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keysOf.add(new ArrayList<>());
      conditionsOf.add(new ArrayList<>());
    }
    for (KeyPair k : keys) {
      keysOf.get(k.leftLeaf()).add(k);
      keysOf.get(k.rightLeaf()).add(k);
    }
    for (ImmutableBitSet use : uses) {
      if (use.cardinality() > 1) {
        for (int l : use) {
          conditionsOf.get(l).add(use);
        }
      }
    }
    long perPass = (long) n * (n + 2L * keys.size() + 1);
    Integer[] firsts = new Integer[n];
    for (int i = 0; i < n; i++) {
      firsts[i] = i;
    }
    int tried = n;
    if (perPass * n > BUDGET) {
      // Too many passes: start only from the smallest relations (ties in the query's order).
      java.util.Arrays.sort(firsts, Comparator.comparingDouble(i -> leafRows[i]));
      tried = (int) Math.max(1, BUDGET / perPass);
      java.util.Arrays.sort(firsts, 0, tried);
    }
    int[] best = null;
    double bestCost = Double.MAX_VALUE;
    for (int t = 0; t < tried; t++) {
      int first = firsts[t];
      int[] order = new int[n];
      BitSet placed = new BitSet();
      order[0] = first;
      placed.set(first);
      double rows = leafRows[first];
      double cost = 0;
      for (int size = 1; size < n; size++) {
        PlanningControl.check();
        int next = -1;
        double nextRows = Double.MAX_VALUE;
        for (int x = placed.nextClearBit(0); x < n; x = placed.nextClearBit(x + 1)) {
          List<KeyPair> mine = keysOf.get(x);
          step(1 + mine.size());
          double divisor = 0;
          for (KeyPair k : mine) {
            if (k.leftLeaf() == x && placed.get(k.rightLeaf())) {
              divisor = Math.max(divisor, distinct(k.leftKeys(), k.domain(), rows, leafRows[k.rightLeaf()]));
            } else if (k.rightLeaf() == x && placed.get(k.leftLeaf())) {
              divisor = Math.max(divisor, distinct(k.rightKeys(), k.domain(), rows, leafRows[k.leftLeaf()]));
            }
          }
          if (divisor == 0) {
            continue;
          }
          double out = rows * leafRows[x] / divisor;
          // Equal estimates (common: guessed selectivities) go to the smaller relation.
          if (out < nextRows * 0.999 || (out <= nextRows * 1.001 && leafRows[x] < leafRows[next])) {
            next = x;
            nextRows = out;
          }
        }
        if (next < 0) {
          // Nothing joins by keys: prefer a leaf some condition connects, then the query's order.
          for (int x = placed.nextClearBit(0); x < n && next < 0; x = placed.nextClearBit(x + 1)) {
            step(1 + conditionsOf.get(x).size());
            for (ImmutableBitSet use : conditionsOf.get(x)) {
              if (allPlacedOr(use, placed, x)) {
                next = x;
                break;
              }
            }
          }
          if (next < 0) {
            next = placed.nextClearBit(0);
          }
          nextRows = rows * leafRows[next];
        }
        cost += rows + leafRows[next] + nextRows;
        rows = Math.max(1, nextRows);
        order[size] = next;
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
   * two columns' domains; the joined side's also bounded by the rows joined so far.
   */
  private static double distinct(double keys, double domain, double joinedRows, double joinedLeafRows) {
    double theirs = Math.min(Math.min(joinedRows, joinedLeafRows), domain);
    return Math.max(1, Math.max(keys, theirs));
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
    int leaf = java.util.Arrays.binarySearch(start, field);
    if (leaf >= 0) {
      // A leaf's first field; skip leaves with no fields that start at the same index.
      while (start[leaf + 1] <= field) {
        leaf++;
      }
      return leaf;
    }
    return -leaf - 2;
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
