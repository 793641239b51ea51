package dev.lake.metastore;

/**
 * The lease epoch a write is made under. Every item remembers the epoch of the write that last
 * touched it (created, replaced or deleted it); the store refuses, in the same conditional write,
 * any write whose epoch is below that one, with {@link FencedException}. So once a leader with
 * epoch E has written an item, no holder of an older lease can overwrite or undo it, however late
 * its write arrives.
 *
 * <p>{@link #NONE} (epoch 0) is the unfenced writer of development mode, where there is no lease:
 * it may write only items that were never written under a positive epoch. A write never lowers
 * an item's epoch, because a lower one is refused.
 *
 * @param epoch the writer's lease epoch, 0 for unfenced
 */
public record Fence(long epoch) {

  /** Unfenced: epoch 0, the writer of development mode, which holds no lease. */
  public static final Fence NONE = new Fence(0);

  public Fence {
    if (epoch < 0) {
      throw new IllegalArgumentException("a fence epoch is 0 or positive, got " + epoch);
    }
  }

  /** @return the fence of lease epoch {@code epoch} */
  public static Fence of(long epoch) {
    return epoch == 0 ? NONE : new Fence(epoch);
  }

  /** Whether a write under this fence may touch an item last written under {@code itemEpoch}. */
  public boolean admits(long itemEpoch) {
    return itemEpoch <= epoch;
  }
}
