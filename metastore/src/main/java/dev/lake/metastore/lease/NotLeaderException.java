package dev.lake.metastore.lease;

import dev.lake.metastore.MetaStoreException;

/**
 * A guarded write was refused before it was sent because this process does not hold a valid
 * lease (never acquired, lost to another holder, resigned, or too close to expiry by the
 * clock-drift margin). Nothing was written. The caller must stop acting as leader.
 */
public final class NotLeaderException extends MetaStoreException {
  private static final long serialVersionUID = 1L;

  public NotLeaderException(String leaseKey, String holder, String why) {
    super(holder + " does not hold the lease '" + leaseKey + "': " + why);
  }
}
