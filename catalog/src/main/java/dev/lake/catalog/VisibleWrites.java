package dev.lake.catalog;

import dev.lake.metastore.Fence;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.ScanPage;
import java.util.Optional;

/**
 * The catalog's store: counts every attempt to write a key a {@link Catalog#snapshot()} shows
 * (table records {@code tbl/}, namespace records {@code ns/}) once the attempt returns, whether it
 * wrote, lost its compare-and-set or failed with unknown outcome. The count is the low half of
 * the catalog's generation, so a write applied with its reply lost still moves the generation and
 * no cache is told "not modified" over a directory that changed. A spurious move only costs a
 * cache one full snapshot. Does not own the store.
 */
final class VisibleWrites implements MetaStore {

  private final MetaStore store;
  private final Runnable moved;

  VisibleWrites(MetaStore store, Runnable moved) {
    this.store = store;
    this.moved = moved;
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
    try {
      return store.compareAndSet(key, expected, value, fence);
    } finally {
      attempted(key);
    }
  }

  @Override
  public boolean deleteIfEquals(String key, byte[] expected, Fence fence) {
    try {
      return store.deleteIfEquals(key, expected, fence);
    } finally {
      attempted(key);
    }
  }

  @Override
  public void close() {}

  private void attempted(String key) {
    if (key.startsWith(RegistryCodec.TABLE_PREFIX) || key.startsWith(RegistryCodec.NAMESPACE_PREFIX)) {
      moved.run();
    }
  }
}
