package dev.lake.engine.log.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Flushes a file being written sequentially behind its writer: each time the writer has added
 * {@code interval} bytes since the last flush began, and no flush is running, one flush
 * ({@code fdatasync}) starts on a virtual thread while the writer goes on. The disk then writes
 * the early part of a large object while the later part is produced, and the final flush before
 * the object is named finds most of its pages clean. Durability is unchanged: an object counts
 * as durable only after its final flush, which every commit still makes.
 *
 * <p>A failed flush must not be dropped: Linux reports a writeback error to a file descriptor
 * once, so the final {@code fdatasync} may succeed after an early one failed with the bytes
 * lost. {@link #await()} rethrows it; the writer calls it before its final flush.
 *
 * <p>Not thread-safe: the writer's thread makes every call; only the flushes run elsewhere.
 */
final class FlushBehind {

  /** One flush of the file's bytes written so far, such as {@code channel.force(false)}. */
  @FunctionalInterface
  interface Flush {
    void run() throws IOException;
  }

  private final long interval;
  private final Flush flush;
  private long startedAt;
  private CompletableFuture<Void> running = CompletableFuture.completedFuture(null);
  private IOException failure;

  /** @param interval bytes written between flushes; at most one flush runs at a time */
  FlushBehind(long interval, Flush flush) {
    if (interval <= 0) {
      throw new IllegalArgumentException("flush interval must be positive: " + interval);
    }
    this.interval = interval;
    this.flush = flush;
  }

  /** The writer has written {@code position} bytes in all; starts a flush if one is due. */
  void written(long position) {
    if (position - startedAt < interval || !running.isDone()) {
      return;
    }
    collect();
    if (failure != null) {
      return;
    }
    startedAt = position;
    running = new CompletableFuture<>();
    CompletableFuture<Void> done = running;
    Thread.ofVirtual().name("lake-log-flush").start(() -> {
      try {
        flush.run();
        done.complete(null);
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    });
  }

  /**
   * Waits for the running flush, if any.
   *
   * @throws IOException the failure of any flush started so far: the bytes written may not be on
   *     disk even if a later flush succeeds
   */
  void await() throws IOException {
    running.handle((r, e) -> null).join();
    collect();
    if (failure != null) {
      throw new IOException("an earlier flush of the file failed: " + failure.getMessage(), failure);
    }
  }

  /** Waits for the running flush, if any, ignoring how it ended (the object is being discarded). */
  void awaitQuietly() {
    running.handle((r, e) -> null).join();
  }

  private void collect() {
    if (failure != null || !running.isDone()) {
      return;
    }
    try {
      running.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      failure = cause instanceof IOException io ? io
          : cause instanceof UncheckedIOException u ? u.getCause()
          : new IOException(String.valueOf(cause), cause);
    }
  }
}
