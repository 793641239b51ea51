package dev.lake.sdk;

import java.util.Iterator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * The result of {@link LakeClient#query}: one stream, read once, as Arrow batches
 * ({@link #reader()}) or as rows ({@link #rows()}; both consume the same stream), then close it. Closing releases every Arrow
 * buffer and the server-side statement; it is idempotent.
 */
public interface QueryResult extends AutoCloseable, Iterable<Row> {

  /**
   * The batches of every endpoint, in order, as one reader owned by this result (do not close it
   * separately; closing this result closes it).
   *
   * @throws IllegalStateException if the result is closed
   * @throws LakeException while reading, if the server fails the stream
   */
  ArrowReader reader();

  /**
   * The rows of every endpoint, in order. Iterating may throw {@link LakeException} if the
   * server fails the stream.
   *
   * @throws IllegalStateException if the result is closed
   */
  Iterable<Row> rows();

  @Override
  default Iterator<Row> iterator() {
    return rows().iterator();
  }

  /** Releases the result; never throws. */
  @Override
  void close();
}
