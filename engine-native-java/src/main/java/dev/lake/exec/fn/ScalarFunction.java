package dev.lake.exec.fn;

import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Kernel;
import java.util.List;

/**
 * A function from one row's argument values to one value, evaluated a batch at a time by its
 * kernel. Implementations are immutable and shared by every query.
 */
public interface ScalarFunction extends RegisteredFunction {

  /**
   * The type of the result, nullability included, for arguments already converted to a matched
   * signature's parameters. Called by the validator and by the planner with the same binding, so
   * it must depend on nothing else.
   */
  SqlType resultType(Binding args);

  /**
   * The kernel computing the function over batches: {@code args} are the arguments' kernels
   * (their values are of {@code binding}'s types), {@code result} what {@link #resultType}
   * answered. A data error (a negative square root, an overflow) is an {@link
   * dev.lake.exec.ExecutionException} thrown from the kernel's {@code eval}.
   */
  Kernel kernel(List<Kernel> args, Binding binding, SqlType result);
}
