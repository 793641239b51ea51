package dev.lake.flight;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.CatalogCache;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.SqlEngine;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.UnaryOperator;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A real lake server in-process: RocksDB registry and every discovered engine under one
 * directory, the Flight SQL server on a free loopback port. Closing it closes everything in
 * reverse order and fails if the server or the test leaked Arrow memory.
 */
@SuppressWarnings("try")
final class LakeServerFixture implements AutoCloseable {

  final BufferAllocator root = new RootAllocator();
  final RocksDbMetaStore store;
  final Map<String, TableEngine> engines = new HashMap<>();
  /** The registry's authority, in-process as in {@code lake dev}. */
  final Catalog catalog;
  /** The server's catalog cache over {@link #catalog}: write through it to read your writes. */
  final CatalogCache registry;
  final LakeFlightServer server;
  private final BufferAllocator clientAllocator;
  private FlightSqlClient client;

  LakeServerFixture(Path directory) {
    this(directory, LakeFlightServer.builder());
  }

  LakeServerFixture(Path directory, LakeFlightServer.Builder builder) {
    this(directory, builder, Runtime.getRuntime().availableProcessors());
  }

  /** With {@code sqlThreads} workers per query plan (1: batches stream in scan order). */
  LakeServerFixture(Path directory, LakeFlightServer.Builder builder, int sqlThreads) {
    this(directory, builder, sqlThreads, UnaryOperator.identity());
  }

  /** @param sqlCatalog wraps the catalog the server's SQL engine plans over (a test hook) */
  LakeServerFixture(Path directory, LakeFlightServer.Builder builder,
      UnaryOperator<SqlCatalog> sqlCatalog) {
    this(directory, builder, Runtime.getRuntime().availableProcessors(), sqlCatalog);
  }

  /** With the read-only catalogs {@code federated} beside {@code lake}. */
  LakeServerFixture(Path directory, Map<String, SqlCatalog> federated) {
    this(directory, LakeFlightServer.builder(), Runtime.getRuntime().availableProcessors(),
        UnaryOperator.identity(), federated);
  }

  /** As {@link #LakeServerFixture(Path, Map)}, the server configured by {@code builder}. */
  LakeServerFixture(Path directory, LakeFlightServer.Builder builder,
      Map<String, SqlCatalog> federated) {
    this(directory, builder, Runtime.getRuntime().availableProcessors(), UnaryOperator.identity(),
        federated);
  }

  private LakeServerFixture(Path directory, LakeFlightServer.Builder builder, int sqlThreads,
      UnaryOperator<SqlCatalog> sqlCatalog) {
    this(directory, builder, sqlThreads, sqlCatalog, Map.of());
  }

  private LakeServerFixture(Path directory, LakeFlightServer.Builder builder, int sqlThreads,
      UnaryOperator<SqlCatalog> sqlCatalog, Map<String, SqlCatalog> federated) {
    store = RocksDbMetaStore.open(directory.resolve("meta"));
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      engines.put(factory.name(), factory.create(Map.of()));
    }
    catalog = Catalog.open(store, engines, directory.resolve("warehouse"));
    registry = CatalogCache.start(catalog, engines);
    server = builder.registry(registry)
        .sqlEngine(new SqlEngine(sqlCatalog.apply(new CatalogSqlCatalog(registry, federated)), Long.MAX_VALUE,
            sqlThreads))
        .allocator(root)
        .workerThreads(4)
        .build();
    server.start();
    clientAllocator = root.newChildAllocator("test-client", 0, Long.MAX_VALUE);
  }

  /**
   * {@code plain} (a {@link TicketCodec} ticket) sealed as this server seals tickets for the
   * anonymous principal: what a holder of the key ring could forge, to test the inner decoder.
   */
  byte[] sealTicket(byte[] plain) {
    return server.sealer().seal(dev.lake.flight.ticket.TicketSealer.Kind.TICKET,
        dev.lake.flight.auth.Principal.ANONYMOUS, java.util.List.of(), plain);
  }

  /** {@code plain} (a {@link TicketCodec} handle) sealed as this server seals handles. */
  byte[] sealHandle(byte[] plain) {
    return server.sealer().seal(dev.lake.flight.ticket.TicketSealer.Kind.HANDLE,
        dev.lake.flight.auth.Principal.ANONYMOUS, java.util.List.of(), plain);
  }

  int port() {
    return server.port();
  }

  String jdbcUrl() {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + port() + "/?useEncryption=false";
  }

  BufferAllocator clientAllocator() {
    return clientAllocator;
  }

  /** A Flight SQL client over a stock Arrow FlightClient, closed with the fixture. */
  synchronized FlightSqlClient client() {
    if (client == null) {
      client = new FlightSqlClient(FlightClient.builder(clientAllocator,
          Location.forGrpcInsecure("127.0.0.1", port())).build());
    }
    return client;
  }

  @Override
  public void close() throws Exception {
    try {
      if (client != null) {
        client.close();
      }
      server.close();
      registry.close();
      catalog.close();
      engines.values().forEach(TableEngine::close);
      store.close();
      clientAllocator.close();
    } finally {
      root.close();
    }
  }
}
