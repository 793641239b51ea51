package dev.lake.metastore;

import java.util.Optional;

/**
 * The key-value store that holds lake's metadata: the table registry, operation records and
 * leases. Keys are printable strings (see {@link Keys}); values are small byte arrays.
 *
 * <p>Every method is atomic on its key, linearizable, and safe to call from many threads.
 * Refusals caused by the caller (bad key, value too large, bad page size or continuation, a
 * {@link FencedException}) are precise subclasses of {@link MetaStoreException} and change
 * nothing. Any other {@code MetaStoreException} means the backend failed and whether a write
 * happened is unknown: the caller re-reads before retrying.
 *
 * <p>Writes are fenced (see {@link Fence}): each item remembers the lease epoch of its last write,
 * including a delete under a positive epoch, which leaves an invisible tombstone carrying it. A
 * write under a lower epoch is refused with {@link FencedException} in the same conditional
 * write, so a superseded leader can neither overwrite nor undo its successor's writes. The
 * overloads without a fence write under {@link Fence#NONE}.
 */
public interface MetaStore extends AutoCloseable {

  /**
   * The value stored under {@code key}, if any.
   *
   * @throws InvalidKeyException if the key breaks {@link Keys}
   */
  Optional<byte[]> get(String key);

  /**
   * One page of the keys starting with {@code prefix}, in ascending byte order.
   *
   * @param continuation empty for the first page, else {@link ScanPage#continuation()} of the
   *     previous page (absent when the scan is complete)
   * @param limit at most this many entries, 1..{@link Keys#MAX_PAGE_SIZE}
   * @throws InvalidContinuationException if the continuation was not produced for this prefix
   * @throws InvalidKeyException if the prefix breaks {@link Keys}
   * @throws IllegalArgumentException if the limit is out of range
   */
  ScanPage scan(String prefix, Optional<String> continuation, int limit);

  /**
   * Writes {@code value} under {@code key} only if the current value is exactly {@code expected}
   * (absent when {@code expected} is empty) and the key was not last written under an epoch
   * above {@code fence}'s. The item then carries {@code fence}'s epoch.
   *
   * @return true if written; false if the current value differs, in which case nothing changed
   * @throws FencedException if the key was last written under a newer epoch; nothing changed
   * @throws InvalidKeyException, ValueTooLargeException for bad input; nothing changed
   */
  boolean compareAndSet(String key, Optional<byte[]> expected, byte[] value, Fence fence);

  /**
   * Deletes {@code key} only if its current value is exactly {@code expected} and the key was not
   * last written under an epoch above {@code fence}'s. Under a positive epoch the key keeps an
   * invisible tombstone with that epoch, so an older leader cannot re-create it.
   *
   * @return true if deleted; false if the value differs or the key is absent
   * @throws FencedException if the key was last written under a newer epoch; nothing changed
   */
  boolean deleteIfEquals(String key, byte[] expected, Fence fence);

  /** {@link #compareAndSet(String, Optional, byte[], Fence)} unfenced ({@link Fence#NONE}). */
  default boolean compareAndSet(String key, Optional<byte[]> expected, byte[] value) {
    return compareAndSet(key, expected, value, Fence.NONE);
  }

  /** {@link #deleteIfEquals(String, byte[], Fence)} unfenced ({@link Fence#NONE}). */
  default boolean deleteIfEquals(String key, byte[] expected) {
    return deleteIfEquals(key, expected, Fence.NONE);
  }

  @Override
  void close();
}
