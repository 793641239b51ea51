package dev.lake.sql;

import dev.lake.engine.ColumnStatistics;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.metadata.RelColumnOrigin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;

/**
 * Row-count estimates for ordering joins and choosing which side of a hash join to build.
 * Calcite's default for an equi-join (the product of its inputs times a fixed selectivity) grows
 * with every join, so after two joins any base table looks smaller than the join result. Here an
 * equi-join on {@code a = b} returns {@code |L| |R| / max(ndv(a), ndv(b))}, with distinct counts
 * bounded by the table's metadata ({@link #distinct}); a join without such keys on columns is
 * assumed many-to-one (as large as its larger input). Filters use Calcite's selectivity guesses;
 * a grouping is assumed to keep a quarter of its input.
 */
final class Cardinality {
  private final RelMetadataQuery mq;
  private final Map<RelNode, Double> memo = new HashMap<>();

  Cardinality(RelMetadataQuery mq) {
    this.mq = mq;
  }

  double rows(RelNode rel) {
    Double known = memo.get(rel);
    if (known != null) {
      return known;
    }
    double rows = Math.max(1, estimate(rel));
    memo.put(rel, rows);
    return rows;
  }

  private double estimate(RelNode rel) {
    return switch (rel) {
      case TableScan scan -> scan.getTable().getRowCount();
      case Filter filter -> rows(filter.getInput()) * selectivity(filter.getInput(), filter.getCondition());
      case Project project -> rows(project.getInput());
      case Aggregate aggregate -> aggregate.getGroupSet().isEmpty() ? 1 : rows(aggregate.getInput()) / 4;
      case Sort sort -> sort.fetch instanceof RexLiteral literal && literal.getValueAs(Long.class) != null
          ? Math.min(rows(sort.getInput()), literal.getValueAs(Long.class))
          : rows(sort.getInput());
      case Union union -> union.getInputs().stream().mapToDouble(this::rows).sum();
      case Values values -> values.getTuples().size();
      case Join join -> join(join);
      default -> {
        Double rows = mq.getRowCount(rel);
        yield rows == null ? Double.MAX_VALUE / 4 : rows;
      }
    };
  }

  private double join(Join join) {
    double left = rows(join.getLeft());
    double right = rows(join.getRight());
    int nLeft = join.getLeft().getRowType().getFieldCount();
    // |L join R| = |L| |R| / max(ndv(L.a), ndv(R.b)) for the most selective key pair; further
    // pairs are taken as correlated with it (as in Q5's nation keys), not as independent.
    double divisor = 0;
    double semiFraction = -1; // unknown until a key pair is seen
    for (RexNode c : RelOptUtil.conjunctions(join.getCondition())) {
      if ((c.getKind() == SqlKind.EQUALS || c.getKind() == SqlKind.IS_NOT_DISTINCT_FROM)
          && c instanceof RexCall call
          && call.getOperands().get(0) instanceof RexInputRef a
          && call.getOperands().get(1) instanceof RexInputRef b) {
        int l = Math.min(a.getIndex(), b.getIndex());
        int r = Math.max(a.getIndex(), b.getIndex());
        if (l < nLeft && r >= nLeft) {
          double domain = Math.min(tableDistinct(join.getLeft(), l), tableDistinct(join.getRight(), r - nLeft));
          double leftKeys = Math.min(rows(join.getLeft()), domain);
          double rightKeys = Math.min(rows(join.getRight()), domain);
          divisor = Math.max(divisor, Math.max(leftKeys, rightKeys));
          // A semi join keeps the left rows whose key the right side has.
          double kept = Math.min(1, rightKeys / leftKeys);
          semiFraction = semiFraction < 0 ? kept : Math.min(semiFraction, kept);
        }
      }
    }
    boolean equi = divisor > 0 || RelOptUtil.conjunctions(join.getCondition()).stream()
        .anyMatch(c -> c.getKind() == SqlKind.EQUALS || c.getKind() == SqlKind.IS_NOT_DISTINCT_FROM);
    double inner = divisor > 0 ? left * right / divisor : equi ? Math.max(left, right) : left * right;
    return switch (join.getJoinType()) {
      case SEMI -> left * (semiFraction < 0 ? 0.5 : semiFraction);
      case ANTI -> left * (semiFraction < 0 ? 0.5 : Math.max(0.05, 1 - semiFraction));
      case LEFT -> Math.max(left, inner);
      case RIGHT -> Math.max(right, inner);
      default -> inner;
    };
  }

  /**
   * Estimated distinct values of column {@code field} of {@code rel}: at most its rows, and for a
   * column read from a table, at most that table's non-null rows and, for an integer column, the
   * size of its value range (which is what makes a foreign key's distinct count small).
   */
  double distinct(RelNode rel, int field) {
    return Math.min(rows(rel), tableDistinct(rel, field));
  }

  /**
   * Distinct values of the table column that column {@code field} of {@code rel} comes from (its
   * non-null rows, and the size of an integer column's value range), or the rows of {@code rel}
   * when it is computed. Both sides of an equi-join are taken to draw their keys from the smaller
   * of their two domains (a foreign key's values are among the referenced keys), which is what
   * keeps a sparse key range (TPC-H order keys span four times as many values as there are
   * orders) from making the join look selective.
   */
  double tableDistinct(RelNode rel, int field) {
    double rows = rows(rel);
    RelColumnOrigin origin = mq.getColumnOrigin(rel, field);
    if (origin == null || origin.isDerived()) {
      return rows;
    }
    CalciteTables.LakeTable table = origin.getOriginTable().unwrap(CalciteTables.LakeTable.class);
    if (table == null) {
      return rows;
    }
    String column = table.snapshot.schema().getFields().get(origin.getOriginColumnOrdinal()).getName();
    double base = table.snapshot.rowCount();
    Optional<ColumnStatistics> stats = table.snapshot.statistics(column);
    if (stats.isPresent()) {
      base -= stats.get().nullCount();
      OptionalLong range = stats.get().integralRange();
      if (range.isPresent()) {
        base = Math.min(base, range.getAsLong());
      }
    }
    return Math.max(1, base);
  }

  private double selectivity(RelNode input, RexNode condition) {
    Double s = mq.getSelectivity(input, condition);
    return s == null ? 0.25 : Math.max(1e-6, Math.min(1, s));
  }
}
