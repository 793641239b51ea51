package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.exec.QueryControl;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class MorselWorkersTest {

  @Test
  void everyMorselRunsExactlyOnceAndLaterStagesReuseTheThreads() {
    Set<Thread> first = ConcurrentHashMap.newKeySet();
    Set<Thread> later = ConcurrentHashMap.newKeySet();
    AtomicIntegerArray runs = new AtomicIntegerArray(100);
    MorselWorkers.run(100, 2, QueryControl.create(), (m, w) -> {
      runs.incrementAndGet(m);
      first.add(Thread.currentThread());
    });
    for (int m = 0; m < 100; m++) {
      assertEquals(1, runs.get(m), "morsel " + m);
    }
    assertFalse(first.contains(Thread.currentThread()), "two workers: the morsels run on pooled threads");
    for (int stage = 0; stage < 50; stage++) {
      MorselWorkers.run(4, 2, QueryControl.create(), (m, w) -> later.add(Thread.currentThread()));
    }
    // Fifty stages of two workers ran on a handful of threads, not on a hundred new ones.
    assertTrue(later.size() <= 8, later.size() + " threads for 50 stages");
    assertTrue(later.stream().allMatch(t -> t.getName().startsWith("lake-sql-worker-")), later.toString());
  }

  @Test
  void aFailureStopsTheOtherWorkersAndTheirInterruptDoesNotReachTheThreadsNextStage() throws Exception {
    CountDownLatch blocked = new CountDownLatch(1);
    RuntimeException boom = new IllegalStateException("morsel 1 failed");
    Set<Thread> stopped = ConcurrentHashMap.newKeySet();
    RuntimeException thrown = assertThrows(RuntimeException.class,
        () -> MorselWorkers.run(2, 2, QueryControl.create(), (m, w) -> {
          if (m == 0) {
            blocked.countDown();
            try {
              Thread.sleep(10_000);
            } catch (InterruptedException e) {
              stopped.add(Thread.currentThread());
              return;
            }
            throw new AssertionError("the failure of morsel 1 did not interrupt morsel 0");
          }
          try {
            blocked.await(5, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
          throw boom;
        }));
    assertSame(boom, thrown);
    assertEquals(1, stopped.size(), "the sleeping worker was interrupted");
    // Every pooled thread starts its next stage without a stale interrupt.
    AtomicInteger interrupted = new AtomicInteger();
    for (int stage = 0; stage < 20; stage++) {
      MorselWorkers.run(4, 2, QueryControl.create(), (m, w) -> {
        if (Thread.currentThread().isInterrupted()) {
          interrupted.incrementAndGet();
        }
      });
    }
    assertEquals(0, interrupted.get());
  }

  @Test
  void aStageStartedInsideAWorkerGetsThreadsOfItsOwn() {
    AtomicInteger inner = new AtomicInteger();
    // Every outer worker waits for an inner stage that needs two more threads: a bounded pool
    // of two would deadlock here.
    MorselWorkers.run(2, 2, QueryControl.create(), (m, w) -> {
      CountDownLatch both = new CountDownLatch(2);
      MorselWorkers.run(2, 2, QueryControl.create(), (i, iw) -> {
        both.countDown();
        try {
          assertTrue(both.await(5, TimeUnit.SECONDS), "the inner workers run at the same time");
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        inner.incrementAndGet();
      });
    });
    assertEquals(4, inner.get());
  }
}
