package dev.lake.flight.metasrv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.CatalogException;
import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.TableEngine;
import dev.lake.flight.auth.DevCertificates;
import dev.lake.flight.auth.Grants;
import dev.lake.flight.auth.Principal;
import dev.lake.flight.auth.Secrets;
import dev.lake.flight.auth.ServiceCredentials;
import dev.lake.flight.auth.TlsFiles;
import dev.lake.metastore.lease.LeaseSettings;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Metasrv authenticates every call with the service token, over TLS. */
class MetasrvAuthTest {

  private static final String TOKEN = Secrets.newToken();

  @TempDir Path dir;
  private BufferAllocator root;
  private RocksDbMetaStore store;
  private Map<String, TableEngine> engines;
  private MetasrvServer server;
  private DevCertificates certificates;
  private List<URI> endpoints;

  @BeforeEach
  void start() throws Exception {
    root = new RootAllocator();
    store = RocksDbMetaStore.open(dir.resolve("meta"));
    engines = MetasrvFixture.engines();
    certificates = DevCertificates.generate(dir.resolve("tls"), 2);
    server = MetasrvServer.builder().store(store).engines(engines)
        .warehouse(dir.resolve("warehouse")).allocator(root).nodeId("solo")
        .lease(LeaseSettings.DEFAULT).workerThreads(2)
        .credentials(new ServiceCredentials(TOKEN, certificates.caCertificate()))
        .tls(new TlsFiles(certificates.serverCertificate(), certificates.serverKey(), null))
        .build();
    server.start();
    endpoints = MetasrvClient.endpoints("localhost:" + server.port());
  }

  @AfterEach
  void stop() {
    server.close();
    engines.values().forEach(TableEngine::close);
    store.close();
    root.close();
  }

  private MetasrvClient client(String token, Path ca) {
    return MetasrvClient.connect(endpoints, root, Duration.ofMillis(300),
        new ServiceCredentials(token, ca));
  }

  @Test
  void callsWithTheServiceTokenOverTlsAreServed() {
    try (MetasrvClient client = client(TOKEN, certificates.caCertificate())) {
      client.createNamespace("robots");
      client.create(TableIdent.of("robots", "episodes"), MetasrvFixture.SCHEMA, "log");
      assertTrue(client.lookup(TableIdent.of("robots", "episodes")).isPresent());
    }
  }

  @Test
  void callsWithoutOrWithAWrongTokenAreRefusedAndChangeNothing() {
    try (MetasrvClient anonymous = client(null, certificates.caCertificate());
        MetasrvClient wrong = client(Secrets.newToken(), certificates.caCertificate())) {
      CatalogException none = assertThrows(CatalogException.class,
          () -> anonymous.createNamespace("robots"));
      assertTrue(none.getMessage().contains("UNAUTHENTICATED"), none.getMessage());
      CatalogException bad = assertThrows(CatalogException.class,
          () -> wrong.createNamespace("robots"));
      assertTrue(bad.getMessage().contains("UNAUTHENTICATED"), bad.getMessage());
    }
    try (MetasrvClient client = client(TOKEN, certificates.caCertificate())) {
      assertEquals(List.of(), client.snapshot().namespaces());
    }
  }

  @Test
  void writesCarryTheEndPrincipalAndMetasrvRechecksItsGrants() throws Exception {
    TableIdent episodes = TableIdent.of("robots", "episodes");
    Principal reader = new Principal("r", "t1", Principal.Role.READER, Set.of("robots"));
    Principal otherWriter = new Principal("w", "t1", Principal.Role.WRITER, Set.of("lab"));
    Principal writer = new Principal("rw", "t1", Principal.Role.WRITER, Set.of("robots"));
    try (MetasrvClient client = client(TOKEN, certificates.caCertificate())) {
      client.createNamespace("robots");
      MetasrvStatus.RemoteRefusalException denied = assertThrows(MetasrvStatus.RemoteRefusalException.class,
          () -> Grants.callAs(reader, () -> client.create(episodes, MetasrvFixture.SCHEMA, "log")));
      assertTrue(denied.getMessage().contains("robots.episodes"), denied.getMessage());
      assertThrows(MetasrvStatus.RemoteRefusalException.class, () -> Grants.callAs(otherWriter,
          () -> client.create(episodes, MetasrvFixture.SCHEMA, "log")));
      assertThrows(MetasrvStatus.RemoteRefusalException.class, () -> Grants.callAs(writer, () -> {
        client.createNamespace("more");
        return null;
      }));
      assertTrue(client.lookup(episodes).isEmpty());
      assertEquals(List.of("robots"), client.snapshot().namespaces());

      Grants.callAs(writer, () -> client.create(episodes, MetasrvFixture.SCHEMA, "log"));
      assertTrue(client.lookup(episodes).isPresent());
    }
  }

  @Test
  void aPlaintextClientCannotReachATlsMetasrv() {
    try (MetasrvClient plaintext = client(TOKEN, null)) {
      assertThrows(RegistryUnavailableException.class, () -> plaintext.createNamespace("robots"));
    }
  }

  @Test
  void nonLoopbackMetasrvWithoutTokenOrTlsIsRefusedAtStart() {
    try (MetasrvServer open = MetasrvServer.builder().store(store).engines(engines)
        .warehouse(dir.resolve("warehouse2")).allocator(root).nodeId("open").host("0.0.0.0")
        .lease(LeaseSettings.DEFAULT).build()) {
      IllegalStateException e = assertThrows(IllegalStateException.class, open::start);
      assertTrue(e.getMessage().contains("loopback only"), e.getMessage());
    }
  }
}
