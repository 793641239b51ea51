package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lake.catalog.CatalogCache;
import dev.lake.catalog.RegistrySnapshot;
import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.catalog.TableRegistry;
import dev.lake.engine.AppendOperation;
import dev.lake.sql.SqlEngine;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Query server over a catalog cache whose authority can be taken down: warm queries make no
 * authority call, an acknowledged INSERT is visible to the next query, and while the authority
 * is down queries are served and writes answer UNAVAILABLE.
 */
class FlightCatalogCacheTest {

  @TempDir Path dir;
  private LakeServerFixture lake;
  private Authority authority;
  private CatalogCache cache;
  private LakeFlightServer server;
  private FlightSqlClient client;

  @BeforeEach
  void start() {
    lake = new LakeServerFixture(dir);
    authority = new Authority(lake.catalog);
    cache = CatalogCache.unscheduled(authority, lake.engines);
    server = LakeFlightServer.builder().registry(cache)
        .sqlEngine(new SqlEngine(new CatalogSqlCatalog(cache))).allocator(lake.root).build();
    server.start();
    client = new FlightSqlClient(FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", server.port())).build());
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    server.close();
    cache.close();
    lake.close();
  }

  @Test
  void warmQueriesMakeNoAuthorityCallAndAnInsertIsVisibleToTheNextQuery() throws Exception {
    client.executeUpdate("CREATE SCHEMA lab");
    client.executeUpdate("CREATE TABLE lab.t (id BIGINT NOT NULL)");
    assertEquals(1, client.executeUpdate("INSERT INTO lab.t VALUES (1)"));
    assertEquals(1, count("SELECT count(*) FROM lab.t"));
    int before = authority.calls.get();
    for (int i = 0; i < 200; i++) {
      assertEquals(1, count("SELECT count(*) FROM lab.t"));
    }
    assertEquals(before, authority.calls.get(), "warm queries called the authority");
    assertEquals(2, client.executeUpdate("INSERT INTO lab.t VALUES (2), (3)"));
    assertEquals(3, count("SELECT count(*) FROM lab.t"), "read your writes, no refresh");
  }

  @Test
  void whileTheAuthorityIsDownQueriesAreServedAndWritesAreUnavailable() throws Exception {
    client.executeUpdate("CREATE SCHEMA lab");
    client.executeUpdate("CREATE TABLE lab.t (id BIGINT NOT NULL)");
    client.executeUpdate("INSERT INTO lab.t VALUES (1)");
    authority.down = true;
    assertEquals(1, count("SELECT count(*) FROM lab.t"));
    for (String write : List.of("INSERT INTO lab.t VALUES (2)", "CREATE TABLE lab.u (id BIGINT)",
        "DROP TABLE lab.t", "CREATE SCHEMA other")) {
      FlightRuntimeException refused =
          assertThrows(FlightRuntimeException.class, () -> client.executeUpdate(write), write);
      assertEquals(FlightStatusCode.UNAVAILABLE, refused.status().code(), write + ": " + refused);
    }
    assertEquals(1, count("SELECT count(*) FROM lab.t"));
    authority.down = false;
    assertEquals(1, client.executeUpdate("INSERT INTO lab.t VALUES (2)"));
    assertEquals(2, count("SELECT count(*) FROM lab.t"));
  }

  private long count(String sql) throws Exception {
    FlightInfo info = client.execute(sql);
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket())) {
      stream.next();
      return ((BigIntVector) stream.getRoot().getVector(0)).get(0);
    }
  }

  /** The in-process authority, counting calls; down, every call fails as unreachable. */
  private static final class Authority implements TableRegistry {
    private final TableRegistry registry;
    final AtomicInteger calls = new AtomicInteger();
    volatile boolean down;

    Authority(TableRegistry registry) {
      this.registry = registry;
    }

    private <T> T call(Supplier<T> call) {
      calls.incrementAndGet();
      if (down) {
        throw new RegistryUnavailableException("metasrv cannot be reached");
      }
      return call.get();
    }

    @Override
    public List<String> engineNames() {
      return call(registry::engineNames);
    }

    @Override
    public RegistrySnapshot snapshot() {
      return call(registry::snapshot);
    }

    @Override
    public Optional<RegistrySnapshot> snapshotIfChanged(long generation) {
      return call(() -> registry.snapshotIfChanged(generation));
    }

    @Override
    public Optional<TableEntry> lookup(TableIdent ident) {
      return call(() -> registry.lookup(ident));
    }

    @Override
    public void createNamespace(String namespace) {
      call(() -> {
        registry.createNamespace(namespace);
        return null;
      });
    }

    @Override
    public void dropNamespace(String namespace, boolean cascade) {
      call(() -> {
        registry.dropNamespace(namespace, cascade);
        return null;
      });
    }

    @Override
    public TableEntry create(TableIdent ident, Schema schema, String engine) {
      return call(() -> registry.create(ident, schema, engine));
    }

    @Override
    public TableEntry createWith(TableIdent ident, Schema schema, String engine,
        AppendOperation operation, ArrowReader batches) {
      return call(() -> registry.createWith(ident, schema, engine, operation, batches));
    }

    @Override
    public TableEntry append(TableIdent ident, Optional<UUID> incarnation,
        AppendOperation operation, ArrowReader batches) {
      return call(() -> registry.append(ident, incarnation, operation, batches));
    }

    @Override
    public TableEntry replace(TableIdent ident, Schema schema, AppendOperation operation,
        ArrowReader batches) {
      return call(() -> registry.replace(ident, schema, operation, batches));
    }

    @Override
    public TableEntry replaceWithEmpty(TableIdent ident, Schema schema) {
      return call(() -> registry.replaceWithEmpty(ident, schema));
    }

    @Override
    public void drop(TableIdent ident) {
      call(() -> {
        registry.drop(ident);
        return null;
      });
    }
  }
}
