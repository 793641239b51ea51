package dev.lake.exec.fn;

import static dev.lake.exec.fn.Param.VECTOR;

import dev.lake.exec.SqlType;
import dev.lake.exec.expr.VectorKernel;
import java.util.List;

/**
 * Distances between embeddings: lists of numbers of one dimension (a {@code FLOAT[n]} or {@code
 * DOUBLE[n]} column, a list literal, a {@code ?} bound to a list, or {@code '[...]'} cast to a
 * list), with pgvector's names and DuckDB's ({@code array_*}, {@code list_*}) beside them. The
 * result is a DOUBLE computed in double precision; NULL when either list is NULL. Lists of
 * different dimensions, and a NULL element inside a list, are errors naming the function.
 */
public final class VectorFunctions {
  private VectorFunctions() {}

  /** {@code l2_distance(a, b)}: the Euclidean distance, {@code sqrt(sum((a[i] - b[i])^2))}. */
  public static final ScalarFunction L2_DISTANCE = distance(VectorKernel.Metric.L2, "l2_distance",
      "array_distance", "list_distance");

  /**
   * {@code cosine_distance(a, b)}: {@code 1 - a.b / (|a| |b|)}, from 0 (same direction) to 2
   * (opposite); NaN when either vector is all zeros, as in pgvector.
   */
  public static final ScalarFunction COSINE_DISTANCE = distance(VectorKernel.Metric.COSINE, "cosine_distance",
      "array_cosine_distance", "list_cosine_distance");

  /** {@code inner_product(a, b)}: {@code sum(a[i] * b[i])}. */
  public static final ScalarFunction INNER_PRODUCT = distance(VectorKernel.Metric.INNER_PRODUCT, "inner_product",
      "array_inner_product", "list_inner_product");

  static final List<ScalarFunction> ALL = List.of(L2_DISTANCE, COSINE_DISTANCE, INNER_PRODUCT);

  private static ScalarFunction distance(VectorKernel.Metric metric, String name, String... aliases) {
    return Scalar.named(name, aliases)
        .takes(VECTOR, VECTOR)
        .returns(SqlType.Kind.FLOAT64)
        .kernel((args, b, t) -> new VectorKernel(metric, name, args.get(0), args.get(1),
            b.type(0).element(), b.type(1).element()));
  }
}
