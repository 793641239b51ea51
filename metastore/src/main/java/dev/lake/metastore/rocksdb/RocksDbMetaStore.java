package dev.lake.metastore.rocksdb;

import dev.lake.metastore.ContinuationTokens;
import dev.lake.metastore.Fence;
import dev.lake.metastore.FencedException;
import dev.lake.metastore.Keys;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.ScanPage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * The embedded {@link MetaStore}: one RocksDB database in a directory, owned by this process.
 * Conditional writes are made atomic by striped locks around read-compare-write, and the fence is
 * checked under the same lock; every write is synced to the write-ahead log before it returns, so
 * an acknowledged write survives a crash. Each stored value carries the epoch of its last write
 * (see {@link StoredItem}); a fenced delete leaves a tombstone that reads and scans skip.
 */
public final class RocksDbMetaStore implements MetaStore {

  private static final int STRIPES = 64;

  static {
    RocksDB.loadLibrary();
  }

  private final RocksDB db;
  private final Options options;
  private final WriteOptions syncWrites;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];
  private final Path directory;

  private RocksDbMetaStore(Path directory, Options options, RocksDB db) {
    this.directory = directory;
    this.options = options;
    this.db = db;
    this.syncWrites = new WriteOptions().setSync(true);
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  /**
   * Opens (creating if needed) the store in {@code directory}.
   *
   * @throws MetaStoreException if the directory cannot be used, for example because another
   *     process holds it open
   */
  public static RocksDbMetaStore open(Path directory) {
    Options options = new Options().setCreateIfMissing(true);
    try {
      Files.createDirectories(directory);
      return new RocksDbMetaStore(directory, options, RocksDB.open(options, directory.toString()));
    } catch (RocksDBException | java.io.IOException e) {
      options.close();
      throw new MetaStoreException("cannot open the RocksDB metastore at " + directory + ": "
          + e.getMessage(), e);
    }
  }

  @Override
  public Optional<byte[]> get(String key) {
    Keys.checkKey(key);
    try {
      byte[] stored = db.get(bytes(key));
      return stored == null ? Optional.empty() : StoredItem.decode(key, stored).value();
    } catch (RocksDBException e) {
      throw failure("get " + key, e);
    }
  }

  @Override
  public ScanPage scan(String prefix, Optional<String> continuation, int limit) {
    Keys.checkPrefix(prefix);
    Keys.checkPageSize(limit);
    Optional<String> after = continuation.map(token -> ContinuationTokens.decode(prefix, token));
    List<ScanPage.Entry> entries = new ArrayList<>();
    try (ReadOptions read = new ReadOptions(); RocksIterator it = db.newIterator(read)) {
      it.seek(bytes(after.orElse(prefix)));
      if (after.isPresent() && it.isValid() && Arrays.equals(it.key(), bytes(after.get()))) {
        it.next();
      }
      boolean more = false;
      for (; it.isValid(); it.next()) {
        String key = new String(it.key(), StandardCharsets.UTF_8);
        if (!key.startsWith(prefix)) {
          break;
        }
        Optional<byte[]> value = StoredItem.decode(key, it.value()).value();
        if (value.isEmpty()) {
          continue;
        }
        if (entries.size() == limit) {
          more = true;
          break;
        }
        entries.add(new ScanPage.Entry(key, value.get()));
      }
      it.status();
      Optional<String> next = more
          ? Optional.of(ContinuationTokens.encode(prefix, entries.getLast().key()))
          : Optional.empty();
      return new ScanPage(entries, next);
    } catch (RocksDBException e) {
      throw failure("scan " + prefix, e);
    }
  }

  @Override
  public boolean compareAndSet(String key, Optional<byte[]> expected, byte[] value, Fence fence) {
    Keys.checkKey(key);
    Keys.checkValue(key, value);
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(fence, "fence");
    ReentrantLock lock = lockFor(key);
    lock.lock();
    try {
      byte[] stored = db.get(bytes(key));
      StoredItem current = stored == null ? null : StoredItem.decode(key, stored);
      checkFence(key, current, fence);
      Optional<byte[]> currentValue = current == null ? Optional.empty() : current.value();
      boolean matches = expected.isEmpty() ? currentValue.isEmpty()
          : currentValue.isPresent() && Arrays.equals(currentValue.get(), expected.get());
      if (!matches) {
        return false;
      }
      db.put(syncWrites, bytes(key), StoredItem.encodeValue(fence.epoch(), value));
      return true;
    } catch (RocksDBException e) {
      throw failure("compare-and-set " + key, e);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean deleteIfEquals(String key, byte[] expected, Fence fence) {
    Keys.checkKey(key);
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(fence, "fence");
    ReentrantLock lock = lockFor(key);
    lock.lock();
    try {
      byte[] stored = db.get(bytes(key));
      StoredItem current = stored == null ? null : StoredItem.decode(key, stored);
      checkFence(key, current, fence);
      if (current == null || current.value().isEmpty()
          || !Arrays.equals(current.value().get(), expected)) {
        return false;
      }
      if (fence.epoch() == 0) {
        db.delete(syncWrites, bytes(key));
      } else {
        db.put(syncWrites, bytes(key), StoredItem.encodeTombstone(fence.epoch()));
      }
      return true;
    } catch (RocksDBException e) {
      throw failure("delete " + key, e);
    } finally {
      lock.unlock();
    }
  }

  private static void checkFence(String key, StoredItem current, Fence fence) {
    if (current != null && !fence.admits(current.epoch())) {
      throw new FencedException(key, fence.epoch(), current.epoch());
    }
  }

  @Override
  public void close() {
    syncWrites.close();
    db.close();
    options.close();
  }

  @Override
  public String toString() {
    return "RocksDbMetaStore[" + directory + "]";
  }

  private ReentrantLock lockFor(String key) {
    return locks[Math.floorMod(key.hashCode(), STRIPES)];
  }

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  private MetaStoreException failure(String what, RocksDBException e) {
    return new MetaStoreException("RocksDB failed to " + what + ": " + e.getMessage(), e);
  }
}
