package dev.lake.engine.log.segment;

import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The memory mappings of the segments an open table has read, kept so that later scans find the
 * page tables filled: mapping a file costs a page fault per few pages on first touch (on a
 * virtual machine more than copying the bytes with {@code pread}), touching it again costs
 * nothing. Bounded by bytes mapped, least recently used out first; an evicted or closed mapping
 * is unmapped once the last buffer handed out from it is closed ({@link MappedFile}).
 *
 * <p>A mapping keeps its file's disk blocks allocated after expiry unlinks it, until evicted or
 * until the table handle closes. Readers still look the file up first (its size), so a deleted
 * segment reads as missing, as without the cache.
 */
public final class SegmentMappings implements AutoCloseable {

  private final long capacityBytes;
  private final LinkedHashMap<String, MappedFile> files = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;
  private boolean unmappable;
  private boolean closed;

  /** @param capacityBytes the most bytes kept mapped; 0 maps nothing (readers copy) */
  public SegmentMappings(long capacityBytes) {
    this.capacityBytes = capacityBytes;
  }

  /**
   * The mapping of {@code key}, retained for the caller (who releases it), mapping
   * {@code object} if it is not mapped yet; null if the store cannot map, the file is larger
   * than the whole budget, or this cache is closed: the caller then copies.
   */
  synchronized MappedFile acquire(String key, ObjectStore.ReadableObject object) throws IOException {
    MappedFile file = files.get(key);
    if (file == null) {
      if (closed || unmappable || object.size() > capacityBytes || object.size() == 0) {
        return null;
      }
      file = MappedFile.map(object);
      if (file == null) {
        unmappable = true;
        return null;
      }
      files.put(key, file);
      bytes += file.size();
      evictBeyondCapacity(key);
    }
    file.retain();
    return file;
  }

  /**
   * The mapping of {@code key} retained for the caller (who releases it), or null if it is not
   * mapped: opening nothing.
   */
  synchronized MappedFile acquireIfMapped(String key) {
    MappedFile file = closed ? null : files.get(key);
    if (file != null) {
      file.retain();
    }
    return file;
  }

  private void evictBeyondCapacity(String keep) {
    Iterator<Map.Entry<String, MappedFile>> eldest = files.entrySet().iterator();
    while (bytes > capacityBytes && eldest.hasNext()) {
      Map.Entry<String, MappedFile> e = eldest.next();
      if (e.getKey().equals(keep)) {
        continue;
      }
      eldest.remove();
      bytes -= e.getValue().size();
      e.getValue().release();
    }
  }

  /** Bytes currently mapped by this cache. */
  synchronized long mappedBytes() {
    return bytes;
  }

  /** Drops every mapping; each is unmapped once no buffer of it remains. Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
    files.values().forEach(MappedFile::release);
    files.clear();
    bytes = 0;
  }
}
