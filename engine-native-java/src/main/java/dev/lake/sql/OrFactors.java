package dev.lake.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Derives single-column filters implied by a disjunction. In {@code (n1 = 'FRANCE' AND n2 =
 * 'GERMANY') OR (n1 = 'GERMANY' AND n2 = 'FRANCE')} every branch constrains {@code n1}, so
 * {@code n1 = 'FRANCE' OR n1 = 'GERMANY'} holds whichever branch is true; the same for {@code n2}.
 * The derived terms are added beside the original (which still decides), and being about one
 * column they can be pushed below joins into the scans, where they prune blocks and rows early
 * (TPC-H Q7 and Q19).
 */
final class OrFactors {
  private OrFactors() {}

  static RexNode deriveColumnFilters(RexBuilder rexBuilder, RexNode condition) {
    List<RexNode> conjuncts = RelOptUtil.conjunctions(condition);
    List<RexNode> derived = new ArrayList<>();
    for (RexNode conjunct : conjuncts) {
      if (conjunct.getKind() != SqlKind.OR) {
        continue;
      }
      List<RexNode> branches = RelOptUtil.disjunctions(conjunct);
      // column -> per branch, the branch's terms about that column alone
      Map<Integer, List<List<RexNode>>> byColumn = new LinkedHashMap<>();
      for (int b = 0; b < branches.size(); b++) {
        for (RexNode term : RelOptUtil.conjunctions(branches.get(b))) {
          ImmutableBitSet columns = RelOptUtil.InputFinder.bits(term);
          if (columns.cardinality() != 1 || RexUtil.containsCorrelation(term) || !RexUtil.isDeterministic(term)) {
            continue;
          }
          List<List<RexNode>> perBranch = byColumn.computeIfAbsent(columns.nth(0), c -> {
            List<List<RexNode>> lists = new ArrayList<>();
            for (int i = 0; i < branches.size(); i++) {
              lists.add(new ArrayList<>());
            }
            return lists;
          });
          perBranch.get(b).add(term);
        }
      }
      for (List<List<RexNode>> perBranch : byColumn.values()) {
        if (perBranch.stream().anyMatch(List::isEmpty)) {
          continue; // a branch that says nothing about the column implies nothing about it
        }
        List<RexNode> alternatives = new ArrayList<>();
        for (List<RexNode> terms : perBranch) {
          alternatives.add(RexUtil.composeConjunction(rexBuilder, terms));
        }
        RexNode implied = RexUtil.composeDisjunction(rexBuilder, alternatives);
        if (!conjuncts.contains(implied) && !derived.contains(implied)) {
          derived.add(implied);
        }
      }
    }
    if (derived.isEmpty()) {
      return condition;
    }
    List<RexNode> all = new ArrayList<>(conjuncts);
    all.addAll(derived);
    return RexUtil.composeConjunction(rexBuilder, all);
  }
}
