package dev.lake.engine.log.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flushes behind a writer start once per interval, never overlap, and never lose a failure: the
 * final flush of an object may succeed after an earlier one lost its bytes.
 */
class FlushBehindTest {

  @TempDir Path dir;

  @Test
  void flushStartsEveryIntervalAndNeverWhileOneRuns() throws Exception {
    AtomicInteger started = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    FlushBehind flushes = new FlushBehind(100, () -> {
      started.incrementAndGet();
      awaitUninterruptibly(release);
    });
    flushes.written(99);
    assertEquals(0, started.get(), "no flush before an interval was written");
    flushes.written(100);
    awaitCount(started, 1);
    flushes.written(250);
    flushes.written(400);
    assertEquals(1, started.get(), "no second flush while the first runs");
    release.countDown();
    flushes.await();
    flushes.written(450);
    awaitCount(started, 2);
    flushes.await();
    flushes.written(500);
    flushes.await();
    assertEquals(2, started.get(), "the next flush waits for an interval after the last start");
  }

  @Test
  void failedFlushIsRethrownAndStopsFurtherFlushes() throws Exception {
    AtomicInteger started = new AtomicInteger();
    FlushBehind flushes = new FlushBehind(10, () -> {
      started.incrementAndGet();
      throw new IOException("EIO");
    });
    flushes.written(10);
    flushes.awaitQuietly();
    flushes.written(100);
    IOException e = assertThrows(IOException.class, flushes::await);
    assertTrue(e.getMessage().contains("EIO"), e.getMessage());
    assertThrows(IOException.class, flushes::await, "a failure is reported at every await");
    assertEquals(1, started.get(), "no flush after a failed one");
  }

  @Test
  void objectFlushedBehindItsWriterReadsBackWhole() throws IOException {
    LocalObjectStore store = new LocalObjectStore(dir, 1 << 20);
    byte[] bytes = new byte[5 << 20];
    new Random(7).nextBytes(bytes);
    try (ObjectStore.ObjectWriter out = store.create("data/x.seg")) {
      for (int at = 0; at < bytes.length; at += 300_000) {
        int n = Math.min(300_000, bytes.length - at);
        out.write(ByteBuffer.wrap(bytes, at, n / 2), ByteBuffer.wrap(bytes, at + n / 2, n - n / 2));
      }
      assertEquals(bytes.length, out.commit());
    }
    assertArrayEquals(bytes, Files.readAllBytes(dir.resolve("data/x.seg")));
  }

  @Test
  void discardedObjectWaitsForItsFlushAndIsDeleted() throws IOException {
    LocalObjectStore store = new LocalObjectStore(dir, 1000);
    try (ObjectStore.ObjectWriter out = store.create("data/y.seg")) {
      out.write(ByteBuffer.allocate(4096));
      out.write(ByteBuffer.allocate(4096));
    }
    assertTrue(Files.notExists(dir.resolve("data/y.seg")));
  }

  private static void awaitCount(AtomicInteger count, int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (count.get() < expected && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertEquals(expected, count.get());
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    while (true) {
      try {
        latch.await();
        return;
      } catch (InterruptedException e) {
        // keep waiting: the test releases it
      }
    }
  }
}
