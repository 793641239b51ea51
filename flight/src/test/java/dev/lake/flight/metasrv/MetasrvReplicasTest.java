package dev.lake.flight.metasrv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.TableEngine;
import dev.lake.engine.UuidV7;
import dev.lake.flight.auth.DevCertificates;
import dev.lake.flight.auth.Secrets;
import dev.lake.flight.auth.ServiceCredentials;
import dev.lake.flight.auth.TlsFiles;
import dev.lake.metastore.dynamodb.Dynalite;
import dev.lake.metastore.dynamodb.DynamoDbMetaStore;
import dev.lake.metastore.dynamodb.DynamoDbSettings;
import dev.lake.metastore.dynamodb.DynamoDbTables;
import dev.lake.metastore.lease.LeaseElection;
import dev.lake.metastore.lease.LeaseSettings;
import io.vertx.grpc.common.GrpcStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Metasrv replicas sharing one DynamoDB-compatible store (dynalite) and one warehouse: one
 * leads, the other forwards; the leader's death hands the registry to the other. Secure replicas
 * (TLS, service token) forward with the service credentials, and the leader refuses a forwarded
 * call without them or with another token {@code UNAUTHENTICATED}, changing nothing.
 */
class MetasrvReplicasTest {

  private static final TableIdent EPISODES = TableIdent.of("robots", "episodes");
  private static final AtomicInteger TABLES = new AtomicInteger();
  private static final String TOKEN = Secrets.newToken();
  private static Dynalite dynalite;

  @TempDir Path dir;
  private DynamoDbSettings settings;
  private BufferAllocator root;
  private DevCertificates certificates;
  private final List<AutoCloseable> opened = new ArrayList<>();

  @BeforeAll
  static void startDynalite() {
    dynalite = Dynalite.start();
  }

  @AfterAll
  static void stopDynalite() {
    dynalite.close();
  }

  @BeforeEach
  void table() {
    settings = dynalite.settings("metasrv-" + TABLES.incrementAndGet());
    DynamoDbTables.create(settings);
    root = new RootAllocator();
  }

  @AfterEach
  void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    root.close();
  }

  private <T extends AutoCloseable> T open(T closeable) {
    opened.add(closeable);
    return closeable;
  }

  /** A replica with its own store client and engines, as a separate process would have. */
  private MetasrvServer replica(String nodeId, LeaseSettings lease) {
    DynamoDbMetaStore store = open(DynamoDbMetaStore.open(settings));
    Map<String, TableEngine> engines = MetasrvFixture.engines();
    engines.values().forEach(this::open);
    return open(MetasrvFixture.start(store, engines, dir.resolve("warehouse"), root, nodeId,
        lease));
  }

  private MetasrvClient client(MetasrvServer... servers) {
    StringBuilder list = new StringBuilder();
    for (MetasrvServer server : servers) {
      list.append(list.isEmpty() ? "" : ",").append("127.0.0.1:").append(server.port());
    }
    return open(MetasrvClient.connect(MetasrvClient.endpoints(list.toString()), root));
  }

  private static TableEntry append(MetasrvClient client, AppendOperation operation,
      BufferAllocator allocator) throws Exception {
    try (ArrowReader rows = MetasrvFixture.rows(allocator, 1, 2)) {
      return client.append(EPISODES, Optional.empty(), operation, rows);
    }
  }

  @Test
  void aFollowerForwardsWritesAndReadsToTheLeader() throws Exception {
    MetasrvServer a = replica("a", MetasrvFixture.FAST_LEASE);
    MetasrvServer b = replica("b", MetasrvFixture.FAST_LEASE);
    assertTrue(a.isLeader());
    MetasrvFixture.await("b to see a as leader",
        () -> b.leaderAddress().equals(Optional.of("127.0.0.1:" + a.port())));
    assertFalse(b.isLeader());

    MetasrvClient throughFollower = client(b);
    throughFollower.createNamespace("robots");
    throughFollower.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    TableEntry appended = append(throughFollower, MetasrvFixture.operation("p"), root);
    assertEquals(1, appended.version().number());

    MetasrvClient atLeader = client(a);
    assertEquals(Optional.of(appended), atLeader.lookup(EPISODES));
    assertEquals(atLeader.snapshot(), throughFollower.snapshot());
  }

  @Test
  void whenTheLeaderDiesTheOtherTakesOverAndARetryIsExactlyOnce() throws Exception {
    MetasrvServer a = replica("a", MetasrvFixture.FAST_LEASE);
    MetasrvServer b = replica("b", MetasrvFixture.FAST_LEASE);
    assertTrue(a.isLeader());
    MetasrvClient client = client(a, b);
    client.createNamespace("robots");
    client.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    UUID id = UuidV7.generate();
    TableEntry acknowledged = append(client, MetasrvFixture.operation(id, "p"), root);
    assertEquals(1, acknowledged.version().number());

    // The leader dies without resigning; the client never saw the reply, so it retries the same
    // operation, which waits out the lease and lands on the new leader.
    a.kill();
    TableEntry retried = append(client, MetasrvFixture.operation(id, "p"), root);
    assertTrue(b.isLeader());
    assertEquals(acknowledged.version(), retried.version());
    assertEquals(acknowledged.incarnation(), retried.incarnation());
    assertEquals(1, client.lookup(EPISODES).orElseThrow().version().number());

    TableEntry next = append(client, MetasrvFixture.operation("q"), root);
    assertEquals(2, next.version().number());
  }

  @Test
  void aGracefulStopResignsSoTheOtherLeadsAtItsNextStep() throws Exception {
    LeaseSettings slow = new LeaseSettings(Duration.ofSeconds(60), Duration.ofSeconds(20),
        Duration.ofSeconds(1));
    MetasrvServer a = replica("a", slow);
    MetasrvServer b = replica("b", slow);
    assertTrue(a.isLeader());
    assertFalse(b.isLeader());
    a.close();
    b.campaignNow();
    assertTrue(b.isLeader());
    MetasrvClient client = client(b);
    client.createNamespace("robots");
    assertEquals(List.of("robots"), client.snapshot().namespaces());
  }

  @Test
  void aFollowerAskedToWriteWhileNoLeaderExistsAnswersUnavailableAndChangesNothing()
      throws Exception {
    // Someone holds the lease without an address to forward to (a leader that never served).
    LeaseElection ghost = new LeaseElection(open(DynamoDbMetaStore.open(settings)),
        Leadership.LEASE_KEY, "ghost", new LeaseSettings(Duration.ofSeconds(60),
            Duration.ofSeconds(20), Duration.ofSeconds(1)), Clock.systemUTC());
    assertTrue(ghost.campaign().isPresent());
    MetasrvServer b = replica("b", MetasrvFixture.FAST_LEASE);
    assertFalse(b.isLeader());

    try (FlightClient raw = FlightClient.builder(root,
        Location.forGrpcInsecure("127.0.0.1", b.port())).build()) {
      FlightRuntimeException refused = assertThrows(FlightRuntimeException.class, () ->
          raw.doAction(new Action(MetasrvProtocol.CREATE_NAMESPACE,
              "{\"namespace\":\"robots\"}".getBytes())).forEachRemaining(r -> { }));
      assertEquals(FlightStatusCode.UNAVAILABLE, refused.status().code());
      assertTrue(refused.getMessage().contains("no Metasrv leader"), refused.getMessage());
    }
    MetasrvClient impatient = open(MetasrvClient.connect(
        MetasrvClient.endpoints("127.0.0.1:" + b.port()), root, Duration.ofMillis(300)));
    assertThrows(RegistryUnavailableException.class, () -> impatient.createNamespace("robots"));

    ghost.resign();
    b.campaignNow();
    assertTrue(b.isLeader());
    assertEquals(List.of(), client(b).snapshot().namespaces());
  }

  @Test
  void theLanceRestApiIsServedByTheLeaderAndAFollowerAnswersUnavailableNamingIt() throws Exception {
    MetasrvServer a = replica("a", MetasrvFixture.FAST_LEASE);
    MetasrvServer b = replica("b", MetasrvFixture.FAST_LEASE);
    MetasrvFixture.await("b to see a as leader",
        () -> b.leaderAddress().equals(Optional.of("127.0.0.1:" + a.port())));
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.util.function.Function<MetasrvServer, Integer> rest = server -> open(
        dev.lake.flight.lancerest.LanceRestServer.start(new dev.lake.flight.lancerest.LanceRestServer.Access() {
          @Override
          public <T> T apply(java.util.function.Function<dev.lake.catalog.LanceNamespaces, T> operation) {
            return server.withLeaderCatalog(c -> operation.apply(new dev.lake.catalog.LanceNamespaces(c, l -> Map.of())));
          }
        }, "127.0.0.1", 0, Duration.ofSeconds(1))).port();
    int atLeader = rest.apply(a);
    int atFollower = rest.apply(b);
    java.net.http.HttpResponse<String> refused = http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + atFollower + "/v1/namespace/robots/create"))
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(503, refused.statusCode(), refused.body());
    assertTrue(refused.body().contains("\"code\":17") && refused.body().contains("127.0.0.1:" + a.port()),
        refused.body());
    assertEquals(List.of(), client(a).snapshot().namespaces(), "the follower changed nothing");
    java.net.http.HttpResponse<String> created = http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + atLeader + "/v1/namespace/robots/create"))
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(201, created.statusCode(), created.body());
    assertEquals(List.of("robots"), client(b).snapshot().namespaces());
  }

  // ---- the follower→leader hop between secure replicas (TLS, service token) ----------------

  /** A TLS replica requiring (and forwarding with) {@code token}. */
  private MetasrvServer replica(String nodeId, String token) throws IOException {
    if (certificates == null) {
      certificates = DevCertificates.generate(dir.resolve("tls"), 1);
    }
    DynamoDbMetaStore store = open(DynamoDbMetaStore.open(settings));
    Map<String, TableEngine> engines = MetasrvFixture.engines();
    engines.values().forEach(this::open);
    MetasrvServer server = open(MetasrvServer.builder().store(store).engines(engines)
        .warehouse(dir.resolve("warehouse")).allocator(root).nodeId(nodeId)
        .lease(MetasrvFixture.FAST_LEASE).workerThreads(2)
        .credentials(new ServiceCredentials(token, certificates.caCertificate()))
        .tls(new TlsFiles(certificates.serverCertificate(), certificates.serverKey(), null))
        .build());
    server.start();
    return server;
  }

  private MetasrvClient secureClient(MetasrvServer server, String token) {
    return open(MetasrvClient.connect(MetasrvClient.endpoints("127.0.0.1:" + server.port()), root,
        Duration.ofMillis(300), new ServiceCredentials(token, certificates.caCertificate())));
  }

  /** A leader and a follower that knows it. */
  private MetasrvServer[] leaderAndFollower(String followerToken) throws Exception {
    MetasrvServer leader = replica("a", TOKEN);
    MetasrvServer follower = replica("b", followerToken);
    assertTrue(leader.isLeader());
    MetasrvFixture.await("b to see a as leader",
        () -> follower.leaderAddress().equals(Optional.of("127.0.0.1:" + leader.port())));
    assertFalse(follower.isLeader());
    return new MetasrvServer[] {leader, follower};
  }

  @Test
  void aWriteAtTheFollowerIsForwardedWithTheServiceTokenAndSucceeds() throws Exception {
    MetasrvServer[] replicas = leaderAndFollower(TOKEN);
    MetasrvClient throughFollower = secureClient(replicas[1], TOKEN);
    throughFollower.createNamespace("robots");
    throughFollower.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    TableEntry appended;
    try (ArrowReader rows = MetasrvFixture.rows(root, 1, 2)) {
      appended = throughFollower.append(EPISODES, Optional.empty(),
          MetasrvFixture.operation("p"), rows);
    }
    assertEquals(1, appended.version().number());
    assertEquals(Optional.of(appended), secureClient(replicas[0], TOKEN).lookup(EPISODES));
  }

  @Test
  void aForwardedCallWithoutOrWithAWrongServiceTokenIsUnauthenticatedAtTheLeader()
      throws Exception {
    MetasrvServer[] replicas = leaderAndFollower(TOKEN);
    Action create = new Action(MetasrvProtocol.CREATE_NAMESPACE,
        "{\"namespace\":\"robots\"}".getBytes(StandardCharsets.UTF_8));
    ServiceCredentials tlsOnly = new ServiceCredentials(null, certificates.caCertificate());
    try (FlightClient raw = tlsOnly.configure(FlightClient.builder(root,
        tlsOnly.location("127.0.0.1", replicas[0].port()))).build()) {
      String wrong = Secrets.newToken();
      for (String token : new String[] {null, wrong}) {
        FlightCallHeaders headers = new FlightCallHeaders();
        headers.insert(MetasrvProtocol.FORWARDED_HEADER, "1");
        if (token != null) {
          headers.insert("authorization", "Bearer " + token);
        }
        FlightRuntimeException refused = assertThrows(FlightRuntimeException.class,
            () -> raw.doAction(create, new HeaderCallOption(headers)).forEachRemaining(r -> { }));
        assertEquals(FlightStatusCode.UNAUTHENTICATED, refused.status().code(),
            refused.getMessage());
        assertTrue(refused.getMessage().contains("service token"), refused.getMessage());
        assertFalse(refused.getMessage().contains(wrong), "the token is never quoted");
      }
    }
    assertEquals(List.of(), secureClient(replicas[0], TOKEN).snapshot().namespaces());
    assertTrue(replicas[0].isLeader(), "the leader still leads");
  }

  @Test
  void aFollowerWithAnotherServiceTokenIsRefusedByTheLeaderAndChangesNothing() throws Exception {
    String followers = Secrets.newToken();
    MetasrvServer[] replicas = leaderAndFollower(followers);
    MetasrvClient throughFollower = secureClient(replicas[1], followers);
    MetasrvStatus.RemoteRefusalException refused = assertThrows(
        MetasrvStatus.RemoteRefusalException.class, () -> throughFollower.createNamespace("robots"));
    assertEquals(GrpcStatus.UNAUTHENTICATED, refused.status, refused.getMessage());
    assertTrue(refused.getMessage().contains("service token"), refused.getMessage());
    assertFalse(refused.getMessage().contains(followers), "the token is never quoted");
    MetasrvClient atLeader = secureClient(replicas[0], TOKEN);
    assertEquals(List.of(), atLeader.snapshot().namespaces());
    atLeader.createNamespace("robots");
    assertEquals(List.of("robots"), atLeader.snapshot().namespaces(), "the leader still serves");
  }
}
