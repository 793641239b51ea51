package dev.lake.catalog;

import dev.lake.metastore.Fence;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.ScanPage;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link MetaStore} wrapper that fails one chosen write, as a crash or a lost reply would: the
 * {@code n}-th write (compare-and-set or delete) counted from {@link #failWrite} throws a plain
 * {@link MetaStoreException} (outcome unknown), either before it reaches the store or after the
 * store applied it; or the first write to a key chosen by {@link #failWriteTo}. Reads and every
 * other write pass through. Does not own the store.
 */
public final class FaultyMetaStore implements MetaStore {

  /**
   * Whether the chosen write is lost (never applied), applied with its reply lost, or held
   * (the writer pauses before it until {@link #resume()}, then it goes through).
   */
  public enum Mode { BEFORE, AFTER, PAUSE }

  private final MetaStore store;
  private final AtomicInteger countdown = new AtomicInteger(-1);
  private final AtomicInteger writes = new AtomicInteger();
  private volatile Mode mode = Mode.BEFORE;
  private volatile java.util.function.Predicate<String> target = key -> true;
  private final java.util.concurrent.CountDownLatch paused = new java.util.concurrent.CountDownLatch(1);
  private final java.util.concurrent.CountDownLatch resumed = new java.util.concurrent.CountDownLatch(1);

  public FaultyMetaStore(MetaStore store) {
    this.store = store;
  }

  /** Fails the {@code n}-th write from now (1 = the next one). */
  public void failWrite(int n, Mode how) {
    mode = how;
    target = key -> true;
    countdown.set(n);
  }

  /** Fails the next write to a key {@code key} accepts; writes to other keys pass through. */
  public void failWriteTo(java.util.function.Predicate<String> key, Mode how) {
    mode = how;
    target = key;
    countdown.set(1);
  }

  /** Waits until the writer is held at the chosen write ({@link Mode#PAUSE}). */
  public void awaitPaused() throws InterruptedException {
    paused.await();
  }

  /** Lets the held write go through. */
  public void resume() {
    resumed.countDown();
  }

  /** Writes seen so far, failed ones included. */
  public int writes() {
    return writes.get();
  }

  /** Whether the chosen write has failed. */
  public boolean failed() {
    return countdown.get() == 0;
  }

  @Override
  public Optional<byte[]> get(String key) {
    return store.get(key);
  }

  @Override
  public ScanPage scan(String prefix, Optional<String> continuation, int limit) {
    return store.scan(prefix, continuation, limit);
  }

  @Override
  public boolean compareAndSet(String key, Optional<byte[]> expected, byte[] value, Fence fence) {
    boolean fail = due(key);
    if (fail && mode == Mode.BEFORE) {
      throw injected(key);
    }
    boolean written = store.compareAndSet(key, expected, value, fence);
    if (fail) {
      throw injected(key);
    }
    return written;
  }

  @Override
  public boolean deleteIfEquals(String key, byte[] expected, Fence fence) {
    boolean fail = due(key);
    if (fail && mode == Mode.BEFORE) {
      throw injected(key);
    }
    boolean deleted = store.deleteIfEquals(key, expected, fence);
    if (fail) {
      throw injected(key);
    }
    return deleted;
  }

  @Override
  public void close() {}

  private boolean due(String key) {
    writes.incrementAndGet();
    boolean due = countdown.get() > 0 && target.test(key) && countdown.decrementAndGet() == 0;
    if (due && mode == Mode.PAUSE) {
      paused.countDown();
      try {
        resumed.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new MetaStoreException("interrupted while held before a write");
      }
      return false;
    }
    return due;
  }

  private MetaStoreException injected(String key) {
    return new MetaStoreException("injected failure writing " + key + " (" + mode + ")");
  }
}
