package dev.lake.sql;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelBuilder;

/**
 * {@code INTERSECT} and {@code EXCEPT}, distinct or {@code ALL}, over two or more inputs, as a
 * count per distinct row: every input's rows get one marker column per input (1 in its own, 0 in
 * the others), they are unioned and grouped by all their columns (so NULLs are equal, as set
 * operations require), and the markers summed: {@code c_i} is how often the row occurs in input
 * {@code i}. Then a row is kept
 *
 * <ul>
 *   <li>{@code INTERSECT}: once, when every {@code c_i > 0};
 *   <li>{@code INTERSECT ALL}: {@code min(c_i)} times;
 *   <li>{@code EXCEPT}: once, when {@code c_0 > 0} and every other {@code c_i = 0};
 *   <li>{@code EXCEPT ALL}: {@code c_0 - c_1 - ... - c_n} times, when that is positive (the same
 *       as subtracting the inputs one after the other, left to right).
 * </ul>
 *
 * The input of the {@code ALL} forms' repetition is this rewrite's output: the columns and the
 * multiplicity last (see {@link dev.lake.exec.op.RepeatRowsOperator}).
 */
final class SetOperations {

  private SetOperations() {}

  /**
   * The rows of {@code op} (distinct) or, for the ALL forms, its distinct rows followed by a
   * BIGINT column with each one's multiplicity, only rows whose multiplicity is positive.
   */
  static RelNode counted(SetOp op) {
    RelBuilder b = RelFactories.LOGICAL_BUILDER.create(op.getCluster(), null);
    RexBuilder rex = b.getRexBuilder();
    RelDataType bigint = rex.getTypeFactory().createSqlType(SqlTypeName.BIGINT);
    List<RelNode> inputs = op.getInputs();
    int n = inputs.size();
    int k = op.getRowType().getFieldCount();
    for (int i = 0; i < n; i++) {
      b.push(inputs.get(i));
      List<RexNode> projected = new ArrayList<>(b.fields());
      List<String> names = new ArrayList<>(op.getRowType().getFieldNames());
      for (int j = 0; j < n; j++) {
        projected.add(rex.makeExactLiteral(i == j ? BigDecimal.ONE : BigDecimal.ZERO, bigint));
        names.add("set$count" + j);
      }
      b.project(projected, names, true);
    }
    b.union(true, n);
    List<RelBuilder.AggCall> sums = new ArrayList<>();
    for (int j = 0; j < n; j++) {
      sums.add(b.sum(b.field(k + j)).as("set$count" + j));
    }
    b.aggregate(b.groupKey(b.fields().subList(0, k)), sums);
    RexNode zero = rex.makeExactLiteral(BigDecimal.ZERO, bigint);
    List<RexNode> columns = new ArrayList<>(b.fields().subList(0, k));
    List<RexNode> counts = new ArrayList<>(b.fields().subList(k, k + n));
    boolean intersect = op instanceof Intersect;
    if (!op.all) {
      List<RexNode> conditions = new ArrayList<>();
      for (int j = 0; j < n; j++) {
        conditions.add(intersect || j == 0 ? b.greaterThan(counts.get(j), zero) : b.equals(counts.get(j), zero));
      }
      b.filter(conditions);
      b.project(columns, op.getRowType().getFieldNames(), true);
      return b.build();
    }
    RexNode times = counts.getFirst();
    for (int j = 1; j < n; j++) {
      RexNode c = counts.get(j);
      times = intersect
          ? rex.makeCall(SqlStdOperatorTable.CASE, b.lessThan(c, times), c, times)
          : b.call(SqlStdOperatorTable.MINUS, times, c);
    }
    List<RexNode> out = new ArrayList<>(columns);
    out.add(times);
    List<String> names = new ArrayList<>(op.getRowType().getFieldNames());
    names.add("set$times");
    b.project(out, names, true);
    b.filter(b.greaterThan(b.field(k), zero));
    return b.build();
  }

  /** Whether {@code rel} is an INTERSECT or EXCEPT. */
  static boolean handles(RelNode rel) {
    return rel instanceof Intersect || rel instanceof Minus;
  }
}
