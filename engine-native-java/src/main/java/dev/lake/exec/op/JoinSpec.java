package dev.lake.exec.op;

import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What a hash join computes, shared by its build ({@link JoinTable}) and its probes
 * ({@link HashJoinOperator}).
 *
 * @param probeKeys key expressions over the probe rows, cast to the keys' common types
 * @param buildKeys key expressions over the build rows, of the same types
 * @param nullSafe per key: {@code IS NOT DISTINCT FROM} (NULL matches NULL) instead of {@code =}
 * @param residual the non-key condition over probe-then-build columns, or null
 * @param combined probe fields then build fields: the output of INNER, LEFT and FULL, and the input of
 *     {@code residual}
 */
public record JoinSpec(HashJoinOperator.Type type, List<Expr> probeKeys, List<Expr> buildKeys,
    boolean[] nullSafe, Expr residual, List<SqlType> probeTypes, List<SqlType> buildTypes,
    Schema combined) {

  public JoinSpec {
    probeKeys = List.copyOf(probeKeys);
    buildKeys = List.copyOf(buildKeys);
    nullSafe = nullSafe.clone();
    // A null type: a struct or list column, passed through (copied value by value).
    probeTypes = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(probeTypes));
    buildTypes = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(buildTypes));
    if (probeKeys.size() != buildKeys.size() || nullSafe.length != probeKeys.size()) {
      throw new IllegalArgumentException("one probe key, build key and null-safety flag per key");
    }
    if (type.keepsBuildRows() && probeKeys.isEmpty()) {
      throw new IllegalArgumentException(type + " needs a key: the build rows are found by it");
    }
  }

  @Override
  public boolean[] nullSafe() {
    return nullSafe.clone();
  }

  /** Whether the build rows' columns are kept: they are output, or the residual reads them. */
  boolean keepsBuildColumns() {
    return type == HashJoinOperator.Type.INNER || type == HashJoinOperator.Type.LEFT
        || type == HashJoinOperator.Type.FULL || type.keepsBuildRows()
        || residual != null;
  }

  /** Whether a probe row needs only to know that some build row matches (SEMI, ANTI, no residual). */
  boolean firstMatchOnly() {
    return residual == null && (type == HashJoinOperator.Type.SEMI || type == HashJoinOperator.Type.ANTI);
  }

  /** The keys' common types. */
  List<SqlType> keyTypes() {
    return probeKeys.stream().map(Expr::type).toList();
  }
}
