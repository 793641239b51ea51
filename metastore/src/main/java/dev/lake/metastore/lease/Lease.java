package dev.lake.metastore.lease;

import dev.lake.metastore.Fence;

/**
 * A lease this process holds: its epoch, and the local time until which it may act as leader
 * (the stored expiry minus the clock-drift margin, counted from before the acquiring write was
 * sent).
 */
public record Lease(String key, String holder, long epoch, long validUntilMillis) {

  /** The fence every write made under this lease carries. */
  public Fence fence() {
    return Fence.of(epoch);
  }
}
