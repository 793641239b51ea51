package dev.lake.catalog;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Lance Namespace operations over lake's registry: what a stock Lance client (through the REST
 * binding in {@code flight}) sees of lake. Identifiers are lists of parts: {@code []} is the root
 * namespace, {@code [ns]} a lake namespace (lake's namespaces have one level), {@code [ns, name]}
 * a table. Names are checked as the registry checks them ({@link TableIdent}); nothing is case
 * folded.
 *
 * <p>One identifier space: only {@code lance} tables are listed and served, but a name held by a
 * {@code log} table is taken for Lance too, and acting on it answers {@link
 * InvalidTableStateException} naming its engine. {@code DeclareTable} reserves a name and a
 * location ({@link Catalog#declare}); the stock writer then creates the dataset there itself, and
 * lake registers it when it next looks ({@link #refresh}, or any read of the name). Versions stock
 * writers commit at a table's location become visible the same way ({@link Catalog#follow}):
 * Lance's own conditional-put commit arbitrates writers, so the namespace does not manage versions.
 *
 * <p>Versions are reported in Lance's numbering: the lance engine's version {@code n} is Lance
 * version {@code n + 1} (docs/lance.md). Every method reads or writes the authority; call it off
 * any event loop. Thread-safe.
 */
public final class LanceNamespaces {

  /** The engine whose tables the namespace serves. */
  public static final String ENGINE = "lance";
  /** Lance numbers the empty dataset version 1, the lance engine version 0. */
  private static final long LANCE_VERSION_OFFSET = 1;
  private static final System.Logger LOG = System.getLogger(LanceNamespaces.class.getName());

  /** How {@link #createNamespace} treats a namespace that exists. */
  public enum CreateMode { CREATE, EXIST_OK, OVERWRITE }

  /** One page of a listing, and the token of the next page if there is one. */
  public record Page<T>(List<T> items, Optional<String> nextToken) {
    public Page {
      items = List.copyOf(items);
      Objects.requireNonNull(nextToken, "nextToken");
    }
  }

  /**
   * What {@link #describeTable} knows of a table.
   *
   * @param onlyDeclared declared and no data found at its location yet
   * @param version Lance version, when detailed metadata was asked for
   * @param fragments the version's fragments, when detailed
   * @param rows the version's rows, when detailed
   */
  public record TableDescription(TableIdent ident, TableLocation location, boolean onlyDeclared,
      OptionalLong version, Optional<Schema> schema, OptionalLong fragments, OptionalLong rows,
      Map<String, String> storageOptions) {}

  /** A table location and the storage options a stock client needs to reach it. */
  public record Located(TableIdent ident, TableLocation location, Map<String, String> storageOptions) {}

  private final Catalog catalog;
  private final Function<TableLocation, Map<String, String>> storageOptions;

  /**
   * @param storageOptions the object-store options a stock Lance client needs for a location
   *     (endpoint, region, credentials); empty for local ones
   */
  public LanceNamespaces(Catalog catalog, Function<TableLocation, Map<String, String>> storageOptions) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.storageOptions = Objects.requireNonNull(storageOptions, "storageOptions");
  }

  // ---- namespaces ----

  /**
   * The child namespaces of {@code parent}: lake's namespaces under the root, none under a
   * namespace.
   *
   * @throws NamespaceNotFoundException if {@code parent} is a namespace that does not exist
   */
  public Page<String> listNamespaces(List<String> parent, Optional<String> pageToken, OptionalLong limit) {
    if (parent.isEmpty()) {
      return page(catalog.namespaces(), pageToken, limit);
    }
    requireNamespace(namespace(parent));
    return new Page<>(List.of(), Optional.empty());
  }

  /**
   * Creates a namespace. Namespace properties are not kept by lake, so non-empty ones are refused.
   *
   * @throws NamespaceAlreadyExistsException in mode {@code CREATE} if it exists
   * @throws NamespaceNotEmptyException in mode {@code OVERWRITE} if it holds tables
   * @throws IllegalArgumentException for the root or for properties; nothing is changed
   */
  public void createNamespace(List<String> id, CreateMode mode, Map<String, String> properties) {
    if (id.isEmpty()) {
      throw new IllegalArgumentException("the root namespace always exists and cannot be created");
    }
    String namespace = namespace(id);
    if (!properties.isEmpty()) {
      throw new IllegalArgumentException("lake keeps no namespace properties; got " + properties.keySet()
          + " for namespace " + namespace);
    }
    if (!catalog.namespaceExists(namespace)) {
      try {
        catalog.createNamespace(namespace);
        return;
      } catch (NamespaceAlreadyExistsException raced) {
        if (mode == CreateMode.CREATE) {
          throw raced;
        }
      }
    }
    switch (mode) {
      case CREATE -> throw new NamespaceAlreadyExistsException(namespace);
      case EXIST_OK -> { }
      case OVERWRITE -> {
        List<String> held = heldNames(namespace);
        if (!held.isEmpty()) {
          throw new NamespaceNotEmptyException(namespace, held);
        }
      }
      default -> throw new IllegalStateException("unknown mode " + mode);
    }
  }

  /**
   * Succeeds if the namespace exists (the root always does).
   *
   * @throws NamespaceNotFoundException if it does not
   */
  public void requireNamespace(List<String> id) {
    if (!id.isEmpty()) {
      requireNamespace(namespace(id));
    }
  }

  /**
   * Drops a namespace; {@code cascade} drops its lance tables (and declarations) first. A
   * namespace holding {@code log} tables is not dropped through the Lance Namespace even with
   * cascade.
   *
   * @param skipIfMissing answer nothing for a namespace that does not exist
   * @throws NamespaceNotFoundException if it does not exist and not {@code skipIfMissing}
   * @throws NamespaceNotEmptyException if it holds tables and not {@code cascade}
   * @throws InvalidTableStateException if it holds {@code log} tables and {@code cascade}
   */
  public void dropNamespace(List<String> id, boolean skipIfMissing, boolean cascade) {
    if (id.isEmpty()) {
      throw new IllegalArgumentException("the root namespace cannot be dropped");
    }
    String namespace = namespace(id);
    if (!catalog.namespaceExists(namespace)) {
      if (skipIfMissing) {
        return;
      }
      throw new NamespaceNotFoundException(namespace);
    }
    if (cascade) {
      List<String> others = catalog.tables(namespace).stream()
          .filter(t -> !ENGINE.equals(t.engine())).map(t -> t.ident().name() + " (" + t.engine() + ")").toList();
      if (!others.isEmpty()) {
        throw new InvalidTableStateException(null, "namespace " + namespace + " holds tables of"
            + " other engines, which the Lance Namespace does not drop: " + others
            + "; drop them through SQL first");
      }
    }
    try {
      catalog.dropNamespace(namespace, cascade);
    } catch (NamespaceNotFoundException gone) {
      if (!skipIfMissing) {
        throw gone;
      }
    }
  }

  // ---- tables ----

  /**
   * The lance tables of a namespace, sorted by name, with declared ones when {@code
   * includeDeclared}. Declared tables whose data has appeared are registered first.
   *
   * @throws NamespaceNotFoundException if the namespace does not exist
   */
  public Page<String> listTables(List<String> namespaceId, Optional<String> pageToken,
      OptionalLong limit, boolean includeDeclared) {
    String namespace = namespace(namespaceId);
    requireNamespace(namespace);
    TreeSet<String> names = new TreeSet<>();
    for (DeclaredTable declared : catalog.declared(namespace)) {
      if (adoptQuietly(declared.ident()).isEmpty() && includeDeclared) {
        names.add(declared.ident().name());
      }
    }
    for (TableEntry entry : catalog.tables(namespace)) {
      if (ENGINE.equals(entry.engine())) {
        names.add(entry.ident().name());
      }
    }
    return page(List.copyOf(names), pageToken, limit);
  }

  /** Every lance table of every namespace, sorted; page tokens are {@code ns.name}. */
  public Page<TableIdent> listAllTables(Optional<String> pageToken, OptionalLong limit) {
    List<TableIdent> tables = catalog.allTables().stream()
        .filter(t -> ENGINE.equals(t.engine())).map(TableEntry::ident).toList();
    Page<String> names = page(tables.stream().map(TableIdent::toString).toList(), pageToken, limit);
    return new Page<>(names.items().stream().map(n -> {
      int dot = n.indexOf('.');
      return TableIdent.of(n.substring(0, dot), n.substring(dot + 1));
    }).toList(), names.nextToken());
  }

  /**
   * Reserves a table name and its location for a stock writer to create the dataset at.
   *
   * @throws TableAlreadyExistsException if the name is taken (by any engine's table, or declared)
   * @throws NamespaceNotFoundException if the namespace does not exist
   * @throws IllegalArgumentException if a location is asked for: lake places tables itself
   */
  public Located declareTable(List<String> id, Optional<String> location) {
    TableIdent ident = table(id);
    if (location.isPresent()) {
      throw new IllegalArgumentException("lake chooses the location of a declared table; got "
          + location.get() + " for " + ident + " (use register to adopt a dataset at a location)");
    }
    DeclaredTable declared = catalog.declare(ident, ENGINE);
    return new Located(ident, declared.location(), storageOptions.apply(declared.location()));
  }

  /**
   * Describes a lance table. Without {@code detailed} (and without a version) no dataset is
   * opened: the answer comes from the registry record.
   *
   * @param version a Lance version to describe (implies detailed)
   * @throws TableNotFoundException if the name is neither registered nor declared
   * @throws InvalidTableStateException if the name holds a table of another engine
   * @throws dev.lake.engine.VersionNotFoundException if the version does not exist
   */
  public TableDescription describeTable(List<String> id, boolean detailed, boolean checkDeclared,
      OptionalLong version) {
    TableIdent ident = table(id);
    Optional<TableEntry> entry = catalog.lookup(ident);
    if (entry.isEmpty()) {
      Optional<DeclaredTable> declared = catalog.declaredTable(ident);
      if (declared.isEmpty()) {
        throw new TableNotFoundException(ident);
      }
      entry = detailed || checkDeclared || version.isPresent() ? adoptQuietly(ident) : Optional.empty();
      if (entry.isEmpty()) {
        if (version.isPresent()) {
          throw new dev.lake.engine.VersionNotFoundException(declared.get().location(),
              Version.of(0), "does not exist: lake." + ident + " is declared and has no data yet");
        }
        TableLocation location = declared.get().location();
        return new TableDescription(ident, location, true, OptionalLong.empty(), Optional.empty(),
            OptionalLong.empty(), OptionalLong.empty(), storageOptions.apply(location));
      }
    }
    TableEntry table = requireLance(entry.get());
    Map<String, String> options = storageOptions.apply(table.location());
    if (!detailed && version.isEmpty()) {
      return new TableDescription(ident, table.location(), false, OptionalLong.empty(),
          Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), options);
    }
    Snapshot snapshot = snapshot(ident, version);
    List<String> columns = snapshot.schema().getFields().stream().map(Field::getName).toList();
    long fragments = snapshot.plan(ScanRequest.of(columns)).units().size();
    return new TableDescription(ident, table.location(), false,
        OptionalLong.of(snapshot.version().number() + LANCE_VERSION_OFFSET),
        Optional.of(snapshot.schema()), OptionalLong.of(fragments),
        OptionalLong.of(snapshot.rowCount()), options);
  }

  /**
   * Succeeds if the name is a lance table or declared.
   *
   * @throws TableNotFoundException if it is neither
   * @throws InvalidTableStateException if it holds a table of another engine
   */
  public void tableExists(List<String> id) {
    TableIdent ident = table(id);
    Optional<TableEntry> entry = catalog.lookup(ident);
    if (entry.isPresent()) {
      requireLance(entry.get());
    } else if (catalog.declaredTable(ident).isEmpty()) {
      throw new TableNotFoundException(ident);
    }
  }

  /**
   * Registers the Lance dataset at {@code location} under the name, at its current version
   * ({@link Catalog#register}); with {@code overwrite} a lance table or declaration holding the
   * name is deregistered first (its data kept).
   *
   * @throws TableAlreadyExistsException if the name is taken and not {@code overwrite}
   * @throws IllegalArgumentException if the location is not an absolute path, file: or s3: URI,
   *     or contains {@code *} or {@code ?}
   * @throws CatalogException if no dataset is at the location or another table uses it
   */
  public TableEntry registerTable(List<String> id, String location, boolean overwrite) {
    TableIdent ident = table(id);
    TableLocation parsed = parseLocation(location);
    requireNamespace(ident.namespace());
    if (overwrite) {
      Optional<TableEntry> held = catalog.lookup(ident);
      if (held.isPresent()) {
        catalog.deregister(requireLance(held.get()).ident());
      } else if (catalog.declaredTable(ident).isPresent()) {
        catalog.undeclare(ident, false);
      }
    }
    return catalog.register(ident, ENGINE, parsed);
  }

  /**
   * Removes the table from the registry and keeps its data; {@link #registerTable} at the
   * returned location brings it back.
   *
   * @throws TableNotFoundException if the name is neither registered nor declared
   * @throws InvalidTableStateException if it holds a table of another engine
   */
  public Located deregisterTable(List<String> id) {
    TableIdent ident = table(id);
    Optional<TableEntry> entry = catalog.lookup(ident);
    if (entry.isPresent()) {
      requireLance(entry.get());
      TableEntry removed = catalog.deregister(ident);
      return new Located(ident, removed.location(), Map.of());
    }
    if (catalog.declaredTable(ident).isEmpty()) {
      throw new TableNotFoundException(ident);
    }
    return new Located(ident, catalog.undeclare(ident, false).location(), Map.of());
  }

  /**
   * Drops the table and deletes its data, through the registry's persisted drop procedure
   * ({@link Catalog#drop}); a declared table's declaration and whatever was written at its
   * location are removed.
   *
   * @throws TableNotFoundException if the name is neither registered nor declared
   * @throws InvalidTableStateException if it holds a table of another engine
   */
  public Located dropTable(List<String> id) {
    TableIdent ident = table(id);
    Optional<TableEntry> entry = catalog.lookup(ident).or(() -> adoptQuietly(ident));
    if (entry.isPresent()) {
      requireLance(entry.get());
      catalog.drop(ident);
      return new Located(ident, entry.get().location(), Map.of());
    }
    if (catalog.declaredTable(ident).isEmpty()) {
      throw new TableNotFoundException(ident);
    }
    return new Located(ident, catalog.undeclare(ident, true).location(), Map.of());
  }

  /**
   * Renames a lance table, within its namespace (no or an empty {@code newNamespace}) or into
   * another existing one.
   *
   * @throws TableNotFoundException if it is not registered
   * @throws InvalidTableStateException if it holds another engine's table, or is only declared
   * @throws NamespaceNotFoundException if the target namespace does not exist
   * @throws TableAlreadyExistsException if the new name is taken
   */
  public TableEntry renameTable(List<String> id, Optional<List<String>> newNamespace, String newName) {
    TableIdent from = table(id);
    // An empty new namespace (what the stock client sends when none is given) keeps the table's.
    String namespace = newNamespace.filter(ns -> !ns.isEmpty()).map(LanceNamespaces::namespace)
        .orElse(from.namespace());
    TableIdent to = TableIdent.of(namespace, newName);
    Optional<TableEntry> entry = catalog.lookup(from).or(() -> adoptQuietly(from));
    if (entry.isEmpty()) {
      if (catalog.declaredTable(from).isPresent()) {
        throw new InvalidTableStateException(from, "table " + from + " is declared and has no data"
            + " yet; write it before renaming it");
      }
      throw new TableNotFoundException(from);
    }
    requireLance(entry.get());
    requireNamespace(namespace);
    return catalog.rename(from, to);
  }

  /**
   * The rows of the table's latest version (after following outside writers), or of a Lance
   * {@code version}.
   */
  public long countRows(List<String> id, OptionalLong version) {
    TableIdent ident = table(id);
    TableEntry entry = catalog.lookup(ident).or(() -> adoptQuietly(ident))
        .orElseThrow(() -> catalog.declaredTable(ident).isPresent()
            ? new InvalidTableStateException(ident, "table " + ident + " is declared and has no data yet")
            : new TableNotFoundException(ident));
    requireLance(entry);
    return snapshot(ident, version).rowCount();
  }

  /**
   * Registers every declared table whose data has appeared and makes visible every version
   * outside writers committed to lance tables. One table's failure is logged and does not stop
   * the others.
   *
   * @return the tables registered or advanced
   */
  public int refresh() {
    int changed = 0;
    for (DeclaredTable declared : catalog.allDeclared()) {
      if (adoptQuietly(declared.ident()).isPresent()) {
        changed++;
      }
    }
    for (TableEntry entry : catalog.allTables()) {
      if (!ENGINE.equals(entry.engine())) {
        continue;
      }
      try {
        Optional<TableEntry> now = catalog.follow(entry.ident());
        if (now.isPresent() && now.get().version().compareTo(entry.version()) > 0) {
          changed++;
        }
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "cannot follow the versions of lake." + entry.ident(), e);
      }
    }
    return changed;
  }

  // ---- helpers ----

  private Snapshot snapshot(TableIdent ident, OptionalLong lanceVersion) {
    catalog.follow(ident);
    TableHandle handle = catalog.readHandle(ident).orElseThrow(() -> new TableNotFoundException(ident));
    if (lanceVersion.isEmpty()) {
      return handle.latestSnapshot();
    }
    long lake = lanceVersion.getAsLong() - LANCE_VERSION_OFFSET;
    if (lake < 0) {
      throw new dev.lake.engine.VersionNotFoundException(handle.location(), Version.of(0),
          "does not exist: Lance versions of lake." + ident + " start at 1, got " + lanceVersion.getAsLong());
    }
    return handle.snapshot(Version.of(lake));
  }

  private Optional<TableEntry> adoptQuietly(TableIdent ident) {
    try {
      // empty also when another caller (the periodic refresh) adopted it meanwhile
      return catalog.adopt(ident).or(() -> catalog.lookup(ident));
    } catch (ConcurrentChangeException raced) {
      return catalog.lookup(ident);
    } catch (dev.lake.engine.EngineException notYet) {
      // a writer is still creating the dataset, or it is damaged: it stays declared, reported
      LOG.log(Level.DEBUG, "declared table lake." + ident + " is not adoptable yet", notYet);
      return Optional.empty();
    }
  }

  private static TableEntry requireLance(TableEntry entry) {
    if (!ENGINE.equals(entry.engine())) {
      throw new InvalidTableStateException(entry.ident(), "table " + entry.ident() + " is a "
          + entry.engine() + " table; the Lance Namespace serves lance tables only (query it"
          + " through Flight SQL as lake." + entry.ident() + ")");
    }
    return entry;
  }

  private void requireNamespace(String namespace) {
    if (!catalog.namespaceExists(namespace)) {
      throw new NamespaceNotFoundException(namespace);
    }
  }

  private List<String> heldNames(String namespace) {
    List<String> names = new ArrayList<>(catalog.tables(namespace).stream().map(t -> t.ident().name()).toList());
    catalog.declared(namespace).forEach(d -> names.add(d.ident().name()));
    return names;
  }

  /** A lake namespace from a one-part identifier. */
  static String namespace(List<String> id) {
    if (id.size() != 1) {
      throw new InvalidNameException("namespace " + id + " is not a lake namespace: lake's"
          + " namespaces have exactly one level below the root");
    }
    TableIdent.checkIdentifier("namespace", id.getFirst());
    return id.getFirst();
  }

  /** A lake table from a two-part identifier. */
  static TableIdent table(List<String> id) {
    if (id.size() != 2) {
      throw new InvalidNameException("table " + id + " is not a lake table identifier: use"
          + " [namespace, table]");
    }
    return TableIdent.of(id.get(0), id.get(1));
  }

  static TableLocation parseLocation(String location) {
    if (location == null || location.isBlank()) {
      throw new IllegalArgumentException("a location is required");
    }
    if (location.contains("*") || location.contains("?")) {
      throw new IllegalArgumentException("location " + location + " contains a wildcard (* or ?)");
    }
    String trimmed = location.length() > 1 && location.endsWith("/")
        ? location.substring(0, location.length() - 1) : location;
    try {
      if (trimmed.startsWith("/")) {
        return TableLocation.of(Path.of(trimmed));
      }
      URI uri = new URI(trimmed);
      if ("file".equals(uri.getScheme()) && uri.getPath() != null && uri.getPath().startsWith("/")) {
        return TableLocation.of(Path.of(uri));
      }
      if ("s3".equals(uri.getScheme()) && uri.getAuthority() != null && uri.getFragment() == null) {
        return new TableLocation(uri);
      }
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw new IllegalArgumentException("location " + location + " is not a valid URI or path: "
          + e.getMessage(), e);
    }
    throw new IllegalArgumentException("location " + location + " is neither an absolute path, a"
        + " file: URI nor s3://bucket/prefix");
  }

  private static <T> Page<T> page(List<T> sorted, Optional<String> pageToken,
      OptionalLong limit) {
    if (limit.isPresent() && limit.getAsLong() <= 0) {
      throw new IllegalArgumentException("limit must be positive, got " + limit.getAsLong());
    }
    int start = 0;
    if (pageToken.isPresent() && !pageToken.get().isEmpty()) {
      String after = pageToken.get();
      while (start < sorted.size() && sorted.get(start).toString().compareTo(after) <= 0) {
        start++;
      }
    }
    int end = limit.isPresent() ? (int) Math.min(sorted.size(), start + limit.getAsLong()) : sorted.size();
    List<T> items = sorted.subList(start, end);
    Optional<String> next = end < sorted.size() && !items.isEmpty()
        ? Optional.of(items.getLast().toString()) : Optional.empty();
    return new Page<>(items, next);
  }
}
