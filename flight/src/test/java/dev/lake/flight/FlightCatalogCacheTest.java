package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.CatalogCache;
import dev.lake.catalog.CountingRegistry;
import dev.lake.sql.SqlEngine;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.BigIntVector;
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
  private CountingRegistry authority;
  private CatalogCache cache;
  private LakeFlightServer server;
  private FlightSqlClient client;

  @BeforeEach
  void start() {
    lake = new LakeServerFixture(dir);
    authority = new CountingRegistry(lake.catalog);
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

  /**
   * Two replicas over one authority, neither refreshing on a schedule: what one creates, the
   * other resolves at its first use (a missing name is asked for once before NOT_FOUND), and a
   * flood of names that do not exist stays bounded.
   */
  @Test
  void whatAnotherReplicaCreatedResolvesAtItsFirstUseAndUnknownNamesStayBounded()
      throws Exception {
    CatalogCache otherCache = CatalogCache.unscheduled(authority, lake.engines);
    LakeFlightServer otherServer = LakeFlightServer.builder().registry(otherCache)
        .sqlEngine(new SqlEngine(new CatalogSqlCatalog(otherCache))).allocator(lake.root).build();
    otherServer.start();
    try (FlightSqlClient other = new FlightSqlClient(FlightClient.builder(
        lake.clientAllocator(), Location.forGrpcInsecure("127.0.0.1", otherServer.port())).build())) {
      client.executeUpdate("CREATE SCHEMA lab");
      client.executeUpdate("CREATE TABLE lab.t (id BIGINT NOT NULL)");
      assertEquals(1, other.executeUpdate("INSERT INTO lab.t VALUES (1)"), "INSERT at once");
      assertEquals(1, count(other, "SELECT count(*) FROM lab.t"));
      client.executeUpdate("CREATE TABLE lab.u (id BIGINT NOT NULL)");
      assertEquals(0, count(other, "SELECT count(*) FROM lab.u"), "SELECT at once");
      client.executeUpdate("CREATE SCHEMA fresh");
      other.executeUpdate("CREATE TABLE fresh.v (id BIGINT NOT NULL)");
      assertEquals(0, count(client, "SELECT count(*) FROM fresh.v"));

      int before = authority.calls.get();
      // 20 rounds: Netty's HTTP/2 server closes a connection after 200 reset streams.
      for (int i = 0; i < 20; i++) {
        for (String missing : List.of("SELECT * FROM lab.nope", "SELECT * FROM nowhere.t",
            "INSERT INTO lab.nope VALUES (1)", "CREATE TABLE nowhere.t (id BIGINT)")) {
          FlightRuntimeException refused = assertThrows(FlightRuntimeException.class,
              () -> {
                if (missing.startsWith("SELECT")) {
                  other.execute(missing);
                } else {
                  other.executeUpdate(missing);
                }
              }, missing);
          assertEquals(FlightStatusCode.NOT_FOUND, refused.status().code(), missing + ": " + refused);
        }
      }
      assertTrue(authority.calls.get() - before <= 2, "a flood of unknown names reached the"
          + " authority " + (authority.calls.get() - before) + " times");
      otherCache.refresh();
      assertEquals(1, count(other, "SELECT count(*) FROM lab.t"));
    } finally {
      otherServer.close();
      otherCache.close();
    }
  }

  private long count(String sql) throws Exception {
    return count(client, sql);
  }

  private static long count(FlightSqlClient client, String sql) throws Exception {
    FlightInfo info = client.execute(sql);
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket())) {
      stream.next();
      return ((BigIntVector) stream.getRoot().getVector(0)).get(0);
    }
  }
}
