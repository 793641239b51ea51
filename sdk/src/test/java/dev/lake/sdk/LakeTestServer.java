package dev.lake.sdk;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.CatalogCache;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.flight.CatalogSqlCatalog;
import dev.lake.flight.LakeFlightServer;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import dev.lake.sql.SqlEngine;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A real lake server in-process, as {@code lake dev} runs it: RocksDB registry and every engine
 * on the class path under one temp directory, Flight SQL on a free loopback port. Closing it
 * fails if the server leaked Arrow memory.
 */
final class LakeTestServer implements AutoCloseable {

  private final BufferAllocator root = new RootAllocator();
  private final RocksDbMetaStore store;
  private final Map<String, TableEngine> engines = new HashMap<>();
  private final Catalog catalog;
  private final CatalogCache registry;
  private final LakeFlightServer server;
  private boolean closed;

  LakeTestServer(Path directory, LakeFlightServer.Builder builder) {
    this(directory, builder, java.util.function.UnaryOperator.identity());
  }

  /** @param authority wraps the registry authority the server writes through (a fault hook) */
  LakeTestServer(Path directory, LakeFlightServer.Builder builder,
      java.util.function.UnaryOperator<dev.lake.catalog.TableRegistry> authority) {
    store = RocksDbMetaStore.open(directory.resolve("meta"));
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      engines.put(factory.name(), factory.create(Map.of()));
    }
    catalog = Catalog.open(store, engines, directory.resolve("warehouse"));
    registry = CatalogCache.start(authority.apply(catalog), engines);
    server = builder.registry(registry)
        .sqlEngine(new SqlEngine(new CatalogSqlCatalog(registry), Long.MAX_VALUE, 2))
        .allocator(root)
        .workerThreads(2)
        .build();
    server.start();
  }

  /** The current version number of table {@code namespace.table}. */
  long version(String namespace, String table) {
    return catalog.readHandle(dev.lake.catalog.TableIdent.of(namespace, table)).orElseThrow()
        .currentVersion().number();
  }

  String uri() {
    return "grpc://127.0.0.1:" + server.port();
  }

  /** Stops the server and releases everything; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      server.close();
      registry.close();
      catalog.close();
      engines.values().forEach(TableEngine::close);
      store.close();
    } finally {
      root.close();
    }
  }
}
