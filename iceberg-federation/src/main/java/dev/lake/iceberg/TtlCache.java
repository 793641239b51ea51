package dev.lake.iceberg;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/** A small LRU cache whose entries expire a fixed time after they were loaded. Thread-safe. */
final class TtlCache<K, V> {
  private record Entry<V>(V value, long loadedAt) {}

  private final long ttlNanos;
  private final int capacity;
  private final LongSupplier clock;
  private final LinkedHashMap<K, Entry<V>> entries;

  TtlCache(Duration ttl, int capacity, LongSupplier clock) {
    this.ttlNanos = ttl.toNanos();
    this.capacity = capacity;
    this.clock = clock;
    this.entries = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, TtlCache.Entry<V>> eldest) {
        return size() > TtlCache.this.capacity;
      }
    };
  }

  /** The cached value of {@code key}, loading it (outside the lock) when absent or expired. */
  V get(K key, Supplier<V> loader) {
    long now = clock.getAsLong();
    synchronized (entries) {
      Entry<V> entry = entries.get(key);
      if (entry != null && now - entry.loadedAt() < ttlNanos) {
        return entry.value();
      }
    }
    V value = loader.get();
    if (capacity > 0 && ttlNanos > 0) {
      synchronized (entries) {
        entries.put(key, new Entry<>(value, now));
      }
    }
    return value;
  }

  int size() {
    synchronized (entries) {
      return entries.size();
    }
  }
}
