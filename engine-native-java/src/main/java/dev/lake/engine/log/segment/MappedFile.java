package dev.lake.engine.log.segment;

import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;

/**
 * A segment file mapped read-only into memory, handed out as {@link ArrowBuf}s that wrap ranges
 * of the mapping (no copy). Reference-counted: the creator ({@link SegmentMappings}) holds one
 * reference, each reader one while open, and every buffer handed out one until its last slice
 * is closed, so the mapping is unmapped (its shared arena closed) only when nothing uses it any
 * more, whichever thread releases last. Each buffer is accounted to the allocator it was wrapped in
 * for its length, like the buffer a copying read would have allocated.
 *
 * <p>The file must stay untruncated while mapped (see {@link ObjectStore.ReadableObject#map}).
 *
 * <p>It also remembers which chunks have passed their checksum through this mapping. Segment
 * files are immutable, so a chunk verified once is not hashed again by later scans: like a
 * database's buffer pool, bytes are checked when they enter the process (the first read through
 * a fresh mapping), not on every use. A scan of cached data would otherwise spend about a quarter
 * of its time in CRC32C.
 */
final class MappedFile {

  private final Arena arena;
  private final MemorySegment memory;
  private final AtomicInteger refs = new AtomicInteger(1);
  private final Set<Long> verifiedChunks = ConcurrentHashMap.newKeySet();

  private MappedFile(Arena arena, MemorySegment memory) {
    this.arena = arena;
    this.memory = memory;
  }

  /** Maps {@code object}, or returns null if its storage cannot map (the caller then copies). */
  static MappedFile map(ObjectStore.ReadableObject object) throws IOException {
    Arena arena = Arena.ofShared();
    try {
      Optional<MemorySegment> memory = object.map(arena);
      if (memory.isEmpty()) {
        arena.close();
        return null;
      }
      return new MappedFile(arena, memory.get());
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  long size() {
    return memory.byteSize();
  }

  /** A buffer over bytes {@code [offset, offset + length)} of the file, holding the mapping. */
  ArrowBuf wrap(BufferAllocator allocator, long offset, long length) {
    if (offset < 0 || length <= 0 || offset + length > memory.byteSize()) {
      throw new IndexOutOfBoundsException("range " + offset + "+" + length + " of " + memory.byteSize());
    }
    retain();
    try {
      return allocator.wrapForeignAllocation(new ForeignAllocation(length, memory.address() + offset) {
        @Override
        protected void release0() {
          release();
        }
      });
    } catch (RuntimeException e) {
      release();
      throw e;
    }
  }

  /** Whether the chunk starting at {@code offset} has passed its checksum in this mapping. */
  boolean verified(long offset) {
    return verifiedChunks.contains(offset);
  }

  /** Records that the chunk starting at {@code offset} passed its checksum in this mapping. */
  void markVerified(long offset) {
    verifiedChunks.add(offset);
  }

  /** Takes one more reference; the mapping must still be held by the caller or a cache. */
  void retain() {
    int n;
    do {
      n = refs.get();
      if (n <= 0) {
        throw new IllegalStateException("mapping already released");
      }
    } while (!refs.compareAndSet(n, n + 1));
  }

  /** Drops one reference; the last one unmaps the file. */
  void release() {
    if (refs.decrementAndGet() == 0) {
      arena.close();
    }
  }
}
