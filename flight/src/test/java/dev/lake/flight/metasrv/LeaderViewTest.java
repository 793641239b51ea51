package dev.lake.flight.metasrv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.RegistrySnapshot;
import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.TableEngine;
import dev.lake.metastore.lease.LeaseSettings;
import dev.lake.metastore.lease.ManualClock;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's view of the registry is the registry's only while it holds the lease: two
 * replicas over one store, elections stepped by hand with manual clocks, so that one replica's
 * lease lapses without any step of its own noticing (a stalled election thread).
 */
class LeaderViewTest {

  private static final TableIdent FRAMES = TableIdent.of("robots", "frames");
  private static final LeaseSettings LEASE = LeaseSettings.DEFAULT;

  @TempDir Path dir;
  private BufferAllocator root;
  private RocksDbMetaStore store;
  private Map<String, TableEngine> engines;
  private final List<AutoCloseable> opened = new ArrayList<>();
  private final ManualClock clockA = new ManualClock(1_000_000);
  private final ManualClock clockB = new ManualClock(1_000_000);

  @BeforeEach
  void open() {
    root = new RootAllocator();
    store = RocksDbMetaStore.open(dir.resolve("meta"));
    engines = MetasrvFixture.engines();
  }

  @AfterEach
  void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    engines.values().forEach(TableEngine::close);
    store.close();
    root.close();
  }

  private MetasrvServer replica(String node, ManualClock clock) {
    MetasrvServer server = MetasrvServer.builder().store(store).engines(engines)
        .warehouse(dir.resolve("warehouse")).allocator(root).nodeId(node).lease(LEASE)
        .clock(clock).campaign(false).workerThreads(2).build();
    opened.add(server);
    server.start();
    return server;
  }

  private MetasrvClient client(Duration retryFor, MetasrvServer... servers) {
    List<java.net.URI> endpoints = new ArrayList<>();
    for (MetasrvServer server : servers) {
      endpoints.add(java.net.URI.create("grpc://127.0.0.1:" + server.port()));
    }
    MetasrvClient client = MetasrvClient.connect(endpoints, root, retryFor);
    opened.add(client);
    return client;
  }

  /** Both clocks past A's lease, so A's own clock says it lapsed and B may take it. */
  private void lapse() {
    Duration past = LEASE.ttl().plusSeconds(1);
    clockA.advance(past);
    clockB.advance(past);
  }

  @Test
  void aLeaderWhoseLeaseLapsedNeverAnswersNotModifiedOverItsSuccessorsChanges() throws Exception {
    MetasrvServer a = replica("a", clockA);
    assertTrue(a.isLeader());
    MetasrvServer b = replica("b", clockB);
    assertFalse(b.isLeader());
    client(Duration.ZERO, a).createNamespace("robots");
    RegistrySnapshot before = client(Duration.ZERO, a).snapshot();

    lapse();
    b.campaignNow();
    assertTrue(b.isLeader());
    assertTrue(a.isLeader(), "no step of A has run: it still holds its catalog");
    TableEntry created = client(Duration.ZERO, b).create(FRAMES, MetasrvFixture.SCHEMA, "log");

    assertThrows(RegistryUnavailableException.class,
        () -> client(Duration.ZERO, a).snapshotIfChanged(before.generation()),
        "A answered from the view of a lease it no longer holds");
    Optional<RegistrySnapshot> through = client(Duration.ofSeconds(30), a, b)
        .snapshotIfChanged(before.generation());
    assertEquals(List.of(created), through.orElseThrow().tables());
  }

  @Test
  void aLeaderThatTakesTheLeaseAgainAfterAnotherLedTakesOverAfresh() throws Exception {
    MetasrvServer a = replica("a", clockA);
    MetasrvServer b = replica("b", clockB);
    client(Duration.ZERO, a).createNamespace("robots");
    RegistrySnapshot before = client(Duration.ZERO, a).snapshot();

    lapse();
    b.campaignNow();
    TableEntry created = client(Duration.ZERO, b).create(FRAMES, MetasrvFixture.SCHEMA, "log");
    b.close(); // resigns: A may take the lease again at its next step
    a.campaignNow();
    assertTrue(a.isLeader());

    Optional<RegistrySnapshot> now = client(Duration.ZERO, a).snapshotIfChanged(before.generation());
    assertTrue(now.isPresent(), "A answered 'not modified' from its catalog of the earlier term");
    assertEquals(List.of(created), now.get().tables());
    assertEquals(Optional.of(created), client(Duration.ZERO, a).lookup(FRAMES));
  }
}
