package dev.lake.sql;

import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Plans of recent statements, reused while nothing they depend on has changed. A plan is pinned
 * to one version of each table it reads, and a table's location names one incarnation of it (a
 * replaced table moves to a new location), so a plan stays exactly right for as long as the
 * catalog's directory generation, and the location and current version of each table it read,
 * are what they were when it was planned; tables the caller pinned need only the same location.
 * Each lookup re-checks that against the catalog, which costs a few metadata reads instead of a
 * planning run (parse, validation, rewriting: milliseconds). The Flight front end plans each
 * statement twice (for its schema, then for its ticket's pins) and clients repeat statements
 * in floods; both hit here.
 *
 * <p>A statement that reads a table at a version other than its current one without the
 * caller pinning it ({@code FOR VERSION AS OF}), or that was planned while the catalog changed,
 * is planned every time. Failed plans are not kept. Thread-safe; least recently used plans are
 * evicted past {@code capacity}.
 */
final class PlanCache {
  private record Key(String sql, Map<TableName, Version> pins, String defaultSchema) {}

  /** A plan and what it read: the location of each table it opened, at the generation planned under. */
  private record Entry(PreparedQuery query, long generation, Map<TableName, TableLocation> locations) {}

  private final int capacity;
  private final LinkedHashMap<Key, Entry> entries;
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();

  PlanCache(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("plan cache capacity must be >= 0: " + capacity);
    }
    this.capacity = capacity;
    this.entries = new LinkedHashMap<>(16, 0.75f, true);
  }

  /**
   * The plan of {@code sql} with {@code pins} over {@code catalog}: a kept one if it is still
   * exactly right, else a fresh one from {@code planner}, which plans over the catalog it is
   * given. Exceptions of {@code planner} pass through and leave nothing behind.
   */
  PreparedQuery plan(String sql, Map<TableName, Version> pins, SqlCatalog catalog,
      Function<SqlCatalog, PreparedQuery> planner) {
    return plan(sql, pins, null, catalog, planner);
  }

  /** As above for a statement planned with a default schema (null: none), kept apart by it. */
  PreparedQuery plan(String sql, Map<TableName, Version> pins, String defaultSchema,
      SqlCatalog catalog, Function<SqlCatalog, PreparedQuery> planner) {
    OptionalLong generation = capacity == 0 ? OptionalLong.empty() : catalog.directoryGeneration();
    if (generation.isEmpty()) {
      return planner.apply(catalog);
    }
    Key key = new Key(sql, Map.copyOf(pins), defaultSchema);
    Entry kept;
    synchronized (entries) {
      kept = entries.get(key);
    }
    if (kept == null && !pins.isEmpty()) {
      // The plan of the bare text pinned exactly these versions, so it is the plan of the text
      // with these pins (as the Flight front end replays a ticket at DoGet after planning the
      // bare text at GetFlightInfo): right while the tables are where they were.
      Entry bare;
      synchronized (entries) {
        bare = entries.get(new Key(sql, Map.of(), defaultSchema));
      }
      if (bare != null && bare.query().pins().equals(key.pins())
          && bare.generation() == generation.getAsLong() && current(bare, pins, catalog)) {
        hits.incrementAndGet();
        return bare.query();
      }
    }
    if (kept != null) {
      if (kept.generation() == generation.getAsLong() && current(kept, pins, catalog)) {
        hits.incrementAndGet();
        return kept.query();
      }
      // Stale: drop it now, so that a statement that no longer plans (its table dropped) does
      // not keep the old snapshots reachable until it is evicted.
      synchronized (entries) {
        entries.remove(key, kept);
      }
    }
    misses.incrementAndGet();
    RecordingCatalog recording = new RecordingCatalog(catalog);
    PreparedQuery query = planner.apply(recording);
    Map<TableName, TableLocation> locations = recording.locations();
    if (locations != null && readsCurrentVersions(query, pins, recording)
        && catalog.directoryGeneration().equals(generation)) {
      synchronized (entries) {
        entries.put(key, new Entry(query, generation.getAsLong(), locations));
        if (entries.size() > capacity) {
          entries.remove(entries.keySet().iterator().next());
        }
      }
    }
    return query;
  }

  long hits() {
    return hits.get();
  }

  long misses() {
    return misses.get();
  }

  int size() {
    synchronized (entries) {
      return entries.size();
    }
  }

  /** Whether every table the plan opened is still where it was and, unless pinned, at the version read. */
  private static boolean current(Entry kept, Map<TableName, Version> pins, SqlCatalog catalog) {
    for (Map.Entry<TableName, TableLocation> read : kept.locations().entrySet()) {
      TableName name = read.getKey();
      Optional<TableHandle> handle = catalog.openTable(name);
      if (handle.isEmpty() || !handle.get().location().equals(read.getValue())) {
        return false;
      }
      if (!pins.containsKey(name)) {
        Version planned = kept.query().pins().get(name);
        if (planned == null || !planned.equals(handle.get().currentVersion())) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether the plan read each unpinned table at the version its handle called current. */
  private static boolean readsCurrentVersions(PreparedQuery query, Map<TableName, Version> pins,
      RecordingCatalog recording) {
    for (Map.Entry<TableName, Version> read : query.pins().entrySet()) {
      TableName name = read.getKey();
      Version current = recording.versions().get(name);
      if (current == null || !pins.containsKey(name) && !current.equals(read.getValue())) {
        return false;
      }
    }
    return true;
  }

  /**
   * The catalog as one planning run sees it, noting the location and current version of every
   * handle it hands out (read from that same handle, so they describe exactly what was planned).
   */
  private static final class RecordingCatalog implements SqlCatalog {
    private final SqlCatalog catalog;
    private final Map<TableName, TableLocation> locations = new HashMap<>();
    private final Map<TableName, Version> versions = new HashMap<>();
    private boolean conflicting;

    RecordingCatalog(SqlCatalog catalog) {
      this.catalog = catalog;
    }

    @Override
    public List<String> schemaNames() {
      return catalog.schemaNames();
    }

    @Override
    public boolean schemaExists(String schema) {
      return catalog.schemaExists(schema);
    }

    @Override
    public List<String> tableNames(String schema) {
      return catalog.tableNames(schema);
    }

    @Override
    public Optional<TableHandle> openTable(TableName name) {
      Optional<TableHandle> handle = catalog.openTable(name);
      handle.ifPresent(h -> {
        TableLocation location = h.location();
        TableLocation earlier = locations.putIfAbsent(name, location);
        Version version = h.currentVersion();
        Version earlierVersion = versions.putIfAbsent(name, version);
        conflicting |= earlier != null && !earlier.equals(location)
            || earlierVersion != null && !earlierVersion.equals(version);
      });
      return handle;
    }

    @Override
    public OptionalLong directoryGeneration() {
      return catalog.directoryGeneration();
    }

    /**
     * The federated catalogs, each seen so that a plan opening one of their tables is not kept:
     * their tables move by commits this catalog's generation does not count.
     */
    @Override
    public Map<String, SqlCatalog> federated() {
      Map<String, SqlCatalog> seen = new java.util.LinkedHashMap<>();
      catalog.federated().forEach((name, federated) -> seen.put(name, new SqlCatalog() {
        @Override
        public List<String> schemaNames() {
          return federated.schemaNames();
        }

        @Override
        public boolean schemaExists(String schema) {
          return federated.schemaExists(schema);
        }

        @Override
        public List<String> tableNames(String schema) {
          return federated.tableNames(schema);
        }

        @Override
        public Optional<TableHandle> openTable(TableName table) {
          conflicting = true;
          return federated.openTable(table);
        }
      }));
      return seen;
    }

    /** The locations seen, or null if one name was seen at two locations or versions. */
    Map<TableName, TableLocation> locations() {
      return conflicting ? null : Map.copyOf(locations);
    }

    Map<TableName, Version> versions() {
      return versions;
    }
  }
}
