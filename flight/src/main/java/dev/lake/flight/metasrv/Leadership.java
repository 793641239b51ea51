package dev.lake.flight.metasrv;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.CatalogSettings;
import dev.lake.catalog.Placement;
import dev.lake.catalog.TableRegistry;
import dev.lake.engine.TableEngine;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.lease.GuardedMetaStore;
import dev.lake.metastore.lease.LeaseElection;
import dev.lake.metastore.lease.LeaseRecord;
import dev.lake.metastore.lease.LeaseSettings;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who serves the registry here: this replica while it holds the lease {@value #LEASE_KEY}, else
 * the leader it forwards to. The holder id is {@code <node-id>@<host>:<port>}, so a follower
 * reads the leader's address from the lease record.
 *
 * <p>One thread campaigns every renew interval. On taking the lease it opens the {@link Catalog}
 * over a {@link GuardedMetaStore} (opening reconciles what the predecessor left; every write is
 * then fenced by this lease's epoch); on losing it, it waits for the calls using that catalog to
 * finish (they fail with the fence anyway) and closes it.
 */
final class Leadership implements AutoCloseable {

  static final String LEASE_KEY = "lease/metasrv";
  private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

  private final MetaStore store;
  private final Map<String, TableEngine> engines;
  private final Placement warehouse;
  private final LeaseSettings settings;
  private final Clock clock;
  private final BufferAllocator allocator;
  private final LeaseElection election;
  private final String selfAddress;
  private final ScheduledThreadPoolExecutor loop;
  private final ReentrantReadWriteLock term = new ReentrantReadWriteLock();
  private final Map<String, MetasrvClient> forwarders = new ConcurrentHashMap<>();
  private final ScheduledThreadPoolExecutor maintenanceLoop;
  private final Maintenance maintenance;
  private volatile Catalog catalog;
  /** The lease epoch {@link #catalog} was opened (took over) under. */
  private volatile long catalogEpoch;
  private volatile String leaderAddress;
  private volatile boolean closed;
  private final dev.lake.flight.auth.ServiceCredentials credentials;

  Leadership(MetaStore store, Map<String, TableEngine> engines, Placement warehouse,
      LeaseSettings settings, Clock clock, BufferAllocator allocator, String nodeId,
      String selfAddress, Maintenance maintenance,
      dev.lake.flight.auth.ServiceCredentials credentials) {
    this.credentials = credentials;
    this.store = store;
    this.maintenance = maintenance;
    this.engines = engines;
    this.warehouse = warehouse;
    this.settings = settings;
    this.clock = clock;
    this.allocator = allocator;
    this.selfAddress = selfAddress;
    this.election = new LeaseElection(store, LEASE_KEY, nodeId + "@" + selfAddress, settings,
        clock);
    this.loop = new ScheduledThreadPoolExecutor(1, r -> {
      Thread thread = new Thread(r, "metasrv-lease-" + nodeId);
      thread.setDaemon(true);
      return thread;
    });
    loop.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.maintenanceLoop = new ScheduledThreadPoolExecutor(1, r -> {
      Thread thread = new Thread(r, "metasrv-maintenance-" + nodeId);
      thread.setDaemon(true);
      return thread;
    });
    maintenanceLoop.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /**
   * What the leader maintains, and how often: table compaction and version expiry by {@code
   * policy}, then expiry of finished operation records, each in pages of {@code pageSize}.
   */
  record Maintenance(java.time.Duration interval, dev.lake.engine.MaintenancePolicy policy,
      int pageSize) {}

  void start() {
    loop.scheduleWithFixedDelay(this::step, 0, settings.renewInterval().toMillis(),
        TimeUnit.MILLISECONDS);
    long every = maintenance.interval().toMillis();
    maintenanceLoop.scheduleWithFixedDelay(this::maintainQuietly, every, every,
        TimeUnit.MILLISECONDS);
  }

  /**
   * One maintenance pass if this replica leads: every table (page by page, stopping at a table
   * boundary once the server closes), then the expired operation records.
   *
   * @return the tables whose registry version maintenance advanced; 0 when not leading
   */
  int maintain() {
    int advanced = 0;
    boolean more = true;
    while (more && !closed) {
      term.readLock().lock();
      try {
        Catalog local = catalog;
        if (local == null) {
          return advanced;
        }
        dev.lake.catalog.MaintenancePass pass =
            local.maintain(maintenance.policy(), maintenance.pageSize(), () -> closed);
        advanced += pass.advanced();
        more = pass.more();
      } finally {
        term.readLock().unlock();
      }
    }
    more = true;
    while (more && !closed) {
      term.readLock().lock();
      try {
        Catalog local = catalog;
        if (local == null) {
          return advanced;
        }
        more = local.expireOperations(maintenance.pageSize()).more();
      } finally {
        term.readLock().unlock();
      }
    }
    return advanced;
  }

  private void maintainQuietly() {
    try {
      int advanced = maintain();
      if (advanced > 0) {
        LOG.info("maintenance advanced {} tables", advanced);
      }
    } catch (RuntimeException e) {
      LOG.warn("a maintenance pass of {} failed (the next one retries): {}", election.holder(),
          e.toString());
    }
  }

  /** One election step (also driven by tests): campaign, then take or give up the catalog. */
  void step() {
    if (closed) {
      return;
    }
    try {
      Optional<dev.lake.metastore.lease.Lease> lease = election.campaign();
      if (lease.isPresent()) {
        leaderAddress = selfAddress;
        if (catalog != null && catalogEpoch != lease.get().epoch()) {
          // The lease lapsed and was taken again (no step saw it go): another leader may have
          // written in between, so the catalog's generation and state are not the registry's.
          LOG.info("{} took the lease again with epoch {}; taking over afresh",
              election.holder(), lease.get().epoch());
          stepDown();
        }
        if (catalog == null) {
          catalogEpoch = lease.get().epoch();
          catalog = Catalog.open(new GuardedMetaStore(store, election), engines,
              CatalogSettings.of(warehouse));
          LOG.info("{} leads the registry", election.holder());
        }
        return;
      }
      stepDown();
      leaderAddress = election.observe()
          .filter(record -> !record.expiredAt(clock.millis()))
          .map(LeaseRecord::holder)
          .flatMap(Leadership::address)
          .orElse(null);
    } catch (MetaStoreException e) {
      LOG.warn("lease step of {} failed: {}", election.holder(), e.toString());
      if (election.currentLease().isEmpty()) {
        stepDown();
      }
    } catch (RuntimeException e) {
      LOG.error("lease step of {} failed unexpectedly", election.holder(), e);
      if (election.currentLease().isEmpty()) {
        stepDown();
      }
    }
  }

  boolean isLeader() {
    return catalog != null;
  }

  /** The leader's host:port as last observed, if any lease is live. */
  Optional<String> leaderAddress() {
    return Optional.ofNullable(leaderAddress);
  }

  String holder() {
    return election.holder();
  }

  /**
   * Runs {@code call} against the registry: the local catalog when leading, else the leader
   * through a forwarding client (unless {@code forwarded}: a call is forwarded at most once).
   *
   * <p>Reads too are served by the local catalog only while its lease is valid by this
   * replica's clock: a leader whose lease lapsed unseen by its election step may have a
   * successor, and its in-memory generation would answer "not modified" over the successor's
   * changes.
   *
   * @throws MetasrvStatus.NoLeaderException if no leader is known, this replica's lease lapsed,
   *     or it was forwarded a call it cannot serve; nothing changed
   */
  <T> T run(boolean forwarded, Function<TableRegistry, T> call) {
    return leadingOr(call::apply, () -> forward(forwarded, call));
  }

  private <T> T forward(boolean forwarded, Function<TableRegistry, T> call) {
    if (forwarded) {
      throw new MetasrvStatus.NoLeaderException("this Metasrv replica (" + election.holder()
          + ") does not lead the registry any more; retry");
    }
    String leader = leaderAddress;
    if (leader == null || leader.equals(selfAddress)) {
      throw new MetasrvStatus.NoLeaderException("no Metasrv leader is known yet (lease "
          + LEASE_KEY + " vacant or expired); retry shortly");
    }
    return call.apply(forwarders.computeIfAbsent(leader, address ->
        MetasrvClient.forwarding(URI.create("grpc://" + address), allocator, credentials)));
  }

  /**
   * Runs {@code call} on this replica's catalog while it leads (the term cannot end meanwhile).
   *
   * @throws dev.lake.catalog.RegistryUnavailableException if this replica does not lead, naming
   *     the leader if one is known; nothing changed
   */
  <T> T runLeading(Function<Catalog, T> call) {
    return leadingOr(call, () -> {
      String leader = leaderAddress;
      throw new dev.lake.catalog.RegistryUnavailableException("this Metasrv replica ("
          + election.holder() + ") does not lead the registry; "
          + (leader == null || leader.equals(selfAddress) ? "no leader is known yet, retry shortly"
              : "the leader is " + leader));
    });
  }

  /** {@code call} on the catalog while this replica leads (its term cannot end meanwhile), else {@code otherwise}. */
  private <T> T leadingOr(Function<Catalog, T> call, java.util.function.Supplier<T> otherwise) {
    term.readLock().lock();
    try {
      Catalog local = catalog;
      if (local != null) {
        if (election.currentLease().isEmpty()) {
          throw new MetasrvStatus.NoLeaderException("the lease of this Metasrv replica ("
              + election.holder() + ") lapsed before it was renewed; retry");
        }
        return call.apply(local);
      }
    } finally {
      term.readLock().unlock();
    }
    return otherwise.get();
  }

  private void stepDown() {
    Catalog giving;
    term.writeLock().lock();
    try {
      giving = catalog;
      catalog = null;
    } finally {
      term.writeLock().unlock();
    }
    if (giving != null) {
      LOG.info("{} no longer leads the registry", election.holder());
      giving.close();
    }
  }

  /**
   * Stops campaigning, closes the catalog, then resigns the lease so a follower takes over at
   * once. Call after the server stopped accepting writes and drained the accepted ones.
   */
  @Override
  public void close() {
    closed = true;
    loop.shutdown();
    maintenanceLoop.shutdown();
    try {
      loop.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stepDown();
    election.close();
    List.copyOf(forwarders.values()).forEach(MetasrvClient::close);
    forwarders.clear();
  }

  /**
   * Stops campaigning and closes the catalog without resigning, as a killed process would leave
   * the lease: it runs out after its TTL (tests).
   */
  void abandon() {
    closed = true;
    maintenanceLoop.shutdown();
    // Not shutdownNow: interrupting a store call in flight breaks its connection mid-request,
    // which is not what a test of "the leader stopped renewing" is about.
    loop.shutdown();
    try {
      loop.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stepDown();
    List.copyOf(forwarders.values()).forEach(MetasrvClient::close);
  }

  private static Optional<String> address(String holder) {
    int at = holder.lastIndexOf('@');
    return at < 0 || at == holder.length() - 1 ? Optional.empty()
        : Optional.of(holder.substring(at + 1));
  }
}
