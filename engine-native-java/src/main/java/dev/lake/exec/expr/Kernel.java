package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import java.util.List;

/**
 * A compiled expression: computes its value for every live row of a batch in one typed loop per
 * operator. Kernels of one query run on one thread at a time.
 */
public interface Kernel {

  /**
   * Evaluates over the live rows of {@code batch}; element {@code i} of the result belongs to
   * the {@code i}-th live row.
   *
   * @throws dev.lake.exec.ExecutionException on a data error (division by zero, overflow, bad cast)
   */
  Col eval(Batch batch);

  /** Compiles a bound expression tree (without aggregate calls) into a kernel tree. */
  static Kernel compile(Expr expr) {
    return new KernelCompiler(List.of()).compile(expr);
  }

  /**
   * Compiles expressions that are evaluated over the same batches: a subexpression they share
   * (a column read, an arithmetic term) is computed once per batch and its result reused.
   */
  static List<Kernel> compileShared(List<Expr> exprs) {
    return compileShared(exprs, false);
  }

  /**
   * As {@link #compileShared(List)}; with {@code recycle}, floating-point arithmetic writes each
   * batch's result into the arrays of its previous one (no allocation per batch). Only for a
   * consumer that is done with every value of one batch, and keeps no reference to its columns,
   * before it evaluates the next batch (an aggregate's arguments; a projection, which writes each
   * batch's values into its output vectors).
   */
  static List<Kernel> compileShared(List<Expr> exprs, boolean recycle) {
    KernelCompiler compiler = new KernelCompiler(exprs, recycle);
    return exprs.stream().map(compiler::compile).toList();
  }
}
