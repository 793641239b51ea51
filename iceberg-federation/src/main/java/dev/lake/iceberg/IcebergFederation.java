package dev.lake.iceberg;

import dev.lake.engine.TableHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.RESTException;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * One external Iceberg REST catalog, read-only: its namespaces (levels joined by {@code .}) and
 * tables, each opened as a {@link TableHandle} whose versions are Iceberg snapshot ids. The
 * connection is made lazily and retried on the next call after a failure, so an unreachable
 * catalog fails only the calls that need it, with {@link CatalogUnavailableException}.
 */
public final class IcebergFederation implements AutoCloseable {
  /** The SQL catalog name under which the tables appear. */
  public static final String CATALOG = "iceberg";

  private static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
  private static final String S3_ACCESS_KEY = "s3.access-key-id";
  /** Sent on every catalog request unless static S3 keys are configured. */
  static final String DELEGATION_HEADER = "header.X-Iceberg-Access-Delegation";
  static final String VENDED_CREDENTIALS = "vended-credentials";

  private final IcebergSettings settings;
  private final TtlCache<String, List<String>> listings;
  private final TtlCache<TableIdentifier, Optional<Table>> tables;
  private RESTCatalog catalog;

  private IcebergFederation(IcebergSettings settings) {
    this.settings = settings;
    this.listings = new TtlCache<>(settings.cacheTtl(), settings.cacheEntries(), System::nanoTime);
    this.tables = new TtlCache<>(settings.cacheTtl(), settings.cacheEntries(), System::nanoTime);
  }

  /** A federation over the catalog {@code settings} name; no request is made yet. */
  public static IcebergFederation connect(IcebergSettings settings) {
    return new IcebergFederation(settings);
  }

  public IcebergSettings settings() {
    return settings;
  }

  /** Every namespace, nested ones included, as dotted names, sorted. */
  public List<String> namespaces() {
    return listings.get("", () -> call(() -> {
      List<String> all = new java.util.ArrayList<>();
      collect(Namespace.empty(), all);
      all.sort(null);
      return List.copyOf(all);
    }));
  }

  private void collect(Namespace parent, List<String> into) {
    for (Namespace ns : catalog().listNamespaces(parent)) {
      into.add(String.join(".", ns.levels()));
      collect(ns, into);
    }
  }

  /** The table names of {@code namespace}, sorted; empty if it does not exist. */
  public List<String> tables(String namespace) {
    return listings.get("t:" + namespace, () -> call(() -> {
      try {
        return catalog().listTables(namespace(namespace)).stream().map(TableIdentifier::name).sorted().toList();
      } catch (NoSuchNamespaceException e) {
        return List.of();
      }
    }));
  }

  /** The table {@code namespace.name} at its current metadata, or empty if it does not exist. */
  public Optional<TableHandle> open(String namespace, String name) {
    TableIdentifier id = TableIdentifier.of(namespace(namespace), name);
    return tables.get(id, () -> call(() -> {
      try {
        // Iceberg's client would revalidate by ETag and on 304 rebuild the table from its first
        // answer, storage credentials included, for up to 5 minutes; lake's TTL bounds reuse.
        catalog().invalidateTable(id);
        return Optional.of(catalog().loadTable(id));
      } catch (NoSuchTableException | NoSuchNamespaceException e) {
        return Optional.<Table>empty();
      }
    })).map(table -> new IcebergTable(namespace, name, table));
  }

  private static Namespace namespace(String dotted) {
    return Namespace.of(dotted.split("\\.", -1));
  }

  private synchronized RESTCatalog catalog() {
    if (catalog == null) {
      Map<String, String> properties = new HashMap<>();
      properties.put(CatalogProperties.URI, settings.uri().toString());
      settings.warehouse().ifPresent(w -> properties.put(CatalogProperties.WAREHOUSE_LOCATION, w));
      settings.token().ifPresent(t -> properties.put("token", t));
      settings.credential().ifPresent(c -> properties.put("credential", c));
      // S3 settings given: S3FileIO over the JDK's HTTP client; otherwise local files.
      boolean s3 = settings.properties().keySet().stream().anyMatch(k -> k.startsWith("s3."));
      properties.put(CatalogProperties.FILE_IO_IMPL, s3 ? S3_FILE_IO : LocalFileIO.class.getName());
      if (s3) {
        properties.put("http-client.type", "urlconnection");
      }
      // Without static keys, ask the catalog for the table's storage credentials (a catalog that
      // does not vend ignores the header); S3FileIO uses them and refreshes them before expiry.
      if (!settings.properties().containsKey(S3_ACCESS_KEY)) {
        properties.put(DELEGATION_HEADER, VENDED_CREDENTIALS);
      }
      properties.putAll(settings.properties());
      RESTCatalog created = new RESTCatalog();
      created.initialize(CATALOG, properties);
      catalog = created;
    }
    return catalog;
  }

  /** Runs a catalog call, turning a failure to reach the catalog into one precise exception. */
  static <T> T call(java.util.function.Supplier<T> request) {
    try {
      return request.get();
    } catch (RESTException | UncheckedIOException e) {
      throw new CatalogUnavailableException("the Iceberg catalog is unavailable: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    if (catalog != null) {
      try {
        catalog.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        catalog = null;
      }
    }
  }
}
