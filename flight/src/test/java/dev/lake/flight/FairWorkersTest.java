package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.flight.auth.Grants;
import dev.lake.flight.auth.Principal;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FairWorkersTest {

  private final FairWorkers workers = new FairWorkers(1, 100, Thread.ofPlatform().daemon()::unstarted);
  private final List<String> order = new CopyOnWriteArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() throws InterruptedException {
    release.countDown();
    workers.shutdownNow();
    assertTrue(workers.awaitTermination(30, TimeUnit.SECONDS));
  }

  /** Occupies the only thread until {@link #release} opens. */
  private void block() throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    workers.execute(() -> {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertTrue(started.await(30, TimeUnit.SECONDS));
  }

  private Runnable record(String name) {
    return () -> order.add(name);
  }

  // Waits on the condition (all recorded), then on the queue emptying.
  private void awaitDone(int tasks) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while ((order.size() < tasks || workers.queued() > 0) && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(tasks, order.size(), order.toString());
    assertEquals(0, workers.queued());
  }

  @Test
  void aTenantsBacklogDelaysAnotherTenantByOneTaskNotTheWholeBacklog() throws Exception {
    block();
    for (int i = 1; i <= 5; i++) {
      workers.forTenant("a").execute(record("a" + i));
    }
    workers.forTenant("b").execute(record("b1"));
    workers.forTenant("b").execute(record("b2"));
    assertEquals(7, workers.queued());
    release.countDown();
    awaitDone(7);
    assertEquals(List.of("a1", "b1", "a2", "b2", "a3", "a4", "a5"), order);
  }

  @Test
  void theTenantOfACallIsTheBoundCallersAndOtherWorkSharesTheServersQueue() throws Exception {
    block();
    Principal a = new Principal("alice", "a", Principal.Role.READER, Set.of("*"));
    Principal b = new Principal("bob", "b", Principal.Role.READER, Set.of("*"));
    Grants.runAs(a, () -> {
      workers.execute(record("a1"));
      workers.execute(record("a2"));
    });
    workers.execute(record("server1"));
    Grants.runAs(b, () -> workers.execute(record("b1")));
    release.countDown();
    awaitDone(4);
    assertEquals(List.of("a1", "server1", "b1", "a2"), order);
  }

  @Test
  void aFailingTaskGivesItsThreadToTheNextTask() throws Exception {
    block();
    workers.forTenant("a").execute(() -> {
      throw new IllegalStateException("boom (expected by the test)");
    });
    workers.forTenant("a").execute(record("after"));
    release.countDown();
    awaitDone(1);
  }

  @Test
  void beyondTheQueueBoundTasksAreRejectedAndShutdownRunsWhatWasAccepted() throws Exception {
    FairWorkers small = new FairWorkers(1, 2, Thread.ofPlatform().daemon()::unstarted);
    CountDownLatch hold = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    small.execute(() -> {
      started.countDown();
      try {
        hold.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertTrue(started.await(30, TimeUnit.SECONDS));
    small.forTenant("a").execute(record("a1"));
    small.forTenant("b").execute(record("b1"));
    RejectedExecutionException full = assertThrows(RejectedExecutionException.class,
        () -> small.forTenant("c").execute(record("c1")));
    assertTrue(full.getMessage().contains("2 tasks wait"), full.getMessage());
    small.shutdown();
    assertThrows(RejectedExecutionException.class, () -> small.execute(record("late")));
    hold.countDown();
    assertTrue(small.awaitTermination(30, TimeUnit.SECONDS));
    assertEquals(List.of("a1", "b1"), order);
  }

  @Test
  void shutdownNowDropsWaitingTasksAndInterruptsRunningOnes() throws Exception {
    block();
    workers.forTenant("a").execute(record("never"));
    List<Runnable> dropped = workers.shutdownNow();
    assertEquals(1, dropped.size());
    assertTrue(workers.awaitTermination(30, TimeUnit.SECONDS), "the blocked task was interrupted");
    assertEquals(List.of(), order);
  }
}
