package dev.lake.metastore;

import java.util.Optional;

/**
 * The key-value store that holds lake's metadata: the table registry, operation records and
 * leases. Keys are printable strings (see {@link Keys}); values are small byte arrays.
 *
 * <p>Every method is atomic on its key and safe to call from many threads. Failures of the store
 * itself are {@link MetaStoreException}s; whether a failed write happened is then unknown, and
 * the caller re-reads before retrying.
 */
public interface MetaStore extends AutoCloseable {

  /** The value stored under {@code key}, if any. */
  Optional<byte[]> get(String key);

  /**
   * One page of the keys starting with {@code prefix}, in ascending byte order.
   *
   * @param continuation empty for the first page, else {@link ScanPage#continuation()} of the
   *     previous page
   * @param limit at most this many entries, 1..{@link Keys#MAX_PAGE_SIZE}
   * @throws InvalidContinuationException if the continuation was not produced for this prefix
   */
  ScanPage scan(String prefix, Optional<String> continuation, int limit);

  /**
   * Writes {@code value} under {@code key} only if the current value is exactly {@code expected}
   * (absent when {@code expected} is empty).
   *
   * @return true if written; false if the current value differs, in which case nothing changed
   */
  boolean compareAndSet(String key, Optional<byte[]> expected, byte[] value);

  /**
   * Deletes {@code key} only if its current value is exactly {@code expected}.
   *
   * @return true if deleted; false if the value differs or the key is absent
   */
  boolean deleteIfEquals(String key, byte[] expected);

  @Override
  void close();
}
