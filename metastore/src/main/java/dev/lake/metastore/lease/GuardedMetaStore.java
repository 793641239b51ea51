package dev.lake.metastore.lease;

import dev.lake.metastore.Fence;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.ScanPage;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link MetaStore} view for the leader: reads pass through; every write first checks the lease
 * with the drift margin ({@link LeaseElection#fence()}, else {@link NotLeaderException}) and is
 * then sent under the lease's fence, so the store itself refuses it
 * ({@link dev.lake.metastore.FencedException}) if a newer leader has written the key meanwhile.
 * Code written against {@code MetaStore}, like the catalog, becomes a fenced authority by being
 * handed this view.
 *
 * <p>It does not own the store or the election: {@link #close()} closes neither.
 */
public final class GuardedMetaStore implements MetaStore {

  private final MetaStore store;
  private final LeaseElection election;

  public GuardedMetaStore(MetaStore store, LeaseElection election) {
    this.store = Objects.requireNonNull(store, "store");
    this.election = Objects.requireNonNull(election, "election");
  }

  @Override
  public Optional<byte[]> get(String key) {
    return store.get(key);
  }

  @Override
  public ScanPage scan(String prefix, Optional<String> continuation, int limit) {
    return store.scan(prefix, continuation, limit);
  }

  /**
   * Writes under the held lease's fence. {@code fence} must be {@link Fence#NONE} (meaning "the
   * lease's") or the lease's own.
   *
   * @throws NotLeaderException if the lease is not held and valid, or {@code fence} is another
   *     epoch's; nothing written
   */
  @Override
  public boolean compareAndSet(String key, Optional<byte[]> expected, byte[] value, Fence fence) {
    return store.compareAndSet(key, expected, value, leaseFence(fence));
  }

  /** Deletes under the held lease's fence; {@code fence} as for compare-and-set. */
  @Override
  public boolean deleteIfEquals(String key, byte[] expected, Fence fence) {
    return store.deleteIfEquals(key, expected, leaseFence(fence));
  }

  @Override
  public void close() {}

  private Fence leaseFence(Fence given) {
    Objects.requireNonNull(given, "fence");
    Fence lease = election.fence();
    if (!given.equals(Fence.NONE) && !given.equals(lease)) {
      throw new NotLeaderException(election.key(), election.holder(), "the write carries epoch "
          + given.epoch() + " but the held lease has epoch " + lease.epoch());
    }
    return lease;
  }
}
