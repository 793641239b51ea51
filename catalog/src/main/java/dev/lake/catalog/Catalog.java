package dev.lake.catalog;

import dev.lake.catalog.OperationRecord.Kind;
import dev.lake.catalog.OperationRecord.State;
import dev.lake.catalog.OperationRecords.Stored;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.CapabilityNotSupportedException;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.EngineException;
import dev.lake.engine.MaintenancePolicy;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.UuidV7;
import dev.lake.engine.Version;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.ScanPage;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The table registry and its write authority: creates, appends to, replaces and drops tables,
 * keeping the registry in a {@link MetaStore} and the data in {@link TableEngine}s.
 *
 * <p>Writes to one table are serialized by this process; a version becomes visible to readers of
 * the registry only when its record's version pointer has been advanced by compare-and-set after
 * the engine made every byte of it durable. Writes carrying an {@link AppendOperation} are
 * exactly-once by its operation id (see docs/metasrv.md): each has an operation record that moves
 * {@code reserved → engine_committed → committed} (or {@code aborted}), an identical retry returns
 * the original result and the same id with another payload is an {@link
 * OperationConflictException}. Drops are persisted procedures ({@link DropTombstone}). Every write
 * goes through the store handed in, so over a fenced leader view of the store the whole authority
 * is fenced. Thread-safe.
 *
 * <p>One catalog is the authority over its store at a time (the leader); {@link #open} is its
 * takeover: it finishes what a predecessor left half-done before serving.
 */
public final class Catalog implements TableRegistry, AutoCloseable {

  private static final System.Logger LOG = System.getLogger(Catalog.class.getName());
  private static final int PAGE = 500;
  /** Bumped by every open: the high half of this authority's {@link #generation()}. */
  static final String AUTHORITY_GENERATION = "gen/authority";

  private final MetaStore store;
  private final Map<String, TableEngine> engines;
  private final Placement placement;
  private final CatalogSettings settings;
  private final Clock clock;
  private final OperationRecords operations;
  private final ConcurrentHashMap<TableIdent, ReentrantLock> writeLocks = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<UUID, TableHandle> handles = new ConcurrentHashMap<>();
  private final Object namespaceLock = new Object();
  /**
   * Attempts at visible records (see {@link VisibleWrites}) since this authority opened: the low
   * half of the generation.
   */
  private final AtomicLong changes = new AtomicLong();
  private volatile long authoritySeed;
  private volatile long takeoverRecordsRead;
  private final Object expiryLock = new Object();
  private final Object maintenanceLock = new Object();
  private Optional<String> expiryCursor = Optional.empty();
  private Optional<String> maintenanceCursor = Optional.empty();

  private Catalog(MetaStore store, Map<String, TableEngine> engines, CatalogSettings settings) {
    // Every attempt at a record a snapshot shows moves the generation (see VisibleWrites).
    this.store = new VisibleWrites(store, changes::incrementAndGet);
    this.engines = Map.copyOf(engines);
    this.placement = settings.placement();
    this.settings = settings;
    this.clock = settings.clock();
    this.operations = new OperationRecords(store);
  }

  /**
   * Opens the registry over {@code store}, with table files under the local {@code warehouse};
   * as {@link #open(MetaStore, Map, CatalogSettings)} with the defaults.
   *
   * @param engines the engines tables may use, by {@link TableEngine#name()}; not closed by the
   *     catalog
   */
  public static Catalog open(MetaStore store, Map<String, TableEngine> engines, Path warehouse) {
    return open(store, engines, CatalogSettings.of(warehouse));
  }

  /**
   * Opens the registry over {@code store} and takes over its authority: finishes every drop a
   * predecessor left half-done (or rolls it back if the table's record was never removed),
   * finishes or aborts every operation it left {@code reserved} or {@code engine_committed}, and
   * rolls forward versions an engine committed after the registry last recorded them (each is
   * complete and durable).
   *
   * @throws dev.lake.metastore.MetaStoreException as the store refuses or fails a write (for a
   *     fenced view: {@code NotLeaderException}, {@code FencedException}); what was finished so
   *     far stays finished, the rest is finished by the next open
   */
  public static Catalog open(MetaStore store, Map<String, TableEngine> engines, CatalogSettings settings) {
    if (engines.isEmpty()) {
      throw new IllegalArgumentException("a catalog needs at least one table engine");
    }
    if (settings.placement().isLocal()) {
      Path root = Path.of(settings.placement().root());
      try {
        Files.createDirectories(root);
      } catch (IOException e) {
        throw new CatalogException("cannot create the warehouse directory " + root, e);
      }
    }
    Catalog catalog = new Catalog(store, engines, settings);
    catalog.authoritySeed = catalog.takeAuthorityGeneration();
    catalog.resumeDrops();
    catalog.resumeRenames();
    catalog.reconcileOperations();
    for (ScanPage.Entry record : catalog.scanRecords(RegistryCodec.TABLE_PREFIX)) {
      TableEntry entry = RegistryCodec.decode(record.key(), record.value());
      try {
        catalog.rollForward(record.value(), entry);
      } catch (dev.lake.engine.CorruptTableException e) {
        // One damaged table must not keep the others from being served: it stays registered
        // and every read of it reports the damage.
        LOG.log(Level.WARNING, "table lake." + entry.ident() + " is damaged and was not rolled forward", e);
      }
    }
    return catalog;
  }

  /** Where this catalog places the tables it creates. */
  public Placement placement() {
    return placement;
  }

  /** The names of the engines tables can be created with. */
  @Override
  public List<String> engineNames() {
    return List.copyOf(new TreeSet<>(engines.keySet()));
  }

  /**
   * Every namespace, sorted: those created with {@link #createNamespace} (empty or not) and
   * those holding at least one table.
   */
  public List<String> namespaces() {
    TreeSet<String> names = new TreeSet<>();
    for (ScanPage.Entry record : scanRecords(RegistryCodec.NAMESPACE_PREFIX)) {
      names.add(record.key().substring(RegistryCodec.NAMESPACE_PREFIX.length()));
    }
    for (TableEntry entry : scan(RegistryCodec.TABLE_PREFIX)) {
      names.add(entry.ident().namespace());
    }
    return List.copyOf(names);
  }

  /** Whether the namespace was created or holds a table. */
  public boolean namespaceExists(String namespace) {
    TableIdent.checkIdentifier("namespace", namespace);
    return store.get(RegistryCodec.namespaceKey(namespace)).isPresent()
        || !store.scan(RegistryCodec.namespacePrefix(namespace), Optional.empty(), 1).entries().isEmpty();
  }

  /**
   * Creates an empty namespace (a SQL schema): its record, so that it exists with no table.
   *
   * @throws NamespaceAlreadyExistsException if it exists (created, or holding tables); nothing
   *     is changed
   * @throws InvalidNameException if the name is not an identifier
   */
  @Override
  public void createNamespace(String namespace) {
    TableIdent.checkIdentifier("namespace", namespace);
    synchronized (namespaceLock) {
      if (namespaceExists(namespace)) {
        throw new NamespaceAlreadyExistsException(namespace);
      }
      if (!store.compareAndSet(RegistryCodec.namespaceKey(namespace), Optional.empty(),
          RegistryCodec.encodeNamespace(namespace, clock.instant()))) {
        throw new NamespaceAlreadyExistsException(namespace);
      }
      bumpDirectoryGeneration();
    }
  }

  /**
   * Drops a namespace. Without {@code cascade} one that holds tables is refused; with it, its
   * tables are dropped one by one first (each as {@link #drop}: a crash part-way leaves some of
   * them dropped, the namespace and the rest in place, and the drop can be repeated).
   *
   * @throws NamespaceNotFoundException if it does not exist
   * @throws NamespaceNotEmptyException if it holds tables and {@code cascade} is false; nothing
   *     is changed
   */
  @Override
  public void dropNamespace(String namespace, boolean cascade) {
    TableIdent.checkIdentifier("namespace", namespace);
    synchronized (namespaceLock) {
      if (!namespaceExists(namespace)) {
        throw new NamespaceNotFoundException(namespace);
      }
      List<TableEntry> tables = tables(namespace);
      List<DeclaredTable> declared = declared(namespace);
      if ((!tables.isEmpty() || !declared.isEmpty()) && !cascade) {
        List<String> names = new ArrayList<>(tables.stream().map(t -> t.ident().name()).toList());
        declared.forEach(d -> names.add(d.ident().name()));
        throw new NamespaceNotEmptyException(namespace, names);
      }
      for (DeclaredTable table : declared) {
        try {
          undeclare(table.ident(), true);
        } catch (TableNotFoundException gone) {
          // adopted or undeclared meanwhile
        }
      }
      for (TableEntry table : tables) {
        try {
          drop(table.ident());
        } catch (TableNotFoundException gone) {
          // dropped meanwhile by another statement: what cascade wanted
        }
      }
      store.get(RegistryCodec.namespaceKey(namespace)).ifPresent(bytes ->
          store.deleteIfEquals(RegistryCodec.namespaceKey(namespace), bytes));
      bumpDirectoryGeneration();
    }
  }

  /** The tables of {@code namespace}, sorted by name; empty if it has none. */
  public List<TableEntry> tables(String namespace) {
    TableIdent.checkIdentifier("namespace", namespace);
    return scan(RegistryCodec.namespacePrefix(namespace));
  }

  /**
   * The directory generation: a number that moves on every create, replace and drop (after the
   * table's record has changed), never on appends. One read of the store.
   */
  public long directoryGeneration() {
    return store.get(RegistryCodec.DIRECTORY_GENERATION)
        .map(b -> Long.parseLong(new String(b, StandardCharsets.US_ASCII)))
        .orElse(0L);
  }

  /**
   * The registry generation: moves on every change a reader of {@link #snapshot()} could see
   * (namespace or table created or dropped, table replaced, version appended or made by
   * maintenance), also when the write's outcome was unknown to the catalog (its reply lost), and
   * otherwise only on attempts that changed nothing (a lost compare-and-set). It costs no store
   * access: the high 32 bits are this authority's number, taken from {@code gen/authority} by one
   * compare-and-set at {@link #open} (so above every predecessor's), the low 32 bits count the
   * attempts this authority made at the records a snapshot shows, each counted once it returned
   * or failed (so after the store applied it).
   */
  public long generation() {
    return (authoritySeed << 32) + changes.get();
  }

  /**
   * The whole directory. Its generation is read before the directory, so a change made during
   * the read yields a snapshot that the next {@link #snapshotIfChanged} replaces.
   */
  @Override
  public RegistrySnapshot snapshot() {
    long generation = generation();
    TreeSet<String> names = new TreeSet<>();
    for (ScanPage.Entry record : scanRecords(RegistryCodec.NAMESPACE_PREFIX)) {
      names.add(record.key().substring(RegistryCodec.NAMESPACE_PREFIX.length()));
    }
    List<TableEntry> tables = new ArrayList<>();
    for (ScanPage.Entry record : scanRecords(RegistryCodec.TABLE_PREFIX)) {
      TableEntry entry = RegistryCodec.decode(record.key(), record.value());
      tables.add(entry);
      names.add(entry.ident().namespace());
    }
    return new RegistrySnapshot(generation, List.copyOf(names), tables);
  }

  /** Empty at once, without reading the store, when {@code generation} is current. */
  @Override
  public Optional<RegistrySnapshot> snapshotIfChanged(long generation) {
    return generation == generation() ? Optional.empty() : Optional.of(snapshot());
  }

  /** The registry record of {@code ident}, if registered. */
  @Override
  public Optional<TableEntry> lookup(TableIdent ident) {
    String key = RegistryCodec.tableKey(ident);
    return store.get(key).map(bytes -> decoded(key, bytes));
  }

  /** A registry record and its decoded entry (immutable), kept per key. */
  private record Decoded(byte[] bytes, TableEntry entry) {}

  private final ConcurrentHashMap<String, Decoded> decoded = new ConcurrentHashMap<>();

  // The entry of a record: the one decoded last for the key when its stored bytes are the same
  // (a lookup on every plan-cache check would otherwise parse the JSON and schema each time).
  private TableEntry decoded(String key, byte[] bytes) {
    Decoded kept = decoded.get(key);
    if (kept != null && java.util.Arrays.equals(kept.bytes(), bytes)) {
      return kept.entry();
    }
    TableEntry entry = RegistryCodec.decode(key, bytes);
    if (decoded.size() > 4096) {
      decoded.clear();
    }
    decoded.put(key, new Decoded(bytes.clone(), entry));
    return entry;
  }

  /**
   * An open handle on the table's current incarnation. The handle is owned by the catalog and
   * stays open until the table is dropped or replaced or the catalog closes; callers must not
   * close it. Readers should read at {@link TableEntry#version()}, not at the handle's latest.
   *
   * @throws TableNotFoundException if the table is not registered
   * @throws CatalogException if its files cannot be opened
   */
  public TableHandle handle(TableEntry entry) {
    return handles.computeIfAbsent(entry.incarnation(), incarnation -> openHandle(entry));
  }

  /**
   * A read-only handle on the table as the registry records it now: its current version is the
   * registry's, so readers never see a version the registry has not made visible. The view is
   * immutable (later appends need a new view); closing it is not needed.
   *
   * @return empty if the table is not registered
   */
  public Optional<TableHandle> readHandle(TableIdent ident) {
    return lookup(ident).map(entry -> {
      try {
        return new RegisteredTable(entry, handle(entry));
      } catch (dev.lake.engine.CorruptMetadataException e) {
        throw e.table() != null ? e : e.inTable("lake." + ident);
      }
    });
  }

  /**
   * Creates an empty table (version 0) with {@code engine}.
   *
   * @throws TableAlreadyExistsException if the name is taken; nothing is changed
   * @throws InvalidNameException if no engine has that name
   */
  @Override
  public TableEntry create(TableIdent ident, Schema schema, String engine) {
    TableEngine tableEngine = engine(engine);
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      requireFree(ident);
      TableEntry entry = createIncarnation(ident, UuidV7.generate(clock), schema, tableEngine);
      if (!store.compareAndSet(RegistryCodec.tableKey(ident), Optional.empty(),
          RegistryCodec.encode(entry))) {
        discard(entry);
        throw new TableAlreadyExistsException(ident);
      }
      bumpDirectoryGeneration();
      return entry;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Registers a table that already exists at {@code location}, written by {@code engine}'s format
   * outside lake (for example a dataset written by stock Lance), at its current version and
   * schema. Its files are not copied or changed.
   *
   * <p>From then on the files are owned by lake like those of a created table: appends go
   * through the registry, and {@link #drop} and {@link #replace} <em>delete them</em>. Versions
   * another writer commits at the location later become visible when a catalog next opens (they
   * are rolled forward like a crash between engine and registry).
   *
   * @return the registered entry
   * @throws InvalidNameException if no engine has that name; nothing is changed
   * @throws TableAlreadyExistsException if the name is taken; nothing is changed
   * @throws InvalidLocationException if no table of that engine is at {@code location}, or
   *     another registered table already uses it, naming the location; nothing is changed
   * @throws dev.lake.engine.CorruptTableException if files are there but do not form a valid
   *     table of that engine; nothing is changed
   */
  public TableEntry register(TableIdent ident, String engine, TableLocation location) {
    TableEngine tableEngine = engine(engine);
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      requireFree(ident);
      for (TableEntry other : scan(RegistryCodec.TABLE_PREFIX)) {
        if (other.location().equals(location)) {
          throw new InvalidLocationException(location, "cannot register lake." + ident + ": " + location
              + " is already the location of table lake." + other.ident() + "; nothing was registered");
        }
      }
      TableHandle handle = tableEngine.open(location).orElseThrow(() -> new InvalidLocationException(
          location, "cannot register lake." + ident + ": no " + engine + " table at " + location
              + "; nothing was registered"));
      TableEntry entry = new TableEntry(ident, UuidV7.generate(clock), tableEngine.name(), location,
          handle.currentVersion(), handle.schema(), clock.instant());
      if (!store.compareAndSet(RegistryCodec.tableKey(ident), Optional.empty(), RegistryCodec.encode(entry))) {
        handle.close(); // the files stay: they are not ours until the record exists
        throw new TableAlreadyExistsException(ident);
      }
      handles.put(entry.incarnation(), handle);
      bumpDirectoryGeneration();
      return entry;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Appends {@code batches} to the table as one new version and advances the registry to it.
   * The reader is consumed, not closed.
   *
   * @return the new version (for a retry of a committed operation: its original version)
   * @throws TableNotFoundException if the table is not registered
   * @throws OperationConflictException if the operation id was used for another write
   * @throws dev.lake.engine.SchemaMismatchException if the batches' schema differs; nothing changed
   * @throws EngineException if the engine fails; no version became visible in the registry
   */
  public Version append(TableIdent ident, AppendOperation operation, ArrowReader batches) {
    return append(ident, Optional.empty(), Optional.empty(), operation, batches).version();
  }

  /**
   * Creates a table holding exactly {@code batches} as its first version, atomically: the
   * registry record is written only after the engine committed the data, so readers (and a
   * restart after a crash) see no table or the whole table, never an empty one. The reader is
   * consumed, not closed. A retry of a committed operation returns the table as it created it.
   *
   * @throws TableAlreadyExistsException if the name is taken; nothing is changed (the files
   *     written for it are removed)
   * @throws InvalidNameException if no engine has that name
   * @throws OperationConflictException if the operation id was used for another write
   */
  @Override
  public TableEntry createWith(TableIdent ident, Schema schema, String engine,
      AppendOperation operation, ArrowReader batches) {
    TableEngine tableEngine = engine(engine);
    String opKey = OperationRecord.key(ident, operation);
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      Prior prior = prior(opKey, Kind.CREATE, ident, operation);
      if (prior.replay().isPresent()) {
        return prior.replay().get();
      }
      Optional<Stored> previous = prior.record();
      requireFree(ident);
      UUID incarnation = UuidV7.generate(clock);
      Stored record = operations.create(opKey, previous, OperationRecord.reserve(Kind.CREATE, ident,
          operation, incarnation, tableEngine.name(), placement.location(ident, incarnation), -1,
          Optional.empty(), clock.instant()));
      TableEntry fresh = createIncarnation(ident, incarnation, schema, tableEngine);
      TableEntry committed = fresh.withVersion(engineAppend(record, fresh, operation, batches, true));
      record = operations.move(record, record.record().engineCommitted(committed.version(), clock.instant()));
      if (!store.compareAndSet(RegistryCodec.tableKey(ident), Optional.empty(),
          RegistryCodec.encode(committed))) {
        if (registeredAs(ident, incarnation)) {
          return committed; // a successor finished this operation (and recorded it)
        }
        discard(fresh);
        operations.move(record, record.record().finished(State.ABORTED, Optional.empty(), clock.instant()));
        throw new TableAlreadyExistsException(ident);
      }
      bumpDirectoryGeneration();
      operations.move(record, record.record().finished(State.COMMITTED, Optional.empty(), clock.instant()));
      return committed;
    } finally {
      lock.unlock();
    }
  }

  /**
   * As {@link #append(TableIdent, AppendOperation, ArrowReader)}, only into the incarnation at
   * {@code expected}: a statement planned against a table that was then dropped (or dropped and
   * created again) does not write into whatever has the name now.
   *
   * @throws TableNotFoundException if the table is not registered, or not at {@code expected}
   */
  public Version append(TableIdent ident, TableLocation expected, AppendOperation operation,
      ArrowReader batches) {
    return append(ident, Optional.empty(), Optional.of(expected), operation, batches).version();
  }

  /**
   * The append commit protocol: verify the operation record (an identical committed one is
   * replayed without writing, another digest is a conflict), CAS-create it {@code reserved},
   * append in the engine, record {@code engine_committed}, CAS-advance the registry pointer,
   * record {@code committed}. A record a failed attempt left {@code reserved} or
   * {@code engine_committed} is continued: the engine is asked first whether it committed the
   * operation, so a retry never appends twice.
   *
   * @throws OperationConflictException if the operation id was used for another write
   */
  @Override
  public TableEntry append(TableIdent ident, Optional<UUID> incarnation,
      AppendOperation operation, ArrowReader batches) {
    return append(ident, incarnation, Optional.empty(), operation, batches);
  }

  private TableEntry append(TableIdent ident, Optional<UUID> incarnation,
      Optional<TableLocation> expected, AppendOperation operation, ArrowReader batches) {
    String opKey = OperationRecord.key(ident, operation);
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      Optional<Stored> previous = operations.read(opKey);
      if (previous.isPresent()) {
        previous.get().record().requireSame(Kind.APPEND, ident, operation);
        if (previous.get().record().state() == State.COMMITTED) {
          return replayed(previous.get().record());
        }
      }
      String key = RegistryCodec.tableKey(ident);
      byte[] bytes = store.get(key).orElseThrow(() -> new TableNotFoundException(ident));
      TableEntry entry = RegistryCodec.decode(key, bytes);
      if (incarnation.isPresent() && !entry.incarnation().equals(incarnation.get())
          || expected.isPresent() && !entry.location().equals(expected.get())) {
        throw new TableNotFoundException(ident);
      }
      Stored record;
      boolean continued = false;
      if (previous.isPresent() && !previous.get().record().state().terminal()
          && previous.get().record().incarnation().equals(entry.incarnation())) {
        record = previous.get(); // a failed attempt's: continued below
        continued = true;
      } else {
        if (previous.isPresent() && !previous.get().record().state().terminal()) {
          previous = Optional.of(resolve(previous.get())); // left for an incarnation now gone
        }
        record = operations.create(opKey, previous, OperationRecord.reserve(Kind.APPEND, ident,
            operation, entry.incarnation(), entry.engine(), entry.location(), entry.version().number(),
            Optional.empty(), clock.instant()));
      }
      Version version;
      if (record.record().state() == State.ENGINE_COMMITTED) {
        version = record.record().resultVersion().orElseThrow(() -> missingEvidence(ident, operation));
      } else {
        Optional<Version> earlier = continued ? reconcileInEngine(entry, operation) : Optional.empty();
        version = earlier.isPresent() ? earlier.get()
            : engineAppend(record, entry, operation, batches, false);
        record = operations.move(record, record.record().engineCommitted(version, clock.instant()));
      }
      TableEntry advanced = advance(ident, entry.incarnation(), version, true).orElseThrow();
      operations.move(record, record.record().finished(State.COMMITTED, Optional.empty(), clock.instant()));
      return advanced.withVersion(version);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Replaces the table with a new incarnation holding {@code schema} and exactly {@code batches}
   * (version 1 of the new incarnation), then removes the old files. Readers see either the old
   * table or the whole new one. A retry of a committed operation returns the table it made.
   *
   * @throws TableNotFoundException if the table is not registered
   * @throws OperationConflictException if the operation id was used for another write
   */
  @Override
  public TableEntry replace(TableIdent ident, Schema schema, AppendOperation operation,
      ArrowReader batches) {
    String opKey = OperationRecord.key(ident, operation);
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      Prior prior = prior(opKey, Kind.REPLACE, ident, operation);
      if (prior.replay().isPresent()) {
        return prior.replay().get();
      }
      Optional<Stored> previous = prior.record();
      String key = RegistryCodec.tableKey(ident);
      byte[] oldBytes = store.get(key).orElseThrow(() -> new TableNotFoundException(ident));
      TableEntry old = RegistryCodec.decode(key, oldBytes);
      TableEngine engine = engine(old.engine());
      UUID incarnation = UuidV7.generate(clock);
      Stored record = operations.create(opKey, previous, OperationRecord.reserve(Kind.REPLACE, ident,
          operation, incarnation, engine.name(), placement.location(ident, incarnation),
          old.version().number(), Optional.of(old.location()), clock.instant()));
      TableEntry fresh = createIncarnation(ident, incarnation, schema, engine);
      TableEntry committed = fresh.withVersion(engineAppend(record, fresh, operation, batches, true));
      record = operations.move(record, record.record().engineCommitted(committed.version(), clock.instant()));
      if (!store.compareAndSet(key, Optional.of(oldBytes), RegistryCodec.encode(committed))) {
        if (registeredAs(ident, incarnation)) {
          return committed; // a successor finished this operation (and recorded it)
        }
        discard(fresh);
        operations.move(record, record.record().finished(State.ABORTED, Optional.empty(), clock.instant()));
        throw new ConcurrentChangeException(ident, "replacing it");
      }
      bumpDirectoryGeneration();
      discard(old);
      operations.move(record, record.record().finished(State.COMMITTED, Optional.empty(), clock.instant()));
      return committed;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Replaces the table with a new empty incarnation holding {@code schema} (its version 0, as
   * {@link #create} makes), then removes the old files: what replacing a table's rows with no
   * rows means. Readers see either the old table or the new empty one.
   *
   * @throws TableNotFoundException if the table is not registered
   * @throws IllegalArgumentException if the engine cannot store the schema; nothing changed
   */
  @Override
  public TableEntry replaceWithEmpty(TableIdent ident, Schema schema) {
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      String key = RegistryCodec.tableKey(ident);
      byte[] oldBytes = store.get(key).orElseThrow(() -> new TableNotFoundException(ident));
      TableEntry old = RegistryCodec.decode(key, oldBytes);
      TableEntry fresh = createIncarnation(ident, UuidV7.generate(clock), schema, engine(old.engine()));
      if (!store.compareAndSet(key, Optional.of(oldBytes), RegistryCodec.encode(fresh))) {
        discard(fresh);
        throw new ConcurrentChangeException(ident, "replacing it");
      }
      bumpDirectoryGeneration();
      discard(old);
      return fresh;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops the table as a persisted procedure: writes the tombstone {@code drop/<ns>/<name>}
   * (incarnation, engine, location), deletes the registry record (the table is gone from then
   * on), deletes the files, deletes the tombstone. Interrupted after the record was deleted, the
   * next {@link #open} (or the next drop of the name) finishes it; interrupted before, the next
   * open rolls it back and the table stays.
   *
   * @throws TableNotFoundException if the table is not registered
   */
  @Override
  public void drop(TableIdent ident) {
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      String tombKey = DropTombstone.key(ident);
      String key = RegistryCodec.tableKey(ident);
      Optional<byte[]> pending = store.get(tombKey);
      Optional<byte[]> bytes = store.get(key);
      Optional<TableEntry> entry = bytes.map(b -> RegistryCodec.decode(key, b));
      if (pending.isPresent()) {
        DropTombstone earlier = DropTombstone.decode(tombKey, pending.get());
        if (entry.isEmpty() || !entry.get().incarnation().equals(earlier.incarnation())) {
          finishDrop(earlier, pending.get()); // an earlier incarnation's drop, interrupted
          pending = Optional.empty();
        }
      }
      if (entry.isEmpty()) {
        throw new TableNotFoundException(ident);
      }
      byte[] tomb = pending.orElseGet(() -> DropTombstone.of(entry.get()).encode());
      if (pending.isEmpty() && !store.compareAndSet(tombKey, Optional.empty(), tomb)) {
        throw new ConcurrentChangeException(ident, "dropping it");
      }
      if (!store.deleteIfEquals(key, bytes.get())) {
        store.deleteIfEquals(tombKey, tomb);
        throw new ConcurrentChangeException(ident, "dropping it");
      }
      bumpDirectoryGeneration();
      finishDrop(DropTombstone.of(entry.get()), tomb);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes finished (committed or aborted) operation records older than the retention horizon,
   * one bounded page per call; the leader calls it periodically. Records still in progress are
   * never removed. A retry after its record expired is a new write.
   *
   * @param pageSize records examined by this call, 1..1000
   */
  public OperationExpiry expireOperations(int pageSize) {
    dev.lake.metastore.Keys.checkPageSize(pageSize);
    Instant horizon = clock.instant().minus(settings.operationRetention());
    synchronized (expiryLock) {
      ScanPage page = store.scan(OperationRecord.PREFIX, expiryCursor, pageSize);
      int removed = 0;
      for (ScanPage.Entry e : page.entries()) {
        OperationRecord record;
        try {
          record = OperationRecord.decode(e.key(), e.value());
        } catch (CatalogException unreadable) {
          LOG.log(Level.WARNING, "operation record " + e.key() + " is unreadable and was kept", unreadable);
          continue;
        }
        if (record.state().terminal() && record.updatedAt().isBefore(horizon)
            && store.deleteIfEquals(e.key(), e.value())) {
          removed++;
        }
      }
      expiryCursor = page.continuation();
      return new OperationExpiry(page.entries().size(), removed, expiryCursor.isPresent());
    }
  }

  /**
   * Compacts and expires table versions as {@code policy} says ({@link TableEngine#maintain}),
   * one bounded page of tables per call, advancing a table's registry pointer by compare-and-set
   * to the version compaction committed (same rows, so readers see no change of content). Tables
   * whose engine cannot maintain tables are skipped, as are tables whose maintenance lost to
   * writers (the next pass tries again). Stops at a table boundary when {@code stop} says so or the
   * thread is interrupted; the next call then starts this page again.
   *
   * @param maxTables tables maintained by this call, 1..1000
   */
  public MaintenancePass maintain(MaintenancePolicy policy, int maxTables, BooleanSupplier stop) {
    dev.lake.metastore.Keys.checkPageSize(maxTables);
    synchronized (maintenanceLock) {
      ScanPage page = store.scan(RegistryCodec.TABLE_PREFIX, maintenanceCursor, maxTables);
      int tables = 0;
      int advanced = 0;
      for (ScanPage.Entry e : page.entries()) {
        if (stop.getAsBoolean() || Thread.currentThread().isInterrupted()) {
          return new MaintenancePass(tables, advanced, true);
        }
        TableEntry entry = RegistryCodec.decode(e.key(), e.value());
        ReentrantLock lock = lockFor(entry.ident());
        lock.lock();
        try {
          Optional<TableEntry> now = lookup(entry.ident());
          if (now.isEmpty() || !now.get().incarnation().equals(entry.incarnation())) {
            continue;
          }
          Optional<Version> made = engine(entry.engine()).maintain(entry.location(), policy);
          tables++;
          if (made.isPresent() && advance(entry.ident(), entry.incarnation(), made.get(), false).isPresent()) {
            advanced++;
          }
        } catch (CapabilityNotSupportedException | CommitConflictException skipped) {
          tables++;
        } finally {
          lock.unlock();
        }
      }
      maintenanceCursor = page.continuation();
      return new MaintenancePass(tables, advanced, maintenanceCursor.isPresent());
    }
  }

  // ---- names reserved before their data, deregistering, renaming, following outside writers ----

  /**
   * Reserves {@code ident} for a table of {@code engine} whose data an outside writer (stock
   * Lance through the Lance Namespace) will create at the returned location, which the placement
   * chooses as for {@link #create}. The name is taken from then on; the table joins the directory
   * when {@link #adopt} finds its data.
   *
   * @throws NamespaceNotFoundException if the namespace does not exist; nothing is changed
   * @throws TableAlreadyExistsException if the name is registered or declared; nothing is changed
   * @throws InvalidNameException if no engine has that name
   */
  public DeclaredTable declare(TableIdent ident, String engine) {
    TableEngine tableEngine = engine(engine);
    if (!namespaceExists(ident.namespace())) {
      throw new NamespaceNotFoundException(ident.namespace());
    }
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      requireFree(ident);
      UUID incarnation = UuidV7.generate(clock);
      DeclaredTable declared = new DeclaredTable(ident, incarnation, tableEngine.name(),
          placement.location(ident, incarnation), clock.instant());
      if (!store.compareAndSet(DeclaredTable.key(ident), Optional.empty(), declared.encode())) {
        throw new TableAlreadyExistsException(ident);
      }
      return declared;
    } finally {
      lock.unlock();
    }
  }

  /** The declaration of {@code ident}, if it is declared and not yet adopted. */
  public Optional<DeclaredTable> declaredTable(TableIdent ident) {
    String key = DeclaredTable.key(ident);
    return store.get(key).map(bytes -> DeclaredTable.decode(key, bytes));
  }

  /** The declared (not yet adopted) tables of {@code namespace}, sorted by name. */
  public List<DeclaredTable> declared(String namespace) {
    TableIdent.checkIdentifier("namespace", namespace);
    List<DeclaredTable> declared = new ArrayList<>();
    for (ScanPage.Entry e : scanRecords(DeclaredTable.namespacePrefix(namespace))) {
      declared.add(DeclaredTable.decode(e.key(), e.value()));
    }
    return declared;
  }

  /** Every declared (not yet adopted) table, sorted by namespace and name. */
  public List<DeclaredTable> allDeclared() {
    List<DeclaredTable> declared = new ArrayList<>();
    for (ScanPage.Entry e : scanRecords(DeclaredTable.PREFIX)) {
      declared.add(DeclaredTable.decode(e.key(), e.value()));
    }
    return declared;
  }

  /**
   * Registers a declared table once its engine finds data at its location, at that data's
   * current version and schema, keeping the declared incarnation; removes the declaration.
   *
   * @return the registered entry; empty if the name is not declared or no data is there yet
   *     (nothing is changed)
   * @throws dev.lake.engine.CorruptTableException if files are there but do not form a table of
   *     the engine; nothing is changed
   */
  public Optional<TableEntry> adopt(TableIdent ident) {
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      String key = DeclaredTable.key(ident);
      Optional<byte[]> bytes = store.get(key);
      if (bytes.isEmpty()) {
        return Optional.empty();
      }
      DeclaredTable declared = DeclaredTable.decode(key, bytes.get());
      Optional<TableHandle> files = engine(declared.engine()).open(declared.location());
      if (files.isEmpty()) {
        return Optional.empty();
      }
      TableEntry entry = new TableEntry(ident, declared.incarnation(), declared.engine(),
          declared.location(), files.get().currentVersion(), files.get().schema(), clock.instant());
      if (!store.compareAndSet(RegistryCodec.tableKey(ident), Optional.empty(), RegistryCodec.encode(entry))) {
        files.get().close();
        throw new ConcurrentChangeException(ident, "registering its declared data");
      }
      handles.put(entry.incarnation(), files.get());
      store.deleteIfEquals(key, bytes.get());
      bumpDirectoryGeneration();
      return Optional.of(entry);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes the declaration of {@code ident}, deleting whatever files were written at its
   * location when {@code deleteFiles}, keeping them otherwise.
   *
   * @return the removed declaration
   * @throws TableNotFoundException if the name is not declared
   */
  public DeclaredTable undeclare(TableIdent ident, boolean deleteFiles) {
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      String key = DeclaredTable.key(ident);
      byte[] bytes = store.get(key).orElseThrow(() -> new TableNotFoundException(ident));
      DeclaredTable declared = DeclaredTable.decode(key, bytes);
      if (!store.deleteIfEquals(key, bytes)) {
        throw new ConcurrentChangeException(ident, "removing its declaration");
      }
      if (deleteFiles) {
        engine(declared.engine()).drop(declared.location());
      }
      return declared;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes {@code ident} from the registry and keeps its files: the table disappears from the
   * directory and {@link #register} at the returned entry's location brings it back (as a new
   * incarnation, at the data's version then).
   *
   * @return the removed entry
   * @throws TableNotFoundException if it is not registered
   * @throws ConcurrentChangeException if its record changed meanwhile; nothing is changed
   */
  public TableEntry deregister(TableIdent ident) {
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      String key = RegistryCodec.tableKey(ident);
      byte[] bytes = store.get(key).orElseThrow(() -> new TableNotFoundException(ident));
      TableEntry entry = RegistryCodec.decode(key, bytes);
      if (!store.deleteIfEquals(key, bytes)) {
        throw new ConcurrentChangeException(ident, "deregistering it");
      }
      closeHandle(entry.incarnation());
      bumpDirectoryGeneration();
      return entry;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Gives a registered table another name (and possibly namespace); its incarnation, files and
   * versions stay. A persisted procedure ({@link RenameIntent}): interrupted after the new record
   * was written, the next {@link #open} finishes it (removes the old name); before, it rolls back.
   *
   * @return the entry under its new name
   * @throws TableNotFoundException if {@code from} is not registered
   * @throws TableAlreadyExistsException if {@code to} is registered or declared; nothing is changed
   * @throws ConcurrentChangeException if {@code from} changed meanwhile; nothing is changed
   */
  public TableEntry rename(TableIdent from, TableIdent to) {
    boolean fromFirst = RegistryCodec.tableKey(from).compareTo(RegistryCodec.tableKey(to)) <= 0;
    ReentrantLock first = lockFor(fromFirst ? from : to);
    ReentrantLock second = lockFor(fromFirst ? to : from);
    first.lock();
    second.lock();
    try {
      String fromKey = RegistryCodec.tableKey(from);
      byte[] bytes = store.get(fromKey).orElseThrow(() -> new TableNotFoundException(from));
      if (from.equals(to)) {
        throw new TableAlreadyExistsException(to);
      }
      requireFree(to);
      TableEntry old = RegistryCodec.decode(fromKey, bytes);
      TableEntry renamed = new TableEntry(to, old.incarnation(), old.engine(), old.location(),
          old.version(), old.schema(), old.createdAt());
      String toKey = RegistryCodec.tableKey(to);
      byte[] renamedBytes = RegistryCodec.encode(renamed);
      String intentKey = RenameIntent.key(from);
      byte[] intent = new RenameIntent(from, to, old.incarnation()).encode();
      if (!store.compareAndSet(intentKey, Optional.empty(), intent)) {
        throw new ConcurrentChangeException(from, "renaming it (an earlier rename is unfinished)");
      }
      if (!store.compareAndSet(toKey, Optional.empty(), renamedBytes)) {
        store.deleteIfEquals(intentKey, intent);
        throw new TableAlreadyExistsException(to);
      }
      if (!store.deleteIfEquals(fromKey, bytes)) {
        store.deleteIfEquals(toKey, renamedBytes);
        store.deleteIfEquals(intentKey, intent);
        throw new ConcurrentChangeException(from, "renaming it");
      }
      bumpDirectoryGeneration();
      store.deleteIfEquals(intentKey, intent);
      return renamed;
    } finally {
      second.unlock();
      first.unlock();
    }
  }

  /**
   * Makes visible the versions an outside writer committed to the table's files since the
   * registry last recorded one (a stock Lance writer appending at a namespace-resolved
   * location): advances the registry pointer, by compare-and-set, to the engine's latest version.
   * Each such version is complete and durable, as after a crash between engine and registry.
   *
   * @return the entry now; empty if the table is not registered
   */
  public Optional<TableEntry> follow(TableIdent ident) {
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      Optional<TableEntry> entry = lookup(ident);
      if (entry.isEmpty()) {
        return entry;
      }
      Version latest = handle(entry.get()).currentVersion();
      if (latest.compareTo(entry.get().version()) <= 0) {
        return entry;
      }
      return advance(ident, entry.get().incarnation(), latest, false);
    } finally {
      lock.unlock();
    }
  }

  /** Every registered table, sorted by namespace and name. */
  public List<TableEntry> allTables() {
    return scan(RegistryCodec.TABLE_PREFIX);
  }

  private void requireFree(TableIdent ident) {
    if (lookup(ident).isPresent() || store.get(DeclaredTable.key(ident)).isPresent()) {
      throw new TableAlreadyExistsException(ident);
    }
  }

  /** Closes the open table handles. The store and the engines stay open; their owner closes them. */
  @Override
  public void close() {
    handles.values().forEach(TableHandle::close);
    handles.clear();
  }

  // ---- the protocol's steps ----

  /** The original result of a committed operation. */
  /** An earlier write's record to continue from, or its original result: see {@link #prior}. */
  private record Prior(Optional<Stored> record, Optional<TableEntry> replay) {}

  /**
   * What an earlier create or replace under this operation id left: its original result if it
   * committed, else its record to continue from (resolved first when a predecessor left it in
   * progress); both empty when the id is new.
   *
   * @throws OperationConflictException if the id was used for another write
   */
  private Prior prior(String opKey, Kind kind, TableIdent ident, AppendOperation operation) {
    Optional<Stored> previous = operations.read(opKey);
    if (previous.isEmpty()) {
      return new Prior(previous, Optional.empty());
    }
    previous.get().record().requireSame(kind, ident, operation);
    Stored done = previous.get().record().state().terminal() ? previous.get() : resolve(previous.get());
    return new Prior(Optional.of(done), done.record().state() == State.COMMITTED
        ? Optional.of(replayed(done.record())) : Optional.empty());
  }

  private TableEntry replayed(OperationRecord record) {
    TableIdent ident = record.ident();
    return lookup(ident).filter(e -> e.incarnation().equals(record.incarnation()))
        .map(e -> e.withVersion(record.resultVersion().orElseThrow(
            () -> missingEvidence(ident, record.operation()))))
        .orElseThrow(() -> new TableNotFoundException(ident));
  }

  private Optional<Version> reconcileInEngine(TableEntry entry, AppendOperation operation) {
    try {
      return handle(entry).reconcileAppend(operation);
    } catch (CommitConflictException e) {
      throw new OperationConflictException(operation.operationId(),
          "another payload in the table's engine history");
    }
  }

  /**
   * The engine's append for an operation recorded {@code reserved}. On a refusal that changed
   * nothing the record is marked aborted; on a failure of unknown outcome it stays reserved, to be
   * continued by a retry or reconciled by the next open. The fresh incarnation of a create or
   * replace is discarded on any failure: it was never visible.
   */
  private Version engineAppend(Stored record, TableEntry entry, AppendOperation operation,
      ArrowReader batches, boolean freshIncarnation) {
    try {
      return handle(entry).append(operation, batches);
    } catch (RuntimeException e) {
      RuntimeException thrown = e;
      if (e instanceof dev.lake.engine.CorruptMetadataException c && c.table() == null) {
        thrown = c.inTable("lake." + entry.ident());
      }
      boolean nothingChanged = e instanceof dev.lake.engine.SchemaMismatchException
          || e instanceof IllegalArgumentException || e instanceof CommitConflictException;
      try {
        if (freshIncarnation) {
          discard(entry);
        }
        if (freshIncarnation || nothingChanged) {
          operations.move(record, record.record().finished(State.ABORTED, Optional.empty(), clock.instant()));
        }
      } catch (RuntimeException cleanup) {
        thrown.addSuppressed(cleanup);
      }
      throw thrown;
    }
  }

  /**
   * Moves the pointer of {@code incarnation} of {@code ident} up to {@code version} by
   * compare-and-set (never down), re-reading after a lost race.
   *
   * @return the record after the move; empty if the incarnation is no longer registered and
   *     {@code required} is false
   * @throws ConcurrentChangeException if the incarnation is no longer registered and
   *     {@code required}
   */
  private Optional<TableEntry> advance(TableIdent ident, UUID incarnation, Version version, boolean required) {
    String key = RegistryCodec.tableKey(ident);
    while (true) {
      Optional<byte[]> bytes = store.get(key);
      Optional<TableEntry> entry = bytes.map(b -> RegistryCodec.decode(key, b))
          .filter(e -> e.incarnation().equals(incarnation));
      if (entry.isEmpty()) {
        if (required) {
          throw new ConcurrentChangeException(ident, "advancing it to version " + version);
        }
        return Optional.empty();
      }
      if (entry.get().version().compareTo(version) >= 0) {
        // Already there: an earlier attempt's write whose reply was lost may have landed after
        // that attempt gave up, so move the generation again rather than trust the count.
        changes.incrementAndGet();
        return entry;
      }
      TableEntry moved = entry.get().withVersion(version);
      if (store.compareAndSet(key, bytes, RegistryCodec.encode(moved))) {
        return Optional.of(moved);
      }
    }
  }

  /**
   * Finishes an operation record left {@code reserved} or {@code engine_committed}: an append the
   * engine committed is made visible and recorded committed, one it did not is aborted; a create or
   * replace whose incarnation is registered is committed (the replaced files removed), else its
   * files are removed and it is aborted.
   *
   * @throws CatalogException if the record says the engine committed but gives no version:
   *     evidence is missing, the record is left as it is
   */
  private Stored resolve(Stored stored) {
    OperationRecord record = stored.record();
    Optional<TableEntry> entry = lookup(record.ident())
        .filter(e -> e.incarnation().equals(record.incarnation()));
    Instant now = clock.instant();
    switch (record.kind()) {
      case APPEND -> {
        if (entry.isEmpty()) {
          return operations.move(stored, record.finished(State.ABORTED, Optional.empty(), now));
        }
        Optional<Version> version = record.state() == State.ENGINE_COMMITTED
            ? Optional.of(record.resultVersion().orElseThrow(
                () -> missingEvidence(record.ident(), record.operation())))
            : reconcileInEngine(entry.get(), record.operation());
        if (version.isEmpty()) {
          return operations.move(stored, record.finished(State.ABORTED, Optional.empty(), now));
        }
        advance(record.ident(), record.incarnation(), version.get(), true);
        return operations.move(stored, record.finished(State.COMMITTED, version, now));
      }
      case CREATE, REPLACE -> {
        if (entry.isEmpty() && record.state() == State.ENGINE_COMMITTED && registerInterrupted(record)) {
          entry = lookup(record.ident()).filter(e -> e.incarnation().equals(record.incarnation()));
        }
        if (entry.isPresent()) {
          record.oldLocation().ifPresent(old -> engine(record.engine()).drop(old));
          Version registered = entry.get().version();
          Optional<Version> version = record.resultVersion().or(() -> Optional.of(registered));
          return operations.move(stored, record.finished(State.COMMITTED, version, now));
        }
        // Aborted first: a paused predecessor still running this operation is then fenced at
        // its next move of the record, before it could register the files removed here.
        Stored aborted = operations.move(stored, record.finished(State.ABORTED, Optional.empty(), now));
        closeHandle(record.incarnation());
        engine(record.engine()).drop(record.location());
        return aborted;
      }
      default -> throw new IllegalStateException("unknown operation kind " + record.kind());
    }
  }

  /**
   * Finishes the registry step of a create or replace whose engine data is complete
   * ({@code engine_committed}): registers the fresh incarnation if the name is still free (create)
   * or still holds the replaced incarnation at the base version (replace).
   *
   * @return whether the incarnation is now registered
   */
  private boolean registerInterrupted(OperationRecord record) {
    TableEngine engine = engine(record.engine());
    Optional<TableHandle> files = engine.open(record.location());
    if (files.isEmpty() || record.resultVersion().isEmpty()
        || files.get().currentVersion().compareTo(record.resultVersion().get()) < 0) {
      files.ifPresent(TableHandle::close);
      return false;
    }
    TableEntry fresh = new TableEntry(record.ident(), record.incarnation(), engine.name(),
        record.location(), record.resultVersion().get(), files.get().schema(), record.reservedAt());
    String key = RegistryCodec.tableKey(record.ident());
    Optional<byte[]> current = store.get(key);
    boolean expected = record.kind() == Kind.CREATE ? current.isEmpty()
        : current.map(b -> RegistryCodec.decode(key, b))
            .filter(e -> record.oldLocation().equals(Optional.of(e.location()))
                && e.version().number() == record.base())
            .isPresent();
    if (!expected || !store.compareAndSet(key, current, RegistryCodec.encode(fresh))) {
      files.get().close();
      return false;
    }
    handles.put(record.incarnation(), files.get());
    bumpDirectoryGeneration();
    return true;
  }

  /**
   * Resolves every operation record a predecessor left in progress. Reads the open-operations
   * index (see {@link OperationRecords}), so its cost follows the operations in progress, not the
   * retained history; a store written before the index existed is read in full once, and every
   * record in progress then gets its index entry before the index is marked complete.
   */
  private void reconcileOperations() {
    long read = 0;
    if (operations.indexed()) {
      for (ScanPage.Entry e : scanRecords(OperationRecords.OPEN_PREFIX)) {
        String key = OperationRecords.recordKey(e.key());
        Optional<Stored> stored;
        read++;
        try {
          stored = operations.read(key);
        } catch (CatalogException unreadable) {
          LOG.log(Level.WARNING, "operation record " + key + " was not reconciled", unreadable);
          continue;
        }
        if (stored.isEmpty() || stored.get().record().state().terminal()) {
          operations.markFinished(key); // left by a crash between two writes, or already finished
        } else {
          reconcile(stored.get().record().ident(), key);
        }
      }
    } else {
      for (ScanPage.Entry e : scanRecords(OperationRecord.PREFIX)) {
        read++;
        OperationRecord record;
        try {
          record = OperationRecord.decode(e.key(), e.value());
        } catch (CatalogException unreadable) {
          LOG.log(Level.WARNING, "operation record " + e.key() + " was not reconciled", unreadable);
          continue;
        }
        if (!record.state().terminal()) {
          operations.markOpen(e.key());
          reconcile(record.ident(), e.key());
        }
      }
      operations.markIndexed();
    }
    takeoverRecordsRead = read;
  }

  private void reconcile(TableIdent ident, String key) {
    try {
      ReentrantLock lock = lockFor(ident);
      lock.lock();
      try {
        // Re-read under the table's lock: a write of this process may have moved it.
        Optional<Stored> now = operations.read(key);
        if (now.isPresent() && !now.get().record().state().terminal()) {
          resolve(now.get());
        }
      } finally {
        lock.unlock();
      }
    } catch (CatalogException | EngineException refused) {
      // Missing or damaged evidence fails closed: the record stays as it is (and in the index),
      // reported here, and a retry of the operation is refused the same way.
      LOG.log(Level.WARNING, "operation record " + key + " was not reconciled", refused);
    }
  }

  /**
   * Operation records (and open-index entries standing for them) the takeover of {@link #open}
   * read: the operations a predecessor may have left in progress, or, once, the whole history
   * of a store written before the open-operations index existed.
   */
  public long takeoverRecordsRead() {
    return takeoverRecordsRead;
  }

  /**
   * Finishes every rename a predecessor left after writing the new record (the old name, still on
   * the same incarnation, is removed), and forgets those it left before (the old name stays).
   */
  private void resumeRenames() {
    for (ScanPage.Entry e : scanRecords(RenameIntent.PREFIX)) {
      RenameIntent intent = RenameIntent.decode(e.key(), e.value());
      boolean renamed = registeredAs(intent.to(), intent.incarnation());
      String fromKey = RegistryCodec.tableKey(intent.from());
      Optional<byte[]> old = store.get(fromKey);
      if (renamed && old.isPresent()
          && RegistryCodec.decode(fromKey, old.get()).incarnation().equals(intent.incarnation())) {
        store.deleteIfEquals(fromKey, old.get());
        bumpDirectoryGeneration();
      }
      store.deleteIfEquals(e.key(), e.value());
    }
  }

  /** Finishes (or rolls back) every drop a predecessor left half-done. */
  private void resumeDrops() {
    for (ScanPage.Entry e : scanRecords(DropTombstone.PREFIX)) {
      DropTombstone tomb = DropTombstone.decode(e.key(), e.value());
      ReentrantLock lock = lockFor(tomb.ident());
      lock.lock();
      try {
        boolean stillRegistered = lookup(tomb.ident())
            .filter(entry -> entry.incarnation().equals(tomb.incarnation())).isPresent();
        if (stillRegistered) {
          // Interrupted before the record was deleted: the drop never took effect.
          store.deleteIfEquals(e.key(), e.value());
        } else {
          finishDrop(tomb, e.value());
          bumpDirectoryGeneration(); // the interrupted drop may not have moved it
        }
      } finally {
        lock.unlock();
      }
    }
  }

  /** The steps after the registry record is gone: delete the files, then the tombstone. */
  private void finishDrop(DropTombstone tomb, byte[] tombBytes) {
    closeHandle(tomb.incarnation());
    engine(tomb.engine()).drop(tomb.location());
    store.deleteIfEquals(DropTombstone.key(tomb.ident()), tombBytes);
  }

  private boolean registeredAs(TableIdent ident, UUID incarnation) {
    return lookup(ident).filter(e -> e.incarnation().equals(incarnation)).isPresent();
  }

  private static CatalogException missingEvidence(TableIdent ident, AppendOperation operation) {
    return new CatalogException("operation " + operation.operationId() + " on lake." + ident
        + " is recorded engine_committed without a version: evidence is missing, so it is neither"
        + " replayed nor redone");
  }

  // ---- helpers ----

  private TableEntry createIncarnation(TableIdent ident, UUID incarnation, Schema schema, TableEngine engine) {
    TableLocation location = placement.location(ident, incarnation);
    TableHandle handle = engine.create(location, schema);
    TableEntry entry = new TableEntry(ident, incarnation, engine.name(), location,
        handle.currentVersion(), handle.schema(), clock.instant());
    handles.put(incarnation, handle);
    return entry;
  }

  private void rollForward(byte[] bytes, TableEntry entry) {
    Version engineVersion = handle(entry).currentVersion();
    if (engineVersion.compareTo(entry.version()) > 0) {
      advance(entry.ident(), entry.incarnation(), engineVersion, false);
    }
  }

  private void discard(TableEntry entry) {
    closeHandle(entry.incarnation());
    engine(entry.engine()).drop(entry.location());
  }

  private void closeHandle(UUID incarnation) {
    TableHandle handle = handles.remove(incarnation);
    if (handle != null) {
      handle.close();
    }
  }

  private TableHandle openHandle(TableEntry entry) {
    return engine(entry.engine()).open(entry.location())
        .orElseThrow(() -> new CatalogException("the files of table lake." + entry.ident()
            + " are missing at " + entry.location()));
  }

  private TableEngine engine(String name) {
    TableEngine engine = engines.get(name);
    if (engine == null) {
      throw new InvalidNameException("unknown table engine '" + name + "'; available: "
          + engineNames());
    }
    return engine;
  }

  private ReentrantLock lockFor(TableIdent ident) {
    return writeLocks.computeIfAbsent(ident, any -> new ReentrantLock());
  }

  /** One compare-and-set loop on {@code gen/authority}: this authority's number, above all before. */
  private long takeAuthorityGeneration() {
    return increment(AUTHORITY_GENERATION);
  }

  private void bumpDirectoryGeneration() {
    increment(RegistryCodec.DIRECTORY_GENERATION);
  }

  private long increment(String key) {
    while (true) {
      Optional<byte[]> current = store.get(key);
      long next = current.map(b -> Long.parseLong(new String(b, StandardCharsets.US_ASCII)))
          .orElse(0L) + 1;
      if (store.compareAndSet(key, current, Long.toString(next).getBytes(StandardCharsets.US_ASCII))) {
        return next;
      }
    }
  }

  private List<TableEntry> scan(String prefix) {
    List<TableEntry> entries = new ArrayList<>();
    for (ScanPage.Entry record : scanRecords(prefix)) {
      entries.add(RegistryCodec.decode(record.key(), record.value()));
    }
    return entries;
  }

  private List<ScanPage.Entry> scanRecords(String prefix) {
    List<ScanPage.Entry> records = new ArrayList<>();
    Optional<String> continuation = Optional.empty();
    do {
      ScanPage page = store.scan(prefix, continuation, PAGE);
      records.addAll(page.entries());
      continuation = page.continuation();
    } while (continuation.isPresent());
    return records;
  }
}
