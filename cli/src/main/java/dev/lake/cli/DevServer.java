package dev.lake.cli;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.CatalogCache;
import dev.lake.catalog.LanceNamespaces;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.flight.CatalogSqlCatalog;
import dev.lake.flight.IcebergSqlCatalog;
import dev.lake.flight.LakeFlightServer;
import dev.lake.flight.lancerest.LanceRestServer;
import dev.lake.iceberg.IcebergFederation;
import dev.lake.iceberg.IcebergSettings;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.SqlEngine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The all-in-one development server: the registry in RocksDB under the data directory, table
 * files under {@code <data-dir>/warehouse}, every engine found on the class path, and the Flight
 * SQL server on a loopback address. One process holds both tiers: the Query side reads through a
 * {@link CatalogCache} whose authority is the in-process {@link Catalog}. Creates {@code
 * demo.episodes} on first start.
 */
final class DevServer implements AutoCloseable {

  private final List<AutoCloseable> opened;
  private final LanceRestServer lanceRest;
  private final LakeFlightServer server;
  private final boolean demoCreated;

  private DevServer(List<AutoCloseable> opened, LakeFlightServer server, boolean demoCreated,
      LanceRestServer lanceRest) {
    this.opened = List.copyOf(opened);
    this.lanceRest = lanceRest;
    this.server = server;
    this.demoCreated = demoCreated;
  }

  /**
   * Starts the server; returns once it accepts connections.
   *
   * @throws IllegalStateException if {@code host} is not a loopback address
   */
  static DevServer start(Path dataDir, String host, int port) {
    return start(dataDir, host, port, QueryLimits.defaults());
  }

  /** As {@link #start(Path, String, int)}, each SQL query held to {@code limits}. */
  static DevServer start(Path dataDir, String host, int port, QueryLimits limits) {
    return start(dataDir, host, port, limits, null);
  }

  /**
   * As {@link #start(Path, String, int, QueryLimits)}, with metrics and health probes on the
   * loopback {@code metricsPort} unless it is null.
   */
  static DevServer start(Path dataDir, String host, int port, QueryLimits limits,
      Integer metricsPort) {
    return start(dataDir, host, port, limits, metricsPort, null,
        java.util.function.UnaryOperator.identity());
  }

  /** As {@link #start(Path, String, int, QueryLimits, Integer)}, with Lance Namespace REST on {@code lanceRestPort}. */
  static DevServer start(Path dataDir, String host, int port, QueryLimits limits,
      Integer metricsPort, Integer lanceRestPort) {
    return start(dataDir, host, port, limits, metricsPort, lanceRestPort,
        java.util.function.UnaryOperator.identity());
  }

  /**
   * As {@link #start(Path, String, int, QueryLimits, Integer)}, the server configured by {@code
   * security} (principals, TLS), with the Lance Namespace REST binding on {@code lanceRestPort}
   * (0 = a free port) unless it is null.
   *
   * @throws IllegalStateException if {@code host} is not loopback and security lacks principals
   *     or TLS
   */
  static DevServer start(Path dataDir, String host, int port, QueryLimits limits,
      Integer metricsPort, Integer lanceRestPort,
      java.util.function.UnaryOperator<LakeFlightServer.Builder> security) {
    return start(dataDir, host, port, limits, metricsPort, lanceRestPort, security,
        java.util.Optional.empty());
  }

  /**
   * As {@link #start(Path, String, int, QueryLimits, Integer, Integer,
   * java.util.function.UnaryOperator)}, with the Iceberg REST catalog {@code iceberg} (when
   * present) served read-only as the SQL catalog {@value IcebergFederation#CATALOG}; nothing is
   * asked of it until a query names it.
   */
  static DevServer start(Path dataDir, String host, int port, QueryLimits limits,
      Integer metricsPort, Integer lanceRestPort,
      java.util.function.UnaryOperator<LakeFlightServer.Builder> security,
      java.util.Optional<IcebergSettings> iceberg) {
    List<AutoCloseable> opened = new ArrayList<>();
    try {
      BufferAllocator allocator = new RootAllocator();
      opened.add(allocator);
      MetaStore store = RocksDbMetaStore.open(dataDir.resolve("meta"));
      opened.add(store);
      Map<String, TableEngine> engines = loadEngines();
      opened.addAll(engines.values());
      Catalog catalog = Catalog.open(store, engines, dataDir.resolve("warehouse"));
      opened.add(catalog);
      CatalogCache registry = CatalogCache.start(catalog, engines);
      opened.add(registry);
      boolean demoCreated = DemoEpisodes.createIfAbsent(registry, allocator);
      Map<String, SqlCatalog> federated = federated(iceberg, opened);
      LakeFlightServer.Builder builder = LakeFlightServer.builder()
          .registry(registry)
          .sqlEngine(new SqlEngine(new CatalogSqlCatalog(registry, federated), limits.memoryBytes(),
              limits.threads()))
          .allocator(allocator)
          .host(host)
          .port(port);
      // The default stage; an operator (lake dev --stage) may name another.
      builder.stage(new StageOptions().root(dataDir.resolve("stage")), null, null, false);
      if (metricsPort != null) {
        builder.metrics(host, metricsPort);
      }
      if (limits.timeout() != null) {
        builder.queryTimeout(limits.timeout());
      }
      LakeFlightServer server = security.apply(builder).build();
      server.start();
      opened.add(server);
      LanceRestServer lanceRest = null;
      if (lanceRestPort != null) {
        lanceRest = LanceRestServer.start(new LanceNamespaces(catalog, LanceStorageOptions.of(Map.of())), host,
            lanceRestPort, CatalogCache.DEFAULT_REFRESH_INTERVAL, server.authenticator());
      }
      return new DevServer(opened, server, demoCreated, lanceRest);
    } catch (RuntimeException e) {
      for (int i = opened.size() - 1; i >= 0; i--) {
        try {
          opened.get(i).close();
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  int port() {
    return server.port();
  }

  /** The port of the Lance Namespace REST binding; -1 if it is not served. */
  int lanceRestPort() {
    return lanceRest == null ? -1 : lanceRest.port();
  }

  int metricsPort() {
    return server.metricsPort();
  }

  boolean demoCreated() {
    return demoCreated;
  }

  String jdbcUrl(String host) {
    return "jdbc:arrow-flight-sql://" + host + ":" + port() + "/?useEncryption=false";
  }

  /** Stops accepting calls, lets running ones finish, then closes everything in reverse order. */
  @Override
  public void close() {
    if (lanceRest != null) {
      lanceRest.close();
    }
    IllegalStateException failed = null;
    for (int i = opened.size() - 1; i >= 0; i--) {
      try {
        opened.get(i).close();
      } catch (Exception e) {
        if (failed == null) {
          failed = new IllegalStateException("closing lake dev: " + e.getMessage(), e);
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /**
   * The read-only catalogs beside {@code lake}: {@code iceberg} when configured (its federation
   * added to {@code opened}, to be closed with the server), else none.
   */
  static Map<String, SqlCatalog> federated(java.util.Optional<IcebergSettings> iceberg,
      List<AutoCloseable> opened) {
    if (iceberg.isEmpty()) {
      return Map.of();
    }
    IcebergFederation federation = IcebergFederation.connect(iceberg.get());
    opened.add(federation);
    return IcebergSqlCatalog.federated(federation);
  }

  static Map<String, TableEngine> loadEngines() {
    return loadEngines(Map.of());
  }

  /** Every engine on the class path, each made from {@code properties} (it reads its own keys). */
  static Map<String, TableEngine> loadEngines(Map<String, String> properties) {
    Map<String, TableEngine> engines = new TreeMap<>();
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      engines.put(factory.name(), factory.create(properties));
    }
    if (engines.isEmpty()) {
      throw new IllegalStateException("no table engine on the class path (expected at least 'log')");
    }
    return engines;
  }

  static boolean isLoopback(String host) {
    try {
      return java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }
}
