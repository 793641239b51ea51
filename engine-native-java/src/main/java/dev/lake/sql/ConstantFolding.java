package dev.lake.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexExecutor;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * The constant reduction planning uses: Calcite's, except of list-valued expressions (its code
 * generator cannot cast text to a list, {@code '[1, 2]'::FLOAT[]}; lake's kernels fold those),
 * and with the casts of literals it folded remembered.
 *
 * <p>Calcite simplifies every cast of a literal ({@code l_quantity < 24} compares with
 * {@code CAST(24 AS DECIMAL)}) by generating, compiling (Janino) and running a class, a few
 * milliseconds per statement; the same cast of the same literal gives the same literal, so its
 * result is kept (a bounded number of them), keyed by the expression's digest and type. Casts
 * whose value depends on the session's time zone are not kept.
 */
final class ConstantFolding {
  private ConstantFolding() {}

  /** Folded casts kept; emptied when full (a point lookup's literal differs every time). */
  private static final int MAX_KEPT = 4096;

  private static final Map<String, RexNode> FOLDED_CASTS = new ConcurrentHashMap<>();

  static final RexExecutor EXECUTOR = ConstantFolding::reduce;

  private static void reduce(RexBuilder rexBuilder, List<RexNode> constExps, List<RexNode> reducedValues) {
    for (RexNode e : constExps) {
      if (e.getType().getSqlTypeName() == SqlTypeName.ARRAY) {
        reducedValues.add(e);
        continue;
      }
      String key = castOfLiteral(e) ? e + " from " + ((RexCall) e).getOperands().getFirst().getType().getFullTypeString()
          + " to " + e.getType().getFullTypeString() : null;
      RexNode folded = key == null ? null : FOLDED_CASTS.get(key);
      if (folded == null) {
        List<RexNode> one = new ArrayList<>(1);
        RexUtil.EXECUTOR.reduce(rexBuilder, List.of(e), one);
        folded = one.getFirst();
        if (key != null && folded instanceof RexLiteral && folded.getType().equals(e.getType())) {
          if (FOLDED_CASTS.size() >= MAX_KEPT) {
            FOLDED_CASTS.clear();
          }
          FOLDED_CASTS.put(key, folded);
        }
      }
      reducedValues.add(folded);
    }
  }

  /** A cast of a literal between types whose conversion does not depend on the session. */
  private static boolean castOfLiteral(RexNode e) {
    return e instanceof RexCall call && call.getKind() == SqlKind.CAST
        && call.getOperands().size() == 1
        && call.getOperands().getFirst() instanceof RexLiteral literal
        && sessionIndependent(call.getType()) && sessionIndependent(literal.getType());
  }

  private static boolean sessionIndependent(RelDataType type) {
    return switch (type.getSqlTypeName()) {
      case TIME_WITH_LOCAL_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE, TIME_TZ, TIMESTAMP_TZ -> false;
      default -> true;
    };
  }
}
