package dev.lake.flight.metasrv;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process's bounds: appends in progress, and control bytes buffered (append streams and
 * action bodies). A request over a bound is refused at once ({@code RESOURCE_EXHAUSTED}), never
 * queued. Thread-safe.
 */
final class Admission {

  private final Semaphore appends;
  private final long maxBufferedBytes;
  private final AtomicLong buffered = new AtomicLong();

  Admission(int maxConcurrentAppends, long maxBufferedBytes) {
    this.appends = new Semaphore(maxConcurrentAppends);
    this.maxBufferedBytes = maxBufferedBytes;
  }

  boolean tryStartAppend() {
    return appends.tryAcquire();
  }

  /** Appends admitted and not yet finished; for tests. */
  int appendsInProgress(int maxConcurrentAppends) {
    return maxConcurrentAppends - appends.availablePermits();
  }

  void endAppend() {
    appends.release();
  }

  boolean tryReserve(long bytes) {
    while (true) {
      long now = buffered.get();
      if (now + bytes > maxBufferedBytes) {
        return false;
      }
      if (buffered.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  void release(long bytes) {
    if (bytes > 0) {
      buffered.addAndGet(-bytes);
    }
  }
}
