package dev.lake.flight.metasrv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.CatalogException;
import dev.lake.catalog.NamespaceAlreadyExistsException;
import dev.lake.catalog.NamespaceNotEmptyException;
import dev.lake.catalog.RegistrySnapshot;
import dev.lake.catalog.TableAlreadyExistsException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.catalog.TableNotFoundException;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.EngineException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.UuidV7;
import dev.lake.metastore.lease.LeaseSettings;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One Metasrv on RocksDB (a single replica, leader at once), driven through its client. */
class MetasrvServerTest {

  private static final TableIdent EPISODES = TableIdent.of("robots", "episodes");

  @TempDir Path dir;
  private BufferAllocator root;
  private RocksDbMetaStore store;
  private Map<String, TableEngine> engines;
  private MetasrvServer server;
  private MetasrvClient client;

  @BeforeEach
  void start() {
    root = new RootAllocator();
    store = RocksDbMetaStore.open(dir.resolve("meta"));
    engines = MetasrvFixture.engines();
  }

  private void serve(MetasrvServer.Builder builder) {
    server = builder.store(store).engines(engines).warehouse(dir.resolve("warehouse"))
        .allocator(root).nodeId("solo").lease(LeaseSettings.DEFAULT).workerThreads(2).build();
    server.start();
    client = MetasrvClient.connect(MetasrvClient.endpoints("127.0.0.1:" + server.port()), root);
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
    engines.values().forEach(TableEngine::close);
    store.close();
    root.close();
  }

  private TableEntry append(AppendOperation operation, long first) throws Exception {
    try (ArrowReader rows = MetasrvFixture.rows(root, first, 3)) {
      return client.append(EPISODES, Optional.empty(), operation, rows);
    }
  }

  @Test
  void createAppendLookupAndSnapshotThroughTheClient() throws Exception {
    serve(MetasrvServer.builder());
    assertTrue(server.isLeader());
    assertTrue(client.engineNames().contains("log"));
    client.createNamespace("robots");
    TableEntry created = client.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    assertEquals(0, created.version().number());
    assertEquals(MetasrvFixture.SCHEMA, created.schema());

    TableEntry appended = append(MetasrvFixture.operation("a"), 1);
    assertEquals(1, appended.version().number());
    assertEquals(created.incarnation(), appended.incarnation());
    assertEquals(Optional.of(appended), client.lookup(EPISODES));
    assertEquals(Optional.empty(), client.lookup(TableIdent.of("robots", "missing")));

    RegistrySnapshot snapshot = client.snapshot();
    assertEquals(List.of("robots"), snapshot.namespaces());
    assertEquals(List.of(appended), snapshot.tables());
    assertEquals(Optional.empty(), client.snapshotIfChanged(snapshot.generation()));
    assertEquals(Optional.of(snapshot), client.snapshotIfChanged(snapshot.generation() - 1));
  }

  @Test
  void createWithRowsReplaceAndReplaceWithEmptyGoThroughTheClient() throws Exception {
    serve(MetasrvServer.builder());
    TableIdent runs = TableIdent.of("robots", "runs");
    TableEntry created;
    try (ArrowReader rows = MetasrvFixture.rows(root, 1, 4)) {
      created = client.createWith(runs, MetasrvFixture.SCHEMA, "log",
          MetasrvFixture.operation("c"), rows);
    }
    assertEquals(1, created.version().number());
    TableEntry replaced;
    try (ArrowReader rows = MetasrvFixture.rows(root, 10, 2)) {
      replaced = client.replace(runs, MetasrvFixture.SCHEMA, MetasrvFixture.operation("r"), rows);
    }
    assertFalse(replaced.incarnation().equals(created.incarnation()));
    TableEntry emptied = client.replaceWithEmpty(runs, MetasrvFixture.SCHEMA);
    assertEquals(0, emptied.version().number());
    assertEquals(Optional.of(emptied), client.lookup(runs));
  }

  @Test
  void refusalsComeBackAsTheCatalogsPreciseExceptions() throws Exception {
    serve(MetasrvServer.builder());
    client.createNamespace("robots");
    assertThrows(NamespaceAlreadyExistsException.class, () -> client.createNamespace("robots"));
    client.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    TableAlreadyExistsException taken = assertThrows(TableAlreadyExistsException.class,
        () -> client.create(EPISODES, MetasrvFixture.SCHEMA, "log"));
    assertEquals(EPISODES, taken.ident());
    TableNotFoundException missing = assertThrows(TableNotFoundException.class,
        () -> client.drop(TableIdent.of("robots", "missing")));
    assertEquals(TableIdent.of("robots", "missing"), missing.ident());
    NamespaceNotEmptyException full = assertThrows(NamespaceNotEmptyException.class,
        () -> client.dropNamespace("robots", false));
    assertEquals(List.of("episodes"), full.tables());
    try (ArrowReader rows = MetasrvFixture.rows(root, 1, 1)) {
      // Planned against another incarnation: refused, nothing written.
      assertThrows(TableNotFoundException.class, () -> client.append(EPISODES,
          Optional.of(UUID.randomUUID()), MetasrvFixture.operation("y"), rows));
    }
    client.drop(EPISODES);
    assertEquals(Optional.empty(), client.lookup(EPISODES));
  }

  @Test
  void replayWithTheSameOperationIdReturnsTheOriginalVersionAndAnotherDigestIsRefused()
      throws Exception {
    serve(MetasrvServer.builder());
    client.createNamespace("robots");
    client.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    UUID id = UuidV7.generate();
    TableEntry first = append(MetasrvFixture.operation(id, "payload"), 1);
    TableEntry replay = append(MetasrvFixture.operation(id, "payload"), 1);
    assertEquals(first.version(), replay.version());
    assertEquals(1, client.lookup(EPISODES).orElseThrow().version().number());

    dev.lake.catalog.OperationConflictException conflict = assertThrows(
        dev.lake.catalog.OperationConflictException.class,
        () -> append(MetasrvFixture.operation(id, "another payload"), 1));
    assertEquals(id, conflict.operationId(), "the client rebuilds the authority's refusal");
    assertTrue(conflict.getMessage().contains(id.toString()), conflict.getMessage());
    assertEquals(1, client.lookup(EPISODES).orElseThrow().version().number());
  }

  @Test
  void aLeaderIsReadyAndReportsItsLeadershipAndCalls() throws Exception {
    serve(MetasrvServer.builder().metrics("127.0.0.1", 0));
    client.createNamespace("robots");
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + server.metricsPort();
    assertEquals(200, http.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(base + "/health/ready")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode());
    String metrics = http.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(base + "/metrics")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    assertTrue(metrics.contains("lake_metasrv_leader{role=\"metasrv\"} 1.0"), metrics);
    assertTrue(metrics.contains("lake_grpc_calls_total{method=\"/arrow.flight.protocol"
        + ".FlightService/DoAction\",role=\"metasrv\",status=\"OK\"}"), metrics);
  }

  @Test
  void theLeaderCompactsSmallFilesAsANewVersionHoldingTheSameRows() throws Exception {
    serve(MetasrvServer.builder().maintenance(java.time.Duration.ofHours(1),
        dev.lake.engine.MaintenancePolicy.compactOnly(1 << 20, 2)));
    client.createNamespace("robots");
    client.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    for (int i = 0; i < 3; i++) {
      append(MetasrvFixture.operation("batch-" + i), 1 + 3L * i);
    }
    TableEntry before = client.lookup(EPISODES).orElseThrow();
    assertEquals(3, before.version().number());

    assertEquals(1, server.maintainNow(), "one table compacted");
    TableEntry after = client.lookup(EPISODES).orElseThrow();
    assertEquals(4, after.version().number(), "compaction is one new version");
    assertEquals(before.incarnation(), after.incarnation());
    try (dev.lake.engine.TableHandle handle = engines.get("log").open(after.location()).orElseThrow()) {
      assertEquals(9, handle.snapshot(after.version()).rowCount(), "the same rows");
    }
    assertEquals(0, server.maintainNow(), "nothing left to compact");
  }

  @Test
  void aPayloadWhoseDigestDoesNotMatchIsInvalidArgumentAndChangesNothing() throws Exception {
    serve(MetasrvServer.builder());
    client.createNamespace("robots");
    client.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    FlightRuntimeException refused = assertThrows(FlightRuntimeException.class,
        () -> rawPut("0".repeat(64), 3, 1));
    assertEquals(FlightStatusCode.INVALID_ARGUMENT, refused.status().code());
    assertTrue(refused.getMessage().contains("SHA-256"), refused.getMessage());
    assertEquals(0, client.lookup(EPISODES).orElseThrow().version().number());
  }

  @Test
  void aStreamOverTheBoundIsResourceExhausted() throws Exception {
    serve(MetasrvServer.builder().maxStreamBytes(64 << 10));
    client.createNamespace("robots");
    client.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    FlightRuntimeException refused = assertThrows(FlightRuntimeException.class,
        () -> rawPut("0".repeat(64), 1_000, 20));
    assertEquals(FlightStatusCode.RESOURCE_EXHAUSTED, refused.status().code());
    assertEquals(0, client.lookup(EPISODES).orElseThrow().version().number());
  }

  @Test
  void anAppendBeyondTheConcurrentBoundIsRefusedAtOnce() throws Exception {
    serve(MetasrvServer.builder().maxConcurrentAppends(1));
    client.createNamespace("robots");
    client.create(EPISODES, MetasrvFixture.SCHEMA, "log");
    byte[] command = MetasrvProtocol.encode(new MetasrvProtocol.PutCommand(
        MetasrvProtocol.PutKind.APPEND, EPISODES, Optional.empty(), Optional.empty(),
        Optional.empty(), MetasrvFixture.operation("open"), "0".repeat(64)));
    try (FlightClient raw = FlightClient.builder(root,
            Location.forGrpcInsecure("127.0.0.1", server.port())).build();
        VectorSchemaRoot empty = VectorSchemaRoot.create(MetasrvFixture.SCHEMA, root)) {
      // The first stream sends its descriptor and schema and stays open: it holds the one slot.
      SyncPutListener holding = new SyncPutListener();
      FlightClient.ClientStreamListener open =
          raw.startPut(FlightDescriptor.command(command), empty, holding);
      // Wait for the server to admit the first stream (nothing else competes for the slot).
      MetasrvFixture.await("the first append to hold its slot",
          () -> server.appendsInProgress() == 1);
      dev.lake.catalog.CatalogException busy;
      try (ArrowReader rows = MetasrvFixture.rows(root, 1, 1)) {
        busy = assertThrows(dev.lake.catalog.CatalogException.class, () -> client.append(
            EPISODES, Optional.empty(), MetasrvFixture.operation("second"), rows));
      }
      assertTrue(busy instanceof MetasrvStatus.RemoteRefusalException refused
          && refused.status == io.vertx.grpc.common.GrpcStatus.RESOURCE_EXHAUSTED,
          busy.toString());
      open.completed();
      assertThrows(FlightRuntimeException.class, open::getResult);
      holding.close();
      assertEquals(0, client.lookup(EPISODES).orElseThrow().version().number(), "nothing changed");
    }
  }

  @Test
  void anUnknownActionIsInvalidArgument() throws Exception {
    serve(MetasrvServer.builder());
    try (FlightClient raw = FlightClient.builder(root,
        Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
      FlightRuntimeException refused = assertThrows(FlightRuntimeException.class,
          () -> raw.doAction(new org.apache.arrow.flight.Action("explode", new byte[0]))
              .forEachRemaining(r -> { }));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, refused.status().code());
    }
  }

  /** An append stream sent by hand, announcing {@code payloadSha256}. */
  private void rawPut(String payloadSha256, int rowsPerBatch, int batches) throws Exception {
    byte[] command = MetasrvProtocol.encode(new MetasrvProtocol.PutCommand(
        MetasrvProtocol.PutKind.APPEND, EPISODES, Optional.empty(), Optional.empty(),
        Optional.empty(), MetasrvFixture.operation("raw"), payloadSha256));
    try (FlightClient raw = FlightClient.builder(root,
            Location.forGrpcInsecure("127.0.0.1", server.port())).build();
        ArrowReader rows = MetasrvFixture.rows(root, 1, rowsPerBatch)) {
      rows.loadNextBatch();
      VectorSchemaRoot data = rows.getVectorSchemaRoot();
      SyncPutListener listener = new SyncPutListener();
      FlightClient.ClientStreamListener stream =
          raw.startPut(FlightDescriptor.command(command), data, listener);
      for (int i = 0; i < batches; i++) {
        stream.putNext();
      }
      stream.completed();
      try {
        stream.getResult();
      } finally {
        listener.close();
      }
    }
  }
}
