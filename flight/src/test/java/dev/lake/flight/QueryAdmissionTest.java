package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.flight.QueryAdmission.AdmissionRefusedException;
import dev.lake.flight.QueryAdmission.Reason;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The admission's rules, with timers the test fires itself: tenants take turns, a tenant's cap
 * holds while other tenants run, a full queue sheds the flooding tenant, a wait expires, and a
 * place is given back exactly once however a query ends.
 */
class QueryAdmissionTest {

  /** Timers that fire only when the test says so. */
  private static final class ManualTimers implements QueryAdmission.Timers {
    final java.util.Queue<Runnable> scheduled = new java.util.concurrent.ConcurrentLinkedQueue<>();
    final AtomicInteger cancelled = new AtomicInteger();

    @Override
    public Runnable schedule(long delayMillis, Runnable task) {
      java.util.concurrent.atomic.AtomicBoolean off = new java.util.concurrent.atomic.AtomicBoolean();
      scheduled.add(() -> {
        if (!off.get()) {
          task.run();
        }
      });
      return () -> {
        off.set(true);
        cancelled.incrementAndGet();
      };
    }

    /** Fires every timer set so far that is not cancelled (each fires at most once). */
    void fireAll() {
      for (Runnable next = scheduled.poll(); next != null; next = scheduled.poll()) {
        next.run();
      }
    }
  }

  private final ManualTimers timers = new ManualTimers();
  private final List<String> refusals = new CopyOnWriteArrayList<>();

  private QueryAdmission admission(int concurrent, int perTenant, int queued) {
    return new QueryAdmission(concurrent, perTenant, queued, 1_000, timers,
        (tenant, reason) -> refusals.add(tenant + ":" + reason));
  }

  /** One query: records when it is admitted or refused. */
  private static final class Query {
    final String name;
    final List<String> log;
    QueryAdmission.Slot slot;
    AdmissionRefusedException refusal;
    boolean admitted;

    Query(String name, List<String> log) {
      this.name = name;
      this.log = log;
    }

    Query ask(QueryAdmission admission, String tenant) {
      slot = admission.admit(tenant, Runnable::run, () -> {
        admitted = true;
        log.add(name);
      }, e -> refusal = e);
      return this;
    }
  }

  private final List<String> order = new CopyOnWriteArrayList<>();

  private Query ask(QueryAdmission admission, String tenant, String name) {
    return new Query(name, order).ask(admission, tenant);
  }

  @Test
  void freedPlacesGoToWaitingTenantsInTurn() {
    QueryAdmission admission = admission(1, 10, 100);
    Query running = ask(admission, "a", "a0");
    Query a1 = ask(admission, "a", "a1");
    Query a2 = ask(admission, "a", "a2");
    Query a3 = ask(admission, "a", "a3");
    Query b1 = ask(admission, "b", "b1");
    Query b2 = ask(admission, "b", "b2");
    Query c1 = ask(admission, "c", "c1");
    assertEquals(6, admission.queued());
    running.slot.close();
    for (Query next : List.of(a1, b1, c1, a2, b2, a3)) {
      assertTrue(next.admitted, next.name + " should run now; order so far " + order);
      next.slot.close();
    }
    assertEquals(List.of("a0", "a1", "b1", "c1", "a2", "b2", "a3"), order);
    assertEquals(0, admission.running());
    assertEquals(0, admission.queued());
    assertEquals(0, admission.tenantsHeld());
    assertEquals(List.of(), refusals);
  }

  @Test
  void aTenantAtItsCapWaitsWhileOtherTenantsStillRun() {
    QueryAdmission admission = admission(4, 2, 100);
    Query a1 = ask(admission, "a", "a1");
    ask(admission, "a", "a2");
    Query a3 = ask(admission, "a", "a3");
    assertFalse(a3.admitted, "tenant a is at its cap of 2");
    Query b1 = ask(admission, "b", "b1");
    Query b2 = ask(admission, "b", "b2");
    assertTrue(b1.admitted && b2.admitted, "tenant b runs beside a's waiting query");
    assertEquals(4, admission.running());
    Query b3 = ask(admission, "b", "b3");
    assertFalse(b3.admitted);
    a1.slot.close();
    assertTrue(a3.admitted, "a's place goes to a's waiting query (b is at its cap)");
    assertFalse(b3.admitted);
    assertEquals(2, admission.running("a"));
    assertEquals(2, admission.running("b"));
  }

  @Test
  void aFullQueueRefusesTheFloodingTenantAndKeepsAPlaceForTheQuietOne() {
    QueryAdmission admission = admission(1, 1, 3);
    ask(admission, "a", "a0");
    List<Query> flood = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      flood.add(ask(admission, "a", "a" + i));
    }
    Query over = ask(admission, "a", "a4");
    assertEquals(Reason.QUEUE_FULL, over.refusal.reason());
    assertEquals("a", over.refusal.tenant());
    assertTrue(over.refusal.getMessage().contains("tenant 'a'")
        && over.refusal.getMessage().contains("max queued queries 3"), over.refusal.getMessage());

    Query quiet = ask(admission, "b", "b1");
    assertEquals(null, quiet.refusal, "b waits in the place of a's newest query");
    Query shed = flood.get(2);
    assertEquals(Reason.QUEUE_FULL, shed.refusal.reason());
    assertEquals("a", shed.refusal.tenant());
    assertEquals(3, admission.queued());
    assertEquals(List.of("a:QUEUE_FULL", "a:QUEUE_FULL"), refusals);

    // Equal shares: the newcomer is refused, nobody is shed.
    Query b2 = ask(admission, "b", "b2");
    assertEquals(Reason.QUEUE_FULL, b2.refusal.reason());
    assertTrue(b2.refusal.getMessage().contains("tenant 'b'"), b2.refusal.getMessage());
    assertEquals(null, flood.get(0).refusal);
    assertEquals(null, flood.get(1).refusal);
  }

  @Test
  void withoutAQueueAQueryThatCannotRunIsRefusedAtOnce() {
    QueryAdmission admission = admission(1, 1, 0);
    Query first = ask(admission, "a", "a1");
    Query second = ask(admission, "b", "b1");
    assertTrue(first.admitted);
    assertEquals(Reason.QUEUE_FULL, second.refusal.reason());
    assertEquals(0, admission.queued());
    assertEquals(0, timers.scheduled.size(), "a refused query sets no timer");
  }

  @Test
  void aQueryThatWaitsTooLongIsRefusedAndItsPlaceInTheQueueFreed() {
    QueryAdmission admission = admission(1, 1, 10);
    Query running = ask(admission, "a", "a1");
    Query waiting = ask(admission, "b", "b1");
    timers.fireAll();
    assertEquals(Reason.WAIT_EXPIRED, waiting.refusal.reason());
    assertTrue(waiting.refusal.getMessage().contains("tenant 'b'")
        && waiting.refusal.getMessage().contains("1000 ms (max queue wait)"),
        waiting.refusal.getMessage());
    assertEquals(0, admission.queued());
    assertEquals(List.of("b:WAIT_EXPIRED"), refusals);
    running.slot.close();
    assertFalse(waiting.admitted, "a refused query is never admitted");
    waiting.slot.close(); // the caller's end hook runs too: a no-op
    assertEquals(0, admission.running());
    assertEquals(0, admission.tenantsHeld());
  }

  @Test
  void anAdmittedQuerysTimerIsCancelledAndNeverRefusesIt() {
    QueryAdmission admission = admission(1, 1, 10);
    Query running = ask(admission, "a", "a1");
    Query waiting = ask(admission, "b", "b1");
    running.slot.close();
    assertTrue(waiting.admitted);
    assertEquals(1, timers.cancelled.get());
    timers.fireAll();
    assertEquals(null, waiting.refusal);
    assertEquals(1, admission.running());
  }

  @Test
  void closingTwiceGivesThePlaceBackOnce() {
    QueryAdmission admission = admission(1, 1, 10);
    Query first = ask(admission, "a", "a1");
    Query second = ask(admission, "a", "a2");
    Query third = ask(admission, "a", "a3");
    first.slot.close();
    first.slot.close();
    assertTrue(second.admitted);
    assertFalse(third.admitted, "a second close of the same place must not admit another query");
    assertEquals(1, admission.running());
  }

  @Test
  void closingAWaitingQueryWithdrawsItAndNoCallbackRuns() {
    QueryAdmission admission = admission(1, 1, 10);
    Query running = ask(admission, "a", "a1");
    Query cancelled = ask(admission, "b", "b1");
    Query next = ask(admission, "c", "c1");
    cancelled.slot.close();
    assertEquals(1, admission.queued());
    assertEquals(1, timers.cancelled.get());
    running.slot.close();
    assertFalse(cancelled.admitted);
    assertEquals(null, cancelled.refusal);
    assertTrue(next.admitted);
    timers.fireAll();
    assertEquals(null, cancelled.refusal);
  }

  @Test
  void boundsOutOfRangeAreRefusedNamingTheBound() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> admission(0, 1, 1))
        .getMessage().contains("maxConcurrentQueries"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> admission(1, 0, 1))
        .getMessage().contains("maxQueriesPerTenant"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> admission(1, 1, -1))
        .getMessage().contains("maxQueuedQueries"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> QueryAdmission.checkBounds(1, 1, 1, 0)).getMessage().contains("maxQueueWait"));
  }

  @Test
  void manyRandomInterleavingsKeepTheBoundsAndLeakNoPlace() throws Exception {
    long seed = new Random().nextLong();
    int concurrent = 5;
    int perTenant = 2;
    QueryAdmission admission = new QueryAdmission(concurrent, perTenant, 20, 1_000, timers,
        (tenant, reason) -> { });
    Map<String, AtomicInteger> runningByTenant = new ConcurrentHashMap<>();
    AtomicInteger runningAll = new AtomicInteger();
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger admittedCount = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long threadSeed = seed + t;
        done.add(threads.submit(() -> {
          Random random = new Random(threadSeed);
          List<QueryAdmission.Slot> mine = new ArrayList<>();
          // Each slot's admitted flag, so its close undoes exactly what its admission did.
          Map<QueryAdmission.Slot, boolean[]> admittedFlags = new java.util.IdentityHashMap<>();
          for (int step = 0; step < 5_000; step++) {
            int op = random.nextInt(10);
            if (op < 5 || mine.isEmpty()) {
              String tenant = "t" + random.nextInt(4);
              // [0]: counted as running; [1]: closed by its owner. Counts go up after the grant
              // and down before the release, so they never exceed what the admission allows.
              boolean[] in = new boolean[2];
              QueryAdmission.Slot slot = admission.admit(tenant, Runnable::run, () -> {
                synchronized (in) {
                  if (in[1]) {
                    return;
                  }
                  int all = runningAll.incrementAndGet();
                  int own = runningByTenant.computeIfAbsent(tenant, k -> new AtomicInteger())
                      .incrementAndGet();
                  if (all > concurrent || own > perTenant) {
                    violations.add("running " + all + ", tenant " + tenant + " " + own);
                  }
                  in[0] = true;
                }
                admittedCount.incrementAndGet();
              }, e -> { });
              mine.add(slot);
              admittedFlags.put(slot, in);
            } else if (op < 9) {
              QueryAdmission.Slot slot = mine.remove(random.nextInt(mine.size()));
              boolean[] in = admittedFlags.remove(slot);
              uncount(in, slot, runningAll, runningByTenant);
              slot.close();
              if (random.nextBoolean()) {
                slot.close();
              }
            } else {
              timers.fireAll();
            }
          }
          for (QueryAdmission.Slot slot : mine) {
            uncount(admittedFlags.get(slot), slot, runningAll, runningByTenant);
            slot.close();
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    assertEquals(List.of(), violations, "seed " + seed);
    assertTrue(admittedCount.get() > 0, "seed " + seed);
    assertEquals(0, admission.running(), "seed " + seed);
    assertEquals(0, admission.queued(), "seed " + seed);
    assertEquals(0, admission.tenantsHeld(), "seed " + seed);
  }

  // Undoes a slot's count before it is closed: its place may go to another query at once.
  private static void uncount(boolean[] in, QueryAdmission.Slot slot, AtomicInteger runningAll,
      Map<String, AtomicInteger> runningByTenant) {
    synchronized (in) {
      in[1] = true;
      if (in[0]) {
        runningAll.decrementAndGet();
        runningByTenant.get(slot.tenant()).decrementAndGet();
        in[0] = false;
      }
    }
  }
}
