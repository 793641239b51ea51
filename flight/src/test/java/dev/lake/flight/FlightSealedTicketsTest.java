package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.MaintenancePolicy;
import dev.lake.flight.ticket.KeyRing;
import dev.lake.flight.ticket.TicketSealer;
import dev.lake.sql.SqlEngine;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sealed tickets and handles over the stock FlightSqlClient: a ticket planned on one replica is
 * redeemed on another sharing the key ring, replays exactly its snapshot, and every foreign,
 * altered, expired or stale ticket gets its own status while the servers stay up.
 */
class FlightSealedTicketsTest {

  private static final TableIdent EPISODES = TableIdent.of("demo", "episodes");
  private static final String COUNT = "SELECT count(*) FROM demo.episodes";

  @TempDir Path directory;
  private final KeyRing ring = KeyRing.generate("k1");
  private final Instant[] now = {Instant.parse("2026-12-01T10:00:00Z")};
  private final Clock clock = new Clock() {
    @Override public Instant instant() {
      return now[0];
    }

    @Override public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  };
  private LakeServerFixture lake;
  private final java.util.List<AutoCloseable> closing = new java.util.ArrayList<>();

  private TicketSealer sealer(Supplier<KeyRing> keys, String audience) {
    return new TicketSealer(keys, audience, clock, Duration.ofHours(1), Duration.ofHours(24));
  }

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory, LakeFlightServer.builder().tickets(sealer(() -> ring, "cluster-a")));
    lake.registry.create(EPISODES, IngestData.EPISODES, "log");
    append(0, 20);
  }

  @AfterEach
  void stop() throws Exception {
    try {
      for (AutoCloseable c : closing.reversed()) {
        c.close();
      }
    } finally {
      lake.close();
    }
  }

  /** Another replica over the same registry, sealing with {@code sealer}. */
  private FlightSqlClient replica(TicketSealer sealer) {
    BufferAllocator allocator = lake.root.newChildAllocator("replica", 0, Long.MAX_VALUE);
    LakeFlightServer server = LakeFlightServer.builder().registry(lake.registry)
        .sqlEngine(new SqlEngine(new CatalogSqlCatalog(lake.registry)))
        .allocator(allocator).workerThreads(2).tickets(sealer).build();
    server.start();
    closing.add(allocator);
    closing.add(server);
    FlightSqlClient client = new FlightSqlClient(FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", server.port())).build());
    closing.add(client);
    return client;
  }

  @Test
  void ticketPlannedOnOneReplicaReplaysTheSameSnapshotOnAnotherAfterAnAppend() throws Exception {
    FlightSqlClient b = replica(sealer(() -> ring, "cluster-a"));
    FlightInfo planned = lake.client().execute(COUNT);
    append(20, 30);
    assertEquals(20L, single(b, ticket(planned)), "pinned version, not the newer one");
    assertEquals(50L, single(b, ticket(b.execute(COUNT))));
    try (FlightSqlClient.PreparedStatement prepared = lake.client().prepare(COUNT)) {
      FlightInfo info = prepared.execute();
      assertEquals(50L, single(b, ticket(info)));
    }
  }

  @Test
  void ticketOfADroppedOrRecreatedTableIsNotFoundNeverOtherData() throws Exception {
    FlightSqlClient b = replica(sealer(() -> ring, "cluster-a"));
    FlightInfo planned = lake.client().execute(COUNT);
    lake.registry.drop(EPISODES);
    FlightRuntimeException dropped = assertThrows(FlightRuntimeException.class,
        () -> single(b, ticket(planned)));
    assertEquals(FlightStatusCode.NOT_FOUND, dropped.status().code(), dropped.getMessage());
    assertTrue(dropped.getMessage().contains("lake.demo.episodes was dropped"), dropped.getMessage());

    lake.registry.create(EPISODES, IngestData.EPISODES, "log");
    append(0, 20);
    for (FlightSqlClient client : new FlightSqlClient[] {lake.client(), b}) {
      FlightRuntimeException recreated = assertThrows(FlightRuntimeException.class,
          () -> single(client, ticket(planned)));
      assertEquals(FlightStatusCode.NOT_FOUND, recreated.status().code(), recreated.getMessage());
      assertTrue(recreated.getMessage().contains("dropped and re-created"), recreated.getMessage());
    }
    assertEquals(20L, single(b, ticket(lake.client().execute(COUNT))), "servers still answer");
  }

  @Test
  void ticketOfAVersionReclaimedByRetentionIsNotFound() throws Exception {
    String sum = "SELECT sum(id) FROM demo.episodes";
    FlightInfo planned = lake.client().execute(sum);
    append(20, 5);
    append(25, 5);
    // Compaction rewrites the three segments into one; expiry then keeps only the newest version
    // and deletes the files the planned one read.
    lake.catalog.maintain(new MaintenancePolicy(1 << 30, 2, 1, Duration.ZERO), 10, () -> false);
    lake.registry.refresh();
    FlightRuntimeException gone = assertThrows(FlightRuntimeException.class,
        () -> single(lake.client(), ticket(planned)));
    assertEquals(FlightStatusCode.NOT_FOUND, gone.status().code(), gone.getMessage());
    assertTrue(gone.getMessage().contains("expired"), gone.getMessage());
    assertEquals(29L * 30 / 2, single(lake.client(), ticket(lake.client().execute(sum))));
  }

  @Test
  void foreignAlteredExpiredAndOtherAudienceTicketsAndHandlesGetTheirOwnStatus() throws Exception {
    KeyRing other = KeyRing.generate("k2");
    FlightSqlClient foreign = replica(sealer(() -> other, "cluster-a"));
    FlightSqlClient otherAudience = replica(sealer(() -> ring, "cluster-b"));
    FlightInfo planned = lake.client().execute(COUNT);
    byte[] bytes = ticket(planned).getBytes();

    assertStatus(FlightStatusCode.UNAUTHENTICATED, "does not hold", () -> single(foreign, ticket(planned)));
    assertStatus(FlightStatusCode.UNAUTHORIZED, "audience 'cluster-a'",
        () -> single(otherAudience, ticket(planned)));
    byte[] altered = bytes.clone();
    altered[altered.length - 3] ^= 1;
    assertStatus(FlightStatusCode.UNAUTHENTICATED, "altered or cut",
        () -> single(lake.client(), new Ticket(altered)));
    byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 20);
    assertStatus(FlightStatusCode.UNAUTHENTICATED, "altered or cut",
        () -> single(lake.client(), new Ticket(cut)));
    assertStatus(FlightStatusCode.INVALID_ARGUMENT, "invalid ticket",
        () -> single(lake.client(), new Ticket("garbage".getBytes(java.nio.charset.StandardCharsets.UTF_8))));

    try (FlightSqlClient.PreparedStatement prepared = lake.client().prepare(COUNT)) {
      // The handle of another cluster's key ring is refused at GetFlightInfo.
      try (FlightSqlClient.PreparedStatement elsewhere = foreign.prepare(COUNT)) {
        assertEquals(20L, single(foreign, ticket(elsewhere.execute())));
      }
      now[0] = now[0].plus(Duration.ofHours(2));
      assertStatus(FlightStatusCode.UNAUTHENTICATED, "expired", () -> single(lake.client(), ticket(planned)));
      assertEquals(20L, single(lake.client(), ticket(prepared.execute())), "handles live 24 h");
      now[0] = now[0].plus(Duration.ofHours(23));
      assertStatus(FlightStatusCode.UNAUTHENTICATED, "prepare the statement again", prepared::execute);
    }
    assertEquals(20L, single(lake.client(), ticket(lake.client().execute(COUNT))), "server still up");
  }

  @Test
  void keyRingFileRotationKeepsOldTicketsRedeemableUntilTheirKeyIsRemoved() throws Exception {
    Path file = directory.resolve("keyring.json");
    KeyRing first = KeyRing.generate("k1");
    first.write(file);
    dev.lake.flight.ticket.KeyRingFile shared = dev.lake.flight.ticket.KeyRingFile.open(file, Duration.ZERO);
    FlightSqlClient a = replica(sealer(shared, "cluster-r"));
    FlightSqlClient b = replica(sealer(dev.lake.flight.ticket.KeyRingFile.open(file, Duration.ZERO), "cluster-r"));
    FlightInfo old = a.execute(COUNT);

    KeyRing rotated = first.rotate("k2");
    rotated.write(file);
    FlightInfo fresh = a.execute(COUNT);
    assertTrue(new String(ticket(fresh).getBytes(), java.nio.charset.StandardCharsets.ISO_8859_1)
        .contains("k2"), "sealed by the new active key");
    assertEquals(20L, single(b, ticket(old)), "the old key still verifies while listed");
    assertEquals(20L, single(b, ticket(fresh)));

    rotated.retire("k1").write(file);
    assertStatus(FlightStatusCode.UNAUTHENTICATED, "'k1'", () -> single(b, ticket(old)));
    assertEquals(20L, single(b, ticket(fresh)));
  }

  private void append(long from, int rows) throws Exception {
    try (ArrowStreamReader batches = IngestData.stream(lake.clientAllocator(), from, 1, rows)) {
      lake.registry.append(EPISODES, Optional.empty(), new AppendOperation("default",
          "demo.episodes", UUID.randomUUID(), "0".repeat(64)), batches);
    }
  }

  private static Ticket ticket(FlightInfo info) {
    return info.getEndpoints().getFirst().getTicket();
  }

  private static long single(FlightSqlClient client, Ticket ticket) throws Exception {
    try (FlightStream stream = client.getStream(ticket)) {
      long value = -1;
      while (stream.next()) {
        if (stream.getRoot().getRowCount() > 0) {
          value = ((Number) stream.getRoot().getVector(0).getObject(0)).longValue();
        }
      }
      return value;
    }
  }

  private interface Call {
    void run() throws Exception;
  }

  private static void assertStatus(FlightStatusCode code, String message, Call call) {
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, call::run);
    assertEquals(code, e.status().code(), e.getMessage());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }
}
