package dev.lake.metastore.lease;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.metastore.Fence;
import dev.lake.metastore.FencedException;
import dev.lake.metastore.MetaStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of {@link LeaseElection} over any {@link MetaStore}: deterministic tests on a
 * {@link ManualClock}, and a real-time failover test.
 */
public abstract class LeaseElectionContract {

  static final String KEY = "lease/metasrv";
  static final LeaseSettings TIMING =
      new LeaseSettings(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(1));

  protected MetaStore store;
  private final List<LeaseElection> elections = new ArrayList<>();
  private final ManualClock clock = new ManualClock(1_000_000);

  protected abstract MetaStore newStore() throws Exception;

  @BeforeEach
  void openStore() throws Exception {
    store = newStore();
  }

  @AfterEach
  void closeAll() {
    elections.forEach(LeaseElection::stopWithoutResigning);
    store.close();
  }

  private LeaseElection contender(String holder, LeaseSettings settings, Clock clock) {
    LeaseElection election = new LeaseElection(store, KEY, holder, settings, clock);
    elections.add(election);
    return election;
  }

  private LeaseElection contender(String holder) {
    return contender(holder, TIMING, clock);
  }

  @Test
  void firstContenderTakesEpochOneAndTheOthersObserveIt() {
    LeaseElection a = contender("a");
    LeaseElection b = contender("b");
    assertTrue(a.observe().isEmpty());
    Lease lease = a.campaign().orElseThrow();
    assertEquals(1, lease.epoch());
    assertTrue(b.campaign().isEmpty());
    LeaseRecord seen = b.observe().orElseThrow();
    assertEquals("a", seen.holder());
    assertEquals(1, seen.epoch());
    assertEquals(clock.millis() + TIMING.ttl().toMillis(), seen.expiresAtMillis());
    assertThrows(NotLeaderException.class, b::fence);
    assertEquals(Fence.of(1), a.fence());
  }

  @Test
  void renewalKeepsTheEpochAndPushesTheExpiry() {
    LeaseElection a = contender("a");
    LeaseElection b = contender("b");
    a.campaign().orElseThrow();
    for (int i = 0; i < 20; i++) {
      clock.advance(TIMING.renewInterval());
      assertTrue(a.renew());
      assertTrue(b.campaign().isEmpty());
    }
    assertEquals(1, a.observe().orElseThrow().epoch());
    assertEquals(Fence.of(1), a.fence());
  }

  @Test
  void leaderStopsActingOneDriftMarginBeforeOthersMayTakeOver() {
    LeaseElection a = contender("a");
    LeaseElection b = contender("b");
    a.campaign().orElseThrow();
    clock.advance(TIMING.ttl().minus(TIMING.driftMargin()).minusMillis(1));
    assertEquals(Fence.of(1), a.fence());
    clock.advance(Duration.ofMillis(1));
    assertThrows(NotLeaderException.class, a::fence);
    assertTrue(a.currentLease().isEmpty());
    assertTrue(b.campaign().isEmpty(), "the lease has not expired yet for others");
    clock.advance(TIMING.driftMargin());
    assertEquals(2, b.campaign().orElseThrow().epoch());
  }

  @Test
  void pausedFormerLeaderCannotOverwriteOrUndoItsSuccessorsWrites() {
    LeaseElection a = contender("a");
    LeaseElection b = contender("b");
    a.campaign().orElseThrow();
    GuardedMetaStore asA = new GuardedMetaStore(store, a);
    assertTrue(asA.compareAndSet("tbl/ns/t", Optional.empty(), bytes("a1")));
    assertTrue(asA.compareAndSet("drop/ns/old", Optional.empty(), bytes("tomb")));
    // a checks its lease, then pauses before its write is sent...
    Fence pausedFence = a.fence();
    clock.advance(TIMING.ttl());
    Lease taken = b.campaign().orElseThrow();
    assertEquals(2, taken.epoch());
    GuardedMetaStore asB = new GuardedMetaStore(store, b);
    assertTrue(asB.compareAndSet("tbl/ns/t", Optional.of(bytes("a1")), bytes("b1")));
    assertTrue(asB.deleteIfEquals("drop/ns/old", bytes("tomb")));
    // ...and resumes: the store refuses its writes in the same conditional write.
    assertThrows(FencedException.class,
        () -> store.compareAndSet("tbl/ns/t", Optional.of(bytes("b1")), bytes("a2"), pausedFence));
    assertThrows(FencedException.class,
        () -> store.deleteIfEquals("tbl/ns/t", bytes("b1"), pausedFence));
    assertThrows(FencedException.class,
        () -> store.compareAndSet("drop/ns/old", Optional.empty(), bytes("tomb"), pausedFence));
    // Its own guard refuses before sending anything, and it cannot renew.
    assertThrows(NotLeaderException.class,
        () -> asA.compareAndSet("tbl/ns/t", Optional.of(bytes("b1")), bytes("a2")));
    assertFalse(a.renew());
    assertArrayEquals(bytes("b1"), store.get("tbl/ns/t").orElseThrow());
    assertTrue(store.get("drop/ns/old").isEmpty());
    assertEquals("b", a.observe().orElseThrow().holder());
  }

  @Test
  void resignedLeaseIsTakenAtOnceWithTheNextEpoch() {
    LeaseElection a = contender("a");
    LeaseElection b = contender("b");
    a.campaign().orElseThrow();
    a.resign();
    assertThrows(NotLeaderException.class, a::fence);
    assertEquals(2, b.campaign().orElseThrow().epoch());
    assertTrue(a.campaign().isEmpty());
    b.resign();
    assertEquals(3, a.campaign().orElseThrow().epoch(), "epochs keep growing after resigns");
  }

  @Test
  void guardedWriteWithAnotherEpochsFenceIsRefused() {
    LeaseElection a = contender("a");
    a.campaign().orElseThrow();
    GuardedMetaStore guarded = new GuardedMetaStore(store, a);
    assertThrows(NotLeaderException.class,
        () -> guarded.compareAndSet("k/x", Optional.empty(), bytes("v"), Fence.of(7)));
    assertTrue(store.get("k/x").isEmpty());
    assertTrue(guarded.compareAndSet("k/x", Optional.empty(), bytes("v"), Fence.of(1)));
  }

  @Test
  void hundredForcedTakeoversNeverGiveTwoHoldersTheSameEpoch() throws Exception {
    List<LeaseElection> contenders = List.of(contender("c0"), contender("c1"), contender("c2"));
    Map<Long, String> holderOfEpoch = new HashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(contenders.size());
    try {
      Fence previous = null;
      String previousHolder = "";
      long lastEpoch = 0;
      for (int round = 0; round < 100; round++) {
        // The leader pauses (stops renewing) until its lease has run out; the others race for it.
        clock.advance(TIMING.ttl());
        String paused = previousHolder;
        List<LeaseElection> racing =
            contenders.stream().filter(c -> !c.holder().equals(paused)).toList();
        CyclicBarrier start = new CyclicBarrier(racing.size());
        List<Future<Optional<Lease>>> attempts = new ArrayList<>();
        for (LeaseElection c : racing) {
          attempts.add(pool.submit(() -> {
            start.await(10, TimeUnit.SECONDS);
            return c.campaign();
          }));
        }
        List<Lease> won = new ArrayList<>();
        for (Future<Optional<Lease>> attempt : attempts) {
          attempt.get(30, TimeUnit.SECONDS).ifPresent(won::add);
        }
        assertEquals(1, won.size(), "round " + round + ": exactly one holder, got " + won);
        Lease lease = won.getFirst();
        String earlier = holderOfEpoch.put(lease.epoch(), lease.holder());
        assertEquals(null, earlier, "epoch " + lease.epoch() + " held twice");
        assertEquals(lastEpoch + 1, lease.epoch());
        assertNotEquals(previousHolder, lease.holder());
        lastEpoch = lease.epoch();
        // The new leader writes; the one before it is fenced out of that key.
        byte[] value = bytes("round-" + round);
        Optional<byte[]> current = store.get("tbl/ns/t");
        assertTrue(store.compareAndSet("tbl/ns/t", current, value, lease.fence()));
        if (previous != null) {
          Fence stale = previous;
          assertThrows(FencedException.class,
              () -> store.compareAndSet("tbl/ns/t", Optional.of(value), bytes("stale"), stale));
        }
        if (!paused.isEmpty()) {
          LeaseElection resumed = byHolder(contenders, paused);
          assertThrows(NotLeaderException.class, resumed::fence);
          assertFalse(resumed.renew());
        }
        previous = lease.fence();
        previousHolder = lease.holder();
      }
      assertEquals(100, holderOfEpoch.size());
      assertEquals(100, lastEpoch);
    } finally {
      pool.shutdownNow();
      assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }
  }

  @Test
  void killedLeaderIsReplacedWithinTtlPlusOneRenewInterval() throws Exception {
    LeaseSettings fast = new LeaseSettings(Duration.ofMillis(1200), Duration.ofMillis(250),
        Duration.ofMillis(100));
    // Scheduling slack on a loaded 2-core machine, on top of the bound the design promises.
    long bound = fast.ttl().plus(fast.renewInterval()).toMillis() + 400;
    List<LeaseElection> contenders = List.of(contender("r0", fast, Clock.systemUTC()),
        contender("r1", fast, Clock.systemUTC()), contender("r2", fast, Clock.systemUTC()));
    contenders.forEach(LeaseElection::start);
    LeaseRecord leader = awaitLeader(contenders, 0, 5_000);
    for (int kill = 0; kill < 2; kill++) {
      LeaseElection victim = byHolder(contenders, leader.holder());
      Fence victimFence = victim.fence();
      long killedAt = System.nanoTime();
      victim.stopWithoutResigning();
      LeaseRecord next = awaitLeader(contenders, leader.epoch(), bound + 2_000);
      long failoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
      System.out.println("failover " + kill + ": " + failoverMillis + " ms (epoch "
          + leader.epoch() + " -> " + next.epoch() + ")");
      assertNotEquals(leader.holder(), next.holder());
      assertTrue(next.epoch() > leader.epoch());
      assertTrue(failoverMillis <= bound,
          "failover took " + failoverMillis + " ms, bound " + bound + " ms");
      // The new leader writes; the killed one, resumed, is refused by its guard and the store.
      LeaseElection successor = byHolder(contenders, next.holder());
      GuardedMetaStore asSuccessor = new GuardedMetaStore(store, successor);
      Optional<byte[]> current = store.get("tbl/ns/rt");
      assertTrue(asSuccessor.compareAndSet("tbl/ns/rt", current, bytes("epoch-" + next.epoch())));
      assertThrows(NotLeaderException.class, victim::fence);
      assertThrows(FencedException.class, () -> store.compareAndSet("tbl/ns/rt",
          Optional.of(bytes("epoch-" + next.epoch())), bytes("stale"), victimFence));
      leader = next;
    }
  }

  private static LeaseElection byHolder(List<LeaseElection> contenders, String holder) {
    return contenders.stream().filter(c -> c.holder().equals(holder)).findFirst().orElseThrow();
  }

  /** Waits for a contender to hold a valid lease with an epoch above {@code afterEpoch}. */
  private LeaseRecord awaitLeader(List<LeaseElection> contenders, long afterEpoch, long timeoutMs)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    while (System.nanoTime() < deadline) {
      for (LeaseElection c : contenders) {
        Optional<Lease> lease = c.currentLease();
        if (lease.isPresent() && lease.get().epoch() > afterEpoch) {
          LeaseRecord stored = c.observe().orElseThrow();
          assertEquals(lease.get().epoch(), stored.epoch());
          return stored;
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError("no leader with an epoch above " + afterEpoch + " within "
        + timeoutMs + " ms");
  }

  protected static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
