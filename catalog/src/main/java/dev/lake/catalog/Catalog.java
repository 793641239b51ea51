package dev.lake.catalog;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.EngineException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.UuidV7;
import dev.lake.engine.Version;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.ScanPage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The table registry and its write authority: creates, appends to, replaces and drops tables,
 * keeping the registry in a {@link MetaStore} and the data in {@link TableEngine}s.
 *
 * <p>Writes to one table are serialized by this process; a version becomes visible to readers of
 * the registry only when its record's version pointer has been advanced by compare-and-set after
 * the engine made every byte of it durable. Thread-safe.
 */
public final class Catalog implements AutoCloseable {

  private static final int PAGE = 500;

  private final MetaStore store;
  private final Map<String, TableEngine> engines;
  private final Path warehouse;
  private final Clock clock;
  private final ConcurrentHashMap<TableIdent, ReentrantLock> writeLocks = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<UUID, TableHandle> handles = new ConcurrentHashMap<>();
  private final Object namespaceLock = new Object();

  private Catalog(MetaStore store, Map<String, TableEngine> engines, Path warehouse, Clock clock) {
    this.store = store;
    this.engines = Map.copyOf(engines);
    this.warehouse = warehouse.toAbsolutePath().normalize();
    this.clock = clock;
  }

  /**
   * Opens the registry over {@code store}, with table files under {@code warehouse}. Versions an
   * engine committed after the registry last recorded them (a crash between the two writes) are
   * rolled forward, since every such version is complete and durable.
   *
   * @param engines the engines tables may use, by {@link TableEngine#name()}; not closed by the
   *     catalog
   */
  public static Catalog open(MetaStore store, Map<String, TableEngine> engines, Path warehouse) {
    if (engines.isEmpty()) {
      throw new IllegalArgumentException("a catalog needs at least one table engine");
    }
    try {
      Files.createDirectories(warehouse);
    } catch (IOException e) {
      throw new CatalogException("cannot create the warehouse directory " + warehouse, e);
    }
    Catalog catalog = new Catalog(store, engines, warehouse, Clock.systemUTC());
    for (ScanPage.Entry record : catalog.scanRecords(RegistryCodec.TABLE_PREFIX)) {
      TableEntry entry = RegistryCodec.decode(record.key(), record.value());
      try {
        catalog.rollForward(record.value(), entry);
      } catch (dev.lake.engine.CorruptTableException e) {
        // One damaged table must not keep the others from being served: it stays registered
        // and every read of it reports the damage.
        System.getLogger(Catalog.class.getName()).log(System.Logger.Level.WARNING,
            "table lake." + entry.ident() + " is damaged and was not rolled forward", e);
      }
    }
    return catalog;
  }

  /** The names of the engines tables can be created with. */
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
  public void dropNamespace(String namespace, boolean cascade) {
    TableIdent.checkIdentifier("namespace", namespace);
    synchronized (namespaceLock) {
      if (!namespaceExists(namespace)) {
        throw new NamespaceNotFoundException(namespace);
      }
      List<TableEntry> tables = tables(namespace);
      if (!tables.isEmpty() && !cascade) {
        throw new NamespaceNotEmptyException(namespace,
            tables.stream().map(t -> t.ident().name()).toList());
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

  /** The registry record of {@code ident}, if registered. */
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
  public TableEntry create(TableIdent ident, Schema schema, String engine) {
    TableEngine tableEngine = engine(engine);
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      if (lookup(ident).isPresent()) {
        throw new TableAlreadyExistsException(ident);
      }
      TableEntry entry = createIncarnation(ident, schema, tableEngine);
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
   * @throws CatalogException if no table of that engine is at {@code location}, or another
   *     registered table already uses it, naming the location; nothing is changed
   * @throws dev.lake.engine.CorruptTableException if files are there but do not form a valid
   *     table of that engine; nothing is changed
   */
  public TableEntry register(TableIdent ident, String engine, TableLocation location) {
    TableEngine tableEngine = engine(engine);
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      if (lookup(ident).isPresent()) {
        throw new TableAlreadyExistsException(ident);
      }
      for (TableEntry other : scan(RegistryCodec.TABLE_PREFIX)) {
        if (other.location().equals(location)) {
          throw new CatalogException("cannot register lake." + ident + ": " + location
              + " is already the location of table lake." + other.ident() + "; nothing was registered");
        }
      }
      TableHandle handle = tableEngine.open(location).orElseThrow(() -> new CatalogException(
          "cannot register lake." + ident + ": no " + engine + " table at " + location
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
   * @return the new version
   * @throws TableNotFoundException if the table is not registered
   * @throws dev.lake.engine.SchemaMismatchException if the batches' schema differs; nothing changed
   * @throws EngineException if the engine fails; no version became visible in the registry
   */
  public Version append(TableIdent ident, AppendOperation operation, ArrowReader batches) {
    return append(ident, Optional.empty(), operation, batches);
  }

  /**
   * Creates a table holding exactly {@code batches} as its first version, atomically: the
   * registry record is written only after the engine committed the data, so readers (and a
   * restart after a crash) see no table or the whole table, never an empty one. The reader is
   * consumed, not closed.
   *
   * @throws TableAlreadyExistsException if the name is taken; nothing is changed (the files
   *     written for it are removed)
   * @throws InvalidNameException if no engine has that name
   */
  public TableEntry createWith(TableIdent ident, Schema schema, String engine,
      AppendOperation operation, ArrowReader batches) {
    TableEngine tableEngine = engine(engine);
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      if (lookup(ident).isPresent()) {
        throw new TableAlreadyExistsException(ident);
      }
      TableEntry fresh = createIncarnation(ident, schema, tableEngine);
      TableEntry committed;
      try {
        committed = fresh.withVersion(handle(fresh).append(operation, batches));
      } catch (RuntimeException e) {
        discard(fresh);
        throw e;
      }
      if (!store.compareAndSet(RegistryCodec.tableKey(ident), Optional.empty(),
          RegistryCodec.encode(committed))) {
        discard(fresh);
        throw new TableAlreadyExistsException(ident);
      }
      bumpDirectoryGeneration();
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
    return append(ident, Optional.of(expected), operation, batches);
  }

  private Version append(TableIdent ident, Optional<TableLocation> expected,
      AppendOperation operation, ArrowReader batches) {
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      String key = RegistryCodec.tableKey(ident);
      byte[] bytes = store.get(key).orElseThrow(() -> new TableNotFoundException(ident));
      TableEntry entry = RegistryCodec.decode(key, bytes);
      if (expected.isPresent() && !entry.location().equals(expected.get())) {
        throw new TableNotFoundException(ident);
      }
      Version version;
      try {
        version = handle(entry).append(operation, batches);
      } catch (dev.lake.engine.CorruptMetadataException e) {
        throw e.table() != null ? e : e.inTable("lake." + ident);
      }
      advance(bytes, entry, version);
      return version;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Replaces the table with a new incarnation holding {@code schema} and exactly {@code batches}
   * (version 1 of the new incarnation), then removes the old files. Readers see either the old
   * table or the whole new one.
   *
   * @throws TableNotFoundException if the table is not registered
   */
  public TableEntry replace(TableIdent ident, Schema schema, AppendOperation operation,
      ArrowReader batches) {
    return replace(ident, schema, fresh -> handle(fresh).append(operation, batches));
  }

  /**
   * Replaces the table with a new empty incarnation holding {@code schema} (its version 0, as
   * {@link #create} makes), then removes the old files: what replacing a table's rows with no
   * rows means. Readers see either the old table or the new empty one.
   *
   * @throws TableNotFoundException if the table is not registered
   * @throws IllegalArgumentException if the engine cannot store the schema; nothing changed
   */
  public TableEntry replaceWithEmpty(TableIdent ident, Schema schema) {
    return replace(ident, schema, TableEntry::version);
  }

  private TableEntry replace(TableIdent ident, Schema schema,
      java.util.function.Function<TableEntry, Version> write) {
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      String key = RegistryCodec.tableKey(ident);
      byte[] oldBytes = store.get(key).orElseThrow(() -> new TableNotFoundException(ident));
      TableEntry old = RegistryCodec.decode(key, oldBytes);
      TableEntry fresh = createIncarnation(ident, schema, engine(old.engine()));
      Version version;
      try {
        version = write.apply(fresh);
      } catch (RuntimeException e) {
        discard(fresh);
        throw e;
      }
      TableEntry committed = fresh.withVersion(version);
      if (!store.compareAndSet(key, Optional.of(oldBytes), RegistryCodec.encode(committed))) {
        discard(fresh);
        throw new ConcurrentChangeException(ident, "replacing it");
      }
      bumpDirectoryGeneration();
      discard(old);
      return committed;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes the table from the registry, then deletes its files.
   *
   * @throws TableNotFoundException if the table is not registered
   */
  public void drop(TableIdent ident) {
    ReentrantLock lock = lockFor(ident);
    lock.lock();
    try {
      String key = RegistryCodec.tableKey(ident);
      byte[] bytes = store.get(key).orElseThrow(() -> new TableNotFoundException(ident));
      if (!store.deleteIfEquals(key, bytes)) {
        throw new ConcurrentChangeException(ident, "dropping it");
      }
      bumpDirectoryGeneration();
      discard(RegistryCodec.decode(key, bytes));
    } finally {
      lock.unlock();
    }
  }

  /** Closes the open table handles. The store and the engines stay open; their owner closes them. */
  @Override
  public void close() {
    handles.values().forEach(TableHandle::close);
    handles.clear();
  }

  private TableEntry createIncarnation(TableIdent ident, Schema schema, TableEngine engine) {
    UUID incarnation = UuidV7.generate(clock);
    Path directory = warehouse.resolve(ident.namespace())
        .resolve(ident.name() + "-" + incarnation);
    TableLocation location = TableLocation.of(directory);
    TableHandle handle = engine.create(location, schema);
    TableEntry entry = new TableEntry(ident, incarnation, engine.name(), location,
        handle.currentVersion(), handle.schema(), clock.instant());
    handles.put(incarnation, handle);
    return entry;
  }

  private void rollForward(byte[] bytes, TableEntry entry) {
    Version engineVersion = handle(entry).currentVersion();
    if (engineVersion.compareTo(entry.version()) > 0) {
      advance(bytes, entry, engineVersion);
    }
  }

  private void advance(byte[] expected, TableEntry entry, Version version) {
    String key = RegistryCodec.tableKey(entry.ident());
    if (!store.compareAndSet(key, Optional.of(expected),
        RegistryCodec.encode(entry.withVersion(version)))) {
      throw new ConcurrentChangeException(entry.ident(), "advancing it to version " + version);
    }
  }

  private void discard(TableEntry entry) {
    TableHandle handle = handles.remove(entry.incarnation());
    if (handle != null) {
      handle.close();
    }
    engine(entry.engine()).drop(entry.location());
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

  private void bumpDirectoryGeneration() {
    while (true) {
      Optional<byte[]> current = store.get(RegistryCodec.DIRECTORY_GENERATION);
      long next = current.map(b -> Long.parseLong(new String(b, StandardCharsets.US_ASCII)))
          .orElse(0L) + 1;
      if (store.compareAndSet(RegistryCodec.DIRECTORY_GENERATION, current,
          Long.toString(next).getBytes(StandardCharsets.US_ASCII))) {
        return;
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
