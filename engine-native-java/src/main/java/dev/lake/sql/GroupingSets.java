package dev.lake.sql;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Rewrites an aggregate over grouping sets ({@code GROUPING SETS}, {@code ROLLUP}, {@code CUBE})
 * or with {@code GROUPING()}, {@code GROUPING_ID()} or {@code GROUP_ID()} calls into plain
 * aggregates, with PostgreSQL's results:
 *
 * <ul>
 *   <li>the non-empty sets are computed by one aggregate reading its input once: each input row
 *       is repeated once per set (a cross join with the sets' numbers), the keys not in its set
 *       replaced by NULL, and grouped by the keys plus the set's number, so rows of different
 *       sets never mix even where their keys are equal (a NULL key of the data and a key absent
 *       from the set stay apart);
 *   <li>the empty set {@code ()} (the grand total of ROLLUP and CUBE) is a global aggregate of
 *       its own, which gives its one row over an empty input too;
 *   <li>{@code GROUPING(a, b, ...)} (and {@code GROUPING_ID}) is the bit mask of the arguments
 *       not in the row's set, the first argument the most significant bit; {@code GROUP_ID()}
 *       counts the earlier repetitions of the same set.
 * </ul>
 *
 * The rows of a set listed twice appear twice. The result has the original aggregate's row type.
 */
final class GroupingSets {

  private GroupingSets() {}

  /** Whether {@code aggregate} needs this rewrite. */
  static boolean needed(Aggregate aggregate) {
    return aggregate.getGroupType() != Aggregate.Group.SIMPLE
        || aggregate.getAggCallList().stream().anyMatch(GroupingSets::isGrouping);
  }

  private static boolean isGrouping(AggregateCall call) {
    SqlKind kind = call.getAggregation().getKind();
    return kind == SqlKind.GROUPING || kind == SqlKind.GROUPING_ID || kind == SqlKind.GROUP_ID;
  }

  /** The plain aggregates (and projections, cross join, union) computing {@code aggregate}. */
  static RelNode expand(Aggregate aggregate) {
    RelBuilder b = RelFactories.LOGICAL_BUILDER.create(aggregate.getCluster(), null);
    RexBuilder rex = b.getRexBuilder();
    List<ImmutableBitSet> sets = aggregate.getGroupSets();
    List<Integer> keys = aggregate.getGroupSet().asList();
    List<AggregateCall> plain = new ArrayList<>();
    for (AggregateCall call : aggregate.getAggCallList()) {
      if (!isGrouping(call)) {
        plain.add(call);
      }
    }
    List<Integer> nonEmpty = new ArrayList<>();
    List<Integer> empty = new ArrayList<>();
    for (int s = 0; s < sets.size(); s++) {
      (sets.get(s).isEmpty() ? empty : nonEmpty).add(s);
    }
    List<RelNode> parts = new ArrayList<>();
    if (!nonEmpty.isEmpty()) {
      parts.add(grouped(aggregate, b, rex, sets, keys, plain, nonEmpty));
    }
    for (int s : empty) {
      parts.add(total(aggregate, b, rex, sets, keys, plain, s));
    }
    for (RelNode part : parts) {
      b.push(part);
    }
    if (parts.size() > 1) {
      b.union(true, parts.size());
    }
    return b.build();
  }

  /** The non-empty sets {@code which}, by one aggregate over the input repeated once per set. */
  private static RelNode grouped(Aggregate aggregate, RelBuilder b, RexBuilder rex,
      List<ImmutableBitSet> sets, List<Integer> keys, List<AggregateCall> plain, List<Integer> which) {
    RelNode input = aggregate.getInput();
    int m = input.getRowType().getFieldCount();
    RelDataType intType = rex.getTypeFactory().createSqlType(SqlTypeName.INTEGER);
    b.push(input);
    if (which.size() > 1) {
      // One row per set, numbered 0..: the cross join repeats each input row once per set.
      List<List<org.apache.calcite.rex.RexLiteral>> rows = new ArrayList<>();
      for (int n = 0; n < which.size(); n++) {
        rows.add(List.of(rex.makeExactLiteral(BigDecimal.valueOf(n), intType)));
      }
      b.values(rows, rex.getTypeFactory().builder().add("grouping$set", intType).build());
      b.join(JoinRelType.INNER, rex.makeLiteral(true));
    }
    // Input columns, then each key (NULL where its set lacks it), then the set's number.
    RexNode number = which.size() > 1 ? b.field(m) : rex.makeExactLiteral(BigDecimal.ZERO, intType);
    List<RexNode> projected = new ArrayList<>();
    for (int i = 0; i < m; i++) {
      projected.add(b.field(i));
    }
    for (int key : keys) {
      List<RexNode> having = new ArrayList<>();
      for (int n = 0; n < which.size(); n++) {
        if (sets.get(which.get(n)).get(key)) {
          having.add(b.equals(number, rex.makeExactLiteral(BigDecimal.valueOf(n), intType)));
        }
      }
      RexNode value = b.field(key);
      RelDataType nullable = rex.getTypeFactory().createTypeWithNullability(value.getType(), true);
      if (having.size() == which.size()) {
        projected.add(rex.makeCast(nullable, value, true, false));
      } else if (having.isEmpty()) {
        projected.add(rex.makeNullLiteral(nullable));
      } else {
        projected.add(rex.makeCall(SqlStdOperatorTable.CASE, b.or(having),
            rex.makeCast(nullable, value, true, false), rex.makeNullLiteral(nullable)));
      }
    }
    projected.add(number);
    b.project(projected);
    RelNode repeated = b.build();
    ImmutableBitSet group = ImmutableBitSet.range(m, m + keys.size() + 1);
    RelNode grouped = LogicalAggregate.create(repeated, aggregate.getHints(), group, null, plain);
    b.push(grouped);
    // Keys, then the calls in their original order.
    List<RexNode> out = new ArrayList<>();
    for (int k = 0; k < keys.size(); k++) {
      out.add(b.field(k));
    }
    RexNode setNumber = b.field(keys.size());
    int next = keys.size() + 1;
    for (AggregateCall call : aggregate.getAggCallList()) {
      if (!isGrouping(call)) {
        out.add(b.field(next++));
        continue;
      }
      List<RexNode> caseArgs = new ArrayList<>();
      for (int n = 0; n < which.size(); n++) {
        RexNode value = groupingValue(call, sets, which.get(n), rex);
        if (which.size() == 1) {
          caseArgs.add(value);
          break;
        }
        if (n < which.size() - 1) {
          caseArgs.add(b.equals(setNumber, rex.makeExactLiteral(BigDecimal.valueOf(n), intType)));
        }
        caseArgs.add(value);
      }
      out.add(caseArgs.size() == 1 ? caseArgs.getFirst()
          : rex.makeCall(SqlStdOperatorTable.CASE, caseArgs));
    }
    return typed(b, out, aggregate, rex);
  }

  /** The empty set at index {@code s}: a global aggregate, all keys NULL. */
  private static RelNode total(Aggregate aggregate, RelBuilder b, RexBuilder rex,
      List<ImmutableBitSet> sets, List<Integer> keys, List<AggregateCall> plain, int s) {
    RelNode global = LogicalAggregate.create(aggregate.getInput(), aggregate.getHints(),
        ImmutableBitSet.of(), null, plain);
    b.push(global);
    List<RexNode> out = new ArrayList<>();
    List<org.apache.calcite.rel.type.RelDataTypeField> fields = aggregate.getRowType().getFieldList();
    for (int k = 0; k < keys.size(); k++) {
      out.add(rex.makeNullLiteral(fields.get(k).getType()));
    }
    int next = 0;
    for (AggregateCall call : aggregate.getAggCallList()) {
      out.add(isGrouping(call) ? groupingValue(call, sets, s, rex) : b.field(next++));
    }
    return typed(b, out, aggregate, rex);
  }

  /** The value of a GROUPING, GROUPING_ID or GROUP_ID call in the rows of set {@code s}. */
  private static RexNode groupingValue(AggregateCall call, List<ImmutableBitSet> sets, int s, RexBuilder rex) {
    ImmutableBitSet set = sets.get(s);
    long value = 0;
    if (call.getAggregation().getKind() == SqlKind.GROUP_ID) {
      for (int earlier = 0; earlier < s; earlier++) {
        if (sets.get(earlier).equals(set)) {
          value++;
        }
      }
    } else {
      for (int arg : call.getArgList()) {
        value = (value << 1) | (set.get(arg) ? 0 : 1);
      }
    }
    return rex.makeExactLiteral(BigDecimal.valueOf(value), call.getType());
  }

  /** A projection of {@code out} with exactly the aggregate's column names and types. */
  private static RelNode typed(RelBuilder b, List<RexNode> out, Aggregate aggregate, RexBuilder rex) {
    List<org.apache.calcite.rel.type.RelDataTypeField> fields = aggregate.getRowType().getFieldList();
    List<RexNode> cast = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) {
      RexNode e = out.get(i);
      RelDataType want = fields.get(i).getType();
      cast.add(e.getType().equals(want) ? e : rex.makeCast(want, e, true, false));
    }
    b.project(cast, aggregate.getRowType().getFieldNames(), true);
    return b.build();
  }
}
