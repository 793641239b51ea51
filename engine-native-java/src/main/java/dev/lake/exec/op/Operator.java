package dev.lake.exec.op;

import dev.lake.exec.Batch;

/**
 * A pull-based physical operator. {@link #next()} returns the next non-empty batch or null at
 * the end; the batch stays valid until the following call (see {@link Batch} for ownership).
 * {@link #close()} releases every buffer the operator and its inputs hold, and is safe at any
 * point, including after a failed {@code next()}.
 */
public interface Operator extends AutoCloseable {

  /**
   * @throws dev.lake.exec.ExecutionException on a data error; the operator must still be closed
   */
  Batch next();

  @Override
  void close();
}
