package dev.lake.metastore.lease;

import dev.lake.metastore.Fence;
import dev.lake.metastore.FencedException;
import dev.lake.metastore.Keys;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.MetaStoreException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Leader election by a lease record in the {@link MetaStore} (see {@link LeaseRecord}): no
 * consensus of its own, only compare-and-set on one key of an already highly available store.
 *
 * <p>{@link #campaign()} is one step: take the lease if it is vacant or has expired (with the
 * next epoch), renew it if this holder has it, otherwise observe the holder. {@link #start()} runs
 * that step every renew interval on a background thread. Before each write a leader calls
 * {@link #fence()}, which checks the lease is still valid with the clock-drift margin and returns
 * the {@link Fence} to write under; the store then refuses, in the same conditional write, any
 * item last written under a newer epoch, so a leader paused between the check and the write
 * cannot overwrite or undo its successor's writes (see {@link GuardedMetaStore}).
 *
 * <p>All methods are thread-safe. A backend failure during a step leaves the lease as it was
 * locally; it stays usable until its local validity ends, and the next step tries again.
 */
public final class LeaseElection implements AutoCloseable {

  private static final Logger LOG = System.getLogger(LeaseElection.class.getName());
  private static final int MAX_HOLDER_LENGTH = 200;

  private final MetaStore store;
  private final String key;
  private final String holder;
  private final LeaseSettings settings;
  private final Clock clock;
  private final Object lock = new Object();
  /** The lease held, with the exact bytes last written for it; null when not held. */
  private Held held;
  private ScheduledExecutorService loop;

  private record Held(Lease lease, byte[] recordBytes) {}

  /**
   * @param key the lease's key in the store, for example {@code lease/metasrv}
   * @param holder this contender's id, unique per process: see {@link #newHolderId(String)}
   */
  public LeaseElection(MetaStore store, String key, String holder, LeaseSettings settings,
      Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    Keys.checkKey(key);
    this.key = key;
    this.holder = checkHolderId(holder);
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** A holder id unique to this process: {@code <role>@<host>:<pid>:<random>}. */
  public static String newHolderId(String role) {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "unknown-host";
    }
    String id = role + "@" + host + ":" + ProcessHandle.current().pid() + ":"
        + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    return checkHolderId(id.replaceAll("[^\\x21-\\x7e]", "_"));
  }

  static String checkHolderId(String holder) {
    if (holder == null || holder.isEmpty() || holder.length() > MAX_HOLDER_LENGTH
        || !holder.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalArgumentException("a lease holder id is 1.." + MAX_HOLDER_LENGTH
          + " characters of printable ASCII without spaces, got '" + holder + "'");
    }
    return holder;
  }

  public String holder() {
    return holder;
  }

  public String key() {
    return key;
  }

  /**
   * One election step: renews the lease if this holder has it, takes it with the next epoch if it
   * is vacant or expired, and otherwise leaves it.
   *
   * @return the lease if this holder holds it after the step
   * @throws MetaStoreException if the store failed; the local lease stays as it was
   */
  public Optional<Lease> campaign() {
    synchronized (lock) {
      long now = clock.millis();
      Optional<byte[]> currentBytes = store.get(key);
      Optional<LeaseRecord> current = currentBytes.map(bytes -> LeaseRecord.decode(key, bytes));
      long epoch;
      if (current.isEmpty()) {
        epoch = 1;
      } else if (held != null && current.get().holder().equals(holder)
          && current.get().epoch() == held.lease().epoch()) {
        epoch = held.lease().epoch();
      } else if (current.get().expiredAt(now)) {
        epoch = current.get().epoch() + 1;
      } else {
        held = null;
        return Optional.empty();
      }
      LeaseRecord next = new LeaseRecord(holder, epoch, now + settings.ttl().toMillis());
      byte[] nextBytes = next.encode();
      boolean written;
      try {
        written = store.compareAndSet(key, currentBytes, nextBytes, Fence.of(epoch));
      } catch (FencedException e) {
        written = false;
      }
      if (!written) {
        held = null;
        return Optional.empty();
      }
      if (held == null || held.lease().epoch() != epoch) {
        LOG.log(Level.INFO, "{0} took lease {1} with epoch {2}", holder, key, epoch);
      }
      Lease lease = new Lease(key, holder, epoch,
          now + settings.ttl().toMillis() - settings.driftMargin().toMillis());
      held = new Held(lease, nextBytes);
      return Optional.of(lease);
    }
  }

  /**
   * Renews the lease this holder has.
   *
   * @return false if it does not hold it (any more); then it is not leader
   * @throws MetaStoreException if the store failed; the local lease stays as it was
   */
  public boolean renew() {
    synchronized (lock) {
      return held != null && campaign().isPresent();
    }
  }

  /**
   * Gives the lease up at once (expiry 0, epoch kept so epochs keep growing), so a contender can
   * take it without waiting for the TTL. Does nothing if this holder does not hold it.
   */
  public void resign() {
    synchronized (lock) {
      if (held == null) {
        return;
      }
      Held giving = held;
      held = null;
      LeaseRecord vacated = new LeaseRecord(holder, giving.lease().epoch(), 0);
      boolean vacatedNow;
      try {
        vacatedNow = store.compareAndSet(key, Optional.of(giving.recordBytes()), vacated.encode(),
            giving.lease().fence());
      } catch (FencedException e) {
        vacatedNow = false;
      }
      if (vacatedNow) {
        LOG.log(Level.INFO, "{0} resigned lease {1} epoch {2}", holder, key,
            giving.lease().epoch());
      } else {
        LOG.log(Level.DEBUG, "{0} had already lost lease {1} epoch {2}", holder, key,
            giving.lease().epoch());
      }
    }
  }

  /** The lease as stored now: holder, epoch and expiry; empty if never taken. */
  public Optional<LeaseRecord> observe() {
    return store.get(key).map(bytes -> LeaseRecord.decode(key, bytes));
  }

  /** The lease this holder may act under now (by the local clock, with the drift margin). */
  public Optional<Lease> currentLease() {
    synchronized (lock) {
      return held != null && clock.millis() < held.lease().validUntilMillis()
          ? Optional.of(held.lease()) : Optional.empty();
    }
  }

  /**
   * The fence for a write about to be made as leader, after checking the lease is still valid
   * with the drift margin.
   *
   * @throws NotLeaderException if this holder does not hold a valid lease; write nothing
   */
  public Fence fence() {
    synchronized (lock) {
      if (held == null) {
        throw new NotLeaderException(key, holder, "not acquired, lost or resigned");
      }
      long now = clock.millis();
      if (now >= held.lease().validUntilMillis()) {
        throw new NotLeaderException(key, holder, "epoch " + held.lease().epoch()
            + " was valid until " + held.lease().validUntilMillis() + " (expiry minus drift"
            + " margin), now is " + now + "; not renewed in time");
      }
      return held.lease().fence();
    }
  }

  /** Campaigns and renews every renew interval on a background thread until closed. */
  public void start() {
    synchronized (lock) {
      if (loop != null) {
        throw new IllegalStateException("election for " + holder + " already started");
      }
      ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "lease-" + key + "-" + holder);
        thread.setDaemon(true);
        return thread;
      });
      executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      loop = executor;
      loop.scheduleWithFixedDelay(this::step, 0, settings.renewInterval().toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Stops the background thread without resigning, as if this process died: a held lease runs
   * out after its TTL. Waits for a step in progress to finish.
   */
  public void stopWithoutResigning() {
    ScheduledExecutorService stopping;
    synchronized (lock) {
      stopping = loop;
      loop = null;
    }
    if (stopping == null) {
      return;
    }
    stopping.shutdownNow();
    try {
      if (!stopping.awaitTermination(30, TimeUnit.SECONDS)) {
        throw new MetaStoreException("the lease thread of " + holder + " did not stop in 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the background thread and resigns the lease if held. */
  @Override
  public void close() {
    stopWithoutResigning();
    try {
      resign();
    } catch (MetaStoreException e) {
      LOG.log(Level.WARNING, "could not resign lease " + key + " of " + holder
          + "; it runs out after its TTL", e);
    }
  }

  private void step() {
    try {
      campaign();
    } catch (MetaStoreException e) {
      LOG.log(Level.WARNING, "lease step of " + holder + " on " + key + " failed", e);
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "lease step of " + holder + " on " + key + " failed unexpectedly", e);
    }
  }
}
