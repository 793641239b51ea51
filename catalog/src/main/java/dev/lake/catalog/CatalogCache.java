package dev.lake.catalog;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Query process's view of the table registry: a full snapshot of the authority's directory,
 * refreshed by generation, that answers every warm read without calling the authority.
 *
 * <ul>
 *   <li><b>Start.</b> {@link #start} takes a full {@link TableRegistry#snapshot()}; until one
 *       arrives the cache is not {@linkplain #isReady() ready} and its reads throw {@link
 *       RegistryUnavailableException}.
 *   <li><b>Refresh.</b> {@link TableRegistry#snapshotIfChanged} every refresh interval (on a
 *       thread the cache owns) and on demand ({@link #refresh()}).
 *   <li><b>Reads</b> ({@link #lookup}, {@link #namespaces}, {@link #tables}, {@link
 *       #namespaceExists}, {@link #readHandle}) are served from the view. A name missing from it
 *       may be looked up at the authority once (a table another replica has just created), at
 *       most once per name and {@value #MISS_LOOKUPS_PER_REFRESH} names per refresh: between
 *       refreshes a missing name stays missing (negative caching), so a flood of queries on a
 *       missing table cannot flood the authority. Unlike the authority's, this {@link #lookup}
 *       reads the cache.
 *   <li><b>Writes</b> are forwarded to the authority; the record it returns (or the drop) is
 *       applied to the view at once, so an acknowledged write is visible to this process's next
 *       query (read your writes). A snapshot requested before the write was acknowledged never
 *       undoes it, and no refresh moves a table back to an older version of its incarnation.
 *   <li><b>Authority down.</b> Reads keep being served from the last good snapshot; writes fail
 *       with the authority's {@link RegistryUnavailableException}.
 *   <li><b>Readers.</b> A table is read through an immutable view at one (table, incarnation,
 *       version), over one engine handle per incarnation opened with {@link
 *       TableEngine#open}; a handle is closed when its incarnation leaves the view and on
 *       {@link #close()}.
 * </ul>
 *
 * Thread-safe.
 */
public final class CatalogCache implements TableRegistry, AutoCloseable {

  /** The refresh interval of {@link #start(TableRegistry, Map)}. */
  public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(1);
  /** At most this many names missing from the view are looked up at the authority per refresh. */
  public static final int MISS_LOOKUPS_PER_REFRESH = 64;

  private static final System.Logger LOG = System.getLogger(CatalogCache.class.getName());

  /**
   * The cache's counters since it started.
   *
   * @param hits table lookups answered from the view
   * @param misses table lookups of names not in the view (asked at the authority or not)
   * @param authorityCalls calls made to the authority for statements (lookups of names missing
   *     from the view, writes, re-checks after a refusal); refreshes are counted apart
   * @param refreshes refreshes that reached the authority (changed or not)
   * @param refreshFailures refreshes that failed
   * @param snapshotAge time since the authority last confirmed the view current; empty before
   *     the first snapshot
   */
  public record Stats(long hits, long misses, long authorityCalls, long refreshes,
      long refreshFailures, Optional<Duration> snapshotAge) {}

  /** A change this process made (or learnt of by a lookup) that a refresh may not have seen. */
  private record Overlay(Optional<TableEntry> entry, UUID droppedIncarnation, long sequence) {}

  /** The directory as this process sees it; immutable. */
  private record View(long generation, List<String> namespaces, Set<String> namespaceSet,
      Map<TableIdent, TableEntry> tables, Map<String, List<TableEntry>> byNamespace) {

    static View of(long generation, Set<String> explicitNamespaces, Map<TableIdent, TableEntry> tables) {
      TreeSet<String> names = new TreeSet<>(explicitNamespaces);
      TreeMap<String, TreeMap<String, TableEntry>> sorted = new TreeMap<>();
      for (TableEntry entry : tables.values()) {
        names.add(entry.ident().namespace());
        sorted.computeIfAbsent(entry.ident().namespace(), n -> new TreeMap<>())
            .put(entry.ident().name(), entry);
      }
      Map<String, List<TableEntry>> byNamespace = new HashMap<>();
      sorted.forEach((namespace, entries) -> byNamespace.put(namespace, List.copyOf(entries.values())));
      return new View(generation, List.copyOf(names), Set.copyOf(names), Map.copyOf(tables),
          Map.copyOf(byNamespace));
    }

    /** Whether a name may resolve differently: a namespace or table came, went or was replaced. */
    boolean sameShape(View other) {
      if (!namespaceSet.equals(other.namespaceSet) || tables.size() != other.tables.size()) {
        return false;
      }
      for (TableEntry entry : tables.values()) {
        TableEntry that = other.tables.get(entry.ident());
        if (that == null || !that.incarnation().equals(entry.incarnation())) {
          return false;
        }
      }
      return true;
    }
  }

  /** The engine handle of one incarnation and the read view at its latest version asked for. */
  private static final class Reader {
    final TableHandle handle;
    volatile RegisteredTable latest;

    Reader(TableHandle handle) {
      this.handle = handle;
    }

    TableHandle at(TableEntry entry) {
      RegisteredTable view = latest;
      if (view == null || !view.entry().version().equals(entry.version())) {
        view = new RegisteredTable(entry, handle);
        latest = view;
      }
      return view;
    }
  }

  private final TableRegistry authority;
  private final Map<String, TableEngine> engines;
  private final ScheduledExecutorService scheduler;
  private final Object lock = new Object();
  private final Object refreshLock = new Object();
  private final CountDownLatch ready = new CountDownLatch(1);
  private volatile View view;
  // Guarded by lock.
  private RegistrySnapshot base;
  private final Map<TableIdent, Overlay> tableOverlays = new HashMap<>();
  private final Map<String, Long> createdNamespaces = new HashMap<>();
  private final Map<String, Long> droppedNamespaces = new HashMap<>();
  private long sequence;
  private long generation;
  // End guarded by lock.
  private final ConcurrentHashMap<UUID, Reader> readers = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<TableIdent, Boolean> asked = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Boolean> askedNamespaces = new ConcurrentHashMap<>();
  private final AtomicInteger missLookupsLeft = new AtomicInteger(MISS_LOOKUPS_PER_REFRESH);
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder authorityCalls = new LongAdder();
  private final AtomicLong refreshes = new AtomicLong();
  private final AtomicLong refreshFailures = new AtomicLong();
  private volatile long confirmedAtNanos;
  private volatile boolean failing;
  private volatile boolean closed;

  private CatalogCache(TableRegistry authority, Map<String, TableEngine> engines,
      Duration interval) {
    this.authority = Objects.requireNonNull(authority, "authority");
    this.engines = Map.copyOf(engines);
    if (interval == null) {
      this.scheduler = null;
    } else {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("refresh interval must be > 0, got " + interval);
      }
      this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "lake-catalog-cache-refresh");
        thread.setDaemon(true);
        return thread;
      });
    }
  }

  /** As {@link #start(TableRegistry, Map, Duration)} with {@link #DEFAULT_REFRESH_INTERVAL}. */
  public static CatalogCache start(TableRegistry authority, Map<String, TableEngine> engines) {
    return start(authority, engines, DEFAULT_REFRESH_INTERVAL);
  }

  /**
   * Starts a cache over {@code authority}: takes the first snapshot now (if the authority cannot
   * be reached, the refresh thread keeps trying and the cache is not ready meanwhile), then
   * refreshes every {@code interval}.
   *
   * @param engines the engines tables are read with, by name; not closed by the cache
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  public static CatalogCache start(TableRegistry authority, Map<String, TableEngine> engines,
      Duration interval) {
    CatalogCache cache = new CatalogCache(authority, engines, Objects.requireNonNull(interval, "interval"));
    cache.refreshQuietly();
    long millis = Math.max(1, interval.toMillis());
    cache.scheduler.scheduleWithFixedDelay(cache::refreshQuietly, millis, millis, TimeUnit.MILLISECONDS);
    return cache;
  }

  /**
   * A cache that refreshes only when {@link #refresh()} is called (tests, tools); the first
   * snapshot is taken now if the authority can be reached.
   */
  public static CatalogCache unscheduled(TableRegistry authority, Map<String, TableEngine> engines) {
    CatalogCache cache = new CatalogCache(authority, engines, null);
    cache.refreshQuietly();
    return cache;
  }

  /** Whether the cache holds a snapshot, so that it can serve reads. */
  public boolean isReady() {
    return view != null;
  }

  /**
   * Waits until the cache is ready.
   *
   * @return whether it is, false if {@code timeout} passed first
   */
  public boolean awaitReady(Duration timeout) throws InterruptedException {
    return ready.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Asks the authority whether the directory changed since the view's snapshot (the full
   * snapshot if the cache has none yet) and applies the answer.
   *
   * @return whether the view changed
   * @throws RegistryUnavailableException if the authority cannot be reached; the view is kept
   */
  public boolean refresh() {
    return refresh(true);
  }

  /** A refresh; {@code newMissBudget} also ends the negative caching of names asked for. */
  private boolean refresh(boolean newMissBudget) {
    synchronized (refreshLock) {
      long started;
      RegistrySnapshot held;
      synchronized (lock) {
        started = ++sequence;
        held = base;
      }
      Optional<RegistrySnapshot> fresh = held == null
          ? Optional.of(authority.snapshot())
          : authority.snapshotIfChanged(held.generation());
      if (newMissBudget) {
        refreshes.incrementAndGet(); // one asked for by a missing name is an authority call
      }
      confirmedAtNanos = System.nanoTime();
      boolean changed;
      synchronized (lock) {
        fresh.ifPresent(snapshot -> base = snapshot);
        tableOverlays.values().removeIf(overlay -> overlay.sequence() < started);
        createdNamespaces.values().removeIf(sequence -> sequence < started);
        droppedNamespaces.values().removeIf(sequence -> sequence < started);
        changed = rebuild();
      }
      if (newMissBudget) {
        asked.clear();
        askedNamespaces.clear();
        missLookupsLeft.set(MISS_LOOKUPS_PER_REFRESH);
      }
      View current = view;
      if (current != null) {
        retireReaders(current); // also those a reader opened while its incarnation was leaving
      }
      ready.countDown();
      return changed;
    }
  }

  /** The counters since start. */
  public Stats stats() {
    Optional<Duration> age = view == null
        ? Optional.empty()
        : Optional.of(Duration.ofNanos(System.nanoTime() - confirmedAtNanos));
    return new Stats(hits.sum(), misses.sum(), authorityCalls.sum(), refreshes.get(),
        refreshFailures.get(), age);
  }

  /**
   * A number that moves whenever a name may resolve differently in this view: a namespace or
   * table appeared or disappeared, or a table was replaced (not on appends).
   *
   * @throws RegistryUnavailableException if the cache is not ready
   */
  public long directoryGeneration() {
    return view().generation();
  }

  /** Every namespace of the view, sorted. @throws RegistryUnavailableException if not ready */
  public List<String> namespaces() {
    return view().namespaces();
  }

  /**
   * Whether the namespace exists in the view. A namespace the view lacks (one another replica has
   * just created) is asked for by one refresh, under the same bounds as {@link #lookup}'s missing
   * tables: once per name between periodic refreshes, within their budget; an authority that
   * cannot be reached then answers "absent".
   *
   * @throws InvalidNameException if it is not an identifier
   * @throws RegistryUnavailableException if the cache is not ready
   */
  public boolean namespaceExists(String namespace) {
    TableIdent.checkIdentifier("namespace", namespace);
    if (view().namespaceSet().contains(namespace)) {
      return true;
    }
    if (askedNamespaces.containsKey(namespace) || !spendMissLookup()
        || askedNamespaces.putIfAbsent(namespace, Boolean.TRUE) != null) {
      return false;
    }
    try {
      authorityCalls.increment();
      refresh(false);
    } catch (RegistryUnavailableException e) {
      return false;
    }
    return view().namespaceSet().contains(namespace);
  }

  /** Takes one authority look-up of a missing name from this refresh's budget, if any is left. */
  private boolean spendMissLookup() {
    return missLookupsLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  /**
   * The tables of {@code namespace} in the view, sorted by name.
   *
   * @throws InvalidNameException if it is not an identifier
   * @throws RegistryUnavailableException if the cache is not ready
   */
  public List<TableEntry> tables(String namespace) {
    TableIdent.checkIdentifier("namespace", namespace);
    return view().byNamespace().getOrDefault(namespace, List.of());
  }

  /**
   * The record of {@code ident} in the view. A name the view lacks is looked up at the authority
   * if it was not asked for since the last refresh and the refresh's budget of such lookups is
   * not spent; an authority that cannot be reached then answers "absent".
   *
   * @throws RegistryUnavailableException if the cache is not ready
   */
  @Override
  public Optional<TableEntry> lookup(TableIdent ident) {
    View current = view();
    TableEntry entry = current.tables().get(ident);
    if (entry != null) {
      hits.increment();
      return Optional.of(entry);
    }
    misses.increment();
    if (asked.containsKey(ident) || !spendMissLookup()
        || asked.putIfAbsent(ident, Boolean.TRUE) != null) {
      return Optional.empty();
    }
    Optional<TableEntry> found;
    try {
      authorityCalls.increment();
      found = authority.lookup(ident);
    } catch (RegistryUnavailableException e) {
      return Optional.empty();
    }
    found.ifPresent(this::learn);
    return Optional.ofNullable(view().tables().get(ident));
  }

  /**
   * An immutable read view of the table at the version the view records: its current version is
   * that version, whatever the engine holds beyond it. Owned by the cache, not to be closed.
   *
   * @return empty if the table is not in the view (see {@link #lookup})
   * @throws CatalogException if its files cannot be opened
   * @throws RegistryUnavailableException if the cache is not ready
   */
  public Optional<TableHandle> readHandle(TableIdent ident) {
    return lookup(ident).map(entry -> {
      try {
        return readers.computeIfAbsent(entry.incarnation(), any -> new Reader(open(entry)))
            .at(entry);
      } catch (dev.lake.engine.CorruptMetadataException e) {
        throw e.table() != null ? e : e.inTable("lake." + ident);
      }
    });
  }

  /**
   * The incarnation of {@code ident} in the view if its files are at {@code location}: which
   * incarnation a statement planned against a read view at that location meant.
   */
  public Optional<UUID> incarnationAt(TableIdent ident, TableLocation location) {
    TableEntry entry = view().tables().get(ident);
    return entry != null && entry.location().equals(location)
        ? Optional.of(entry.incarnation())
        : Optional.empty();
  }

  /** The engines this process reads tables with, sorted. */
  @Override
  public List<String> engineNames() {
    return List.copyOf(new TreeSet<>(engines.keySet()));
  }

  /** The view as a snapshot, at {@link #directoryGeneration()}; no authority call. */
  @Override
  public RegistrySnapshot snapshot() {
    View current = view();
    List<TableEntry> tables = new ArrayList<>();
    current.namespaces().forEach(n -> tables.addAll(current.byNamespace().getOrDefault(n, List.of())));
    return new RegistrySnapshot(current.generation(), current.namespaces(), tables);
  }

  /** As {@link #snapshot()} unless {@code generation} is still the view's; no authority call. */
  @Override
  public Optional<RegistrySnapshot> snapshotIfChanged(long generation) {
    return view().generation() == generation ? Optional.empty() : Optional.of(snapshot());
  }

  @Override
  public void createNamespace(String namespace) {
    call(() -> {
      authority.createNamespace(namespace);
      return null;
    });
    synchronized (lock) {
      droppedNamespaces.remove(namespace);
      createdNamespaces.put(namespace, ++sequence);
      rebuild();
    }
  }

  @Override
  public void dropNamespace(String namespace, boolean cascade) {
    call(() -> {
      authority.dropNamespace(namespace, cascade);
      return null;
    });
    synchronized (lock) {
      long at = ++sequence;
      createdNamespaces.remove(namespace);
      droppedNamespaces.put(namespace, at);
      View current = view;
      if (current != null) {
        for (TableEntry table : current.byNamespace().getOrDefault(namespace, List.of())) {
          tableOverlays.put(table.ident(), new Overlay(Optional.empty(), table.incarnation(), at));
        }
      }
      rebuild();
    }
  }

  @Override
  public TableEntry create(TableIdent ident, Schema schema, String engine) {
    return applied(ident, () -> authority.create(ident, schema, engine));
  }

  @Override
  public TableEntry createWith(TableIdent ident, Schema schema, String engine,
      AppendOperation operation, ArrowReader batches) {
    return applied(ident, () -> authority.createWith(ident, schema, engine, operation, batches));
  }

  @Override
  public TableEntry append(TableIdent ident, Optional<UUID> incarnation,
      AppendOperation operation, ArrowReader batches) {
    return applied(ident, () -> authority.append(ident, incarnation, operation, batches));
  }

  @Override
  public TableEntry replace(TableIdent ident, Schema schema, AppendOperation operation,
      ArrowReader batches) {
    return applied(ident, () -> authority.replace(ident, schema, operation, batches));
  }

  @Override
  public TableEntry replaceWithEmpty(TableIdent ident, Schema schema) {
    return applied(ident, () -> authority.replaceWithEmpty(ident, schema));
  }

  @Override
  public void drop(TableIdent ident) {
    View before = view;
    TableEntry dropped = before == null ? null : before.tables().get(ident);
    try {
      call(() -> {
        authority.drop(ident);
        return null;
      });
    } catch (TableNotFoundException gone) {
      forget(ident, dropped);
      throw gone;
    }
    forget(ident, dropped);
  }

  /** Applies a drop (the authority's, or its word that the name is not registered). */
  private void forget(TableIdent ident, TableEntry dropped) {
    synchronized (lock) {
      tableOverlays.put(ident, new Overlay(Optional.empty(),
          dropped == null ? null : dropped.incarnation(), ++sequence));
      rebuild();
    }
  }

  /** Stops refreshing and closes every reader's handle. The authority and engines stay open. */
  @Override
  public void close() {
    closed = true;
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
    readers.values().forEach(reader -> reader.handle.close());
    readers.clear();
  }

  private View view() {
    View current = view;
    if (current == null) {
      throw new RegistryUnavailableException("the catalog has no snapshot of the registry yet:"
          + " its authority has not been reached since this server started");
    }
    return current;
  }

  private <T> T call(java.util.function.Supplier<T> write) {
    authorityCalls.increment();
    return write.get();
  }

  /**
   * Runs a write of one table at the authority and applies the record it returns. A refusal
   * saying the view is wrong about the name (it exists, or does not) has the name looked up
   * again, so that the next statement sees what the authority holds.
   */
  private TableEntry applied(TableIdent ident, java.util.function.Supplier<TableEntry> write) {
    TableEntry entry;
    try {
      entry = call(write);
    } catch (TableAlreadyExistsException | TableNotFoundException stale) {
      recheck(ident, stale);
      throw stale;
    }
    synchronized (lock) {
      overlay(entry);
      rebuild();
    }
    return entry;
  }

  private void recheck(TableIdent ident, RuntimeException refusal) {
    Optional<TableEntry> now;
    try {
      authorityCalls.increment();
      now = authority.lookup(ident);
    } catch (RuntimeException e) {
      refusal.addSuppressed(e);
      return;
    }
    synchronized (lock) {
      if (now.isPresent()) {
        overlay(now.get());
      } else {
        tableOverlays.put(ident, new Overlay(Optional.empty(), null, ++sequence));
      }
      rebuild();
    }
  }

  /** A record a lookup found: applied unless the view meanwhile holds the name. */
  private void learn(TableEntry entry) {
    synchronized (lock) {
      if (view != null && !view.tables().containsKey(entry.ident())) {
        overlay(entry);
        rebuild();
      }
    }
  }

  // Guarded by lock. An overlay never replaces one of the same incarnation at a later version.
  private void overlay(TableEntry entry) {
    Overlay existing = tableOverlays.get(entry.ident());
    if (existing != null && existing.entry().isPresent() && olderOrSame(entry, existing.entry().get())
        && !entry.equals(existing.entry().get())) {
      return;
    }
    tableOverlays.put(entry.ident(), new Overlay(Optional.of(entry), null, ++sequence));
  }

  private static boolean olderOrSame(TableEntry candidate, TableEntry held) {
    return candidate.incarnation().equals(held.incarnation())
        && candidate.version().compareTo(held.version()) <= 0;
  }

  /** Recomputes the view from the base snapshot and the overlays; guarded by lock. */
  private boolean rebuild() {
    if (base == null) {
      return false;
    }
    View prior = view;
    Set<String> namespaces = new TreeSet<>(base.namespaces());
    namespaces.removeAll(droppedNamespaces.keySet());
    namespaces.addAll(createdNamespaces.keySet());
    Map<TableIdent, TableEntry> tables = new HashMap<>();
    for (TableEntry entry : base.tables()) {
      tables.put(entry.ident(), entry);
    }
    for (Map.Entry<TableIdent, Overlay> change : tableOverlays.entrySet()) {
      TableIdent ident = change.getKey();
      Overlay overlay = change.getValue();
      TableEntry held = tables.get(ident);
      if (overlay.entry().isPresent()) {
        TableEntry entry = overlay.entry().get();
        if (held == null || !olderOrSame(entry, held) || entry.equals(held)) {
          tables.put(ident, entry);
        }
      } else if (held != null && (overlay.droppedIncarnation() == null
          || overlay.droppedIncarnation().equals(held.incarnation()))) {
        tables.remove(ident);
      }
    }
    if (prior != null) {
      // A view never moves a table back to an older version of the same incarnation.
      for (Map.Entry<TableIdent, TableEntry> table : tables.entrySet()) {
        TableEntry earlier = prior.tables().get(table.getKey());
        if (earlier != null && olderOrSame(table.getValue(), earlier)) {
          table.setValue(earlier);
        }
      }
    }
    View next = View.of(generation, namespaces, tables);
    if (prior != null && next.sameShape(prior) && next.tables().equals(prior.tables())) {
      return false;
    }
    if (prior == null || !next.sameShape(prior)) {
      generation++;
      next = View.of(generation, namespaces, tables);
    }
    view = next;
    retireReaders(next);
    return true;
  }

  /** Closes the handles of incarnations the view no longer holds. */
  private void retireReaders(View current) {
    Set<UUID> live = new java.util.HashSet<>();
    current.tables().values().forEach(entry -> live.add(entry.incarnation()));
    for (Iterator<Map.Entry<UUID, Reader>> it = readers.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<UUID, Reader> reader = it.next();
      if (!live.contains(reader.getKey())) {
        it.remove();
        reader.getValue().handle.close();
      }
    }
  }

  private TableHandle open(TableEntry entry) {
    TableEngine engine = engines.get(entry.engine());
    if (engine == null) {
      throw new CatalogException("table lake." + entry.ident() + " uses table engine '"
          + entry.engine() + "', which this server does not have; available: " + engineNames());
    }
    return engine.open(entry.location()).orElseThrow(() -> new CatalogException(
        "the files of table lake." + entry.ident() + " are missing at " + entry.location()));
  }

  private void refreshQuietly() {
    if (closed) {
      return;
    }
    try {
      refresh();
      if (failing) {
        failing = false;
        LOG.log(System.Logger.Level.INFO, "the registry authority answers again");
      }
    } catch (RuntimeException e) {
      refreshFailures.incrementAndGet();
      if (!failing) {
        failing = true;
        LOG.log(System.Logger.Level.WARNING, "cannot refresh the catalog from the registry"
            + " authority; serving the last snapshot", e);
      }
    } catch (Error e) {
      // Thrown out of a scheduled task it would end every later refresh, silently: the view
      // would stay at this snapshot for good. Report it and let the next refresh try.
      refreshFailures.incrementAndGet();
      failing = true;
      LOG.log(System.Logger.Level.ERROR, "a catalog refresh failed unexpectedly; the next one"
          + " retries", e);
    }
  }
}
