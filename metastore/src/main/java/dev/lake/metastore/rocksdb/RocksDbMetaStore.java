package dev.lake.metastore.rocksdb;

import dev.lake.metastore.ContinuationTokens;
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
 * Conditional writes are made atomic by striped locks around read-compare-write; every write is
 * synced to the write-ahead log before it returns, so an acknowledged write survives a crash.
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
      return Optional.ofNullable(db.get(bytes(key)));
    } catch (RocksDBException e) {
      throw failure("get " + key, e);
    }
  }

  @Override
  public ScanPage scan(String prefix, Optional<String> continuation, int limit) {
    Keys.checkPrefix(prefix);
    Keys.checkPageSize(limit);
    Optional<String> after = continuation.map(token -> decodeContinuation(prefix, token));
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
        if (entries.size() == limit) {
          more = true;
          break;
        }
        entries.add(new ScanPage.Entry(key, it.value()));
      }
      it.status();
      Optional<String> next = more
          ? Optional.of(encodeContinuation(prefix, entries.getLast().key()))
          : Optional.empty();
      return new ScanPage(entries, next);
    } catch (RocksDBException e) {
      throw failure("scan " + prefix, e);
    }
  }

  @Override
  public boolean compareAndSet(String key, Optional<byte[]> expected, byte[] value) {
    Keys.checkKey(key);
    Keys.checkValue(key, value);
    ReentrantLock lock = lockFor(key);
    lock.lock();
    try {
      byte[] current = db.get(bytes(key));
      boolean matches = expected.isEmpty() ? current == null
          : current != null && Arrays.equals(current, expected.get());
      if (!matches) {
        return false;
      }
      db.put(syncWrites, bytes(key), value);
      return true;
    } catch (RocksDBException e) {
      throw failure("compare-and-set " + key, e);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean deleteIfEquals(String key, byte[] expected) {
    Keys.checkKey(key);
    ReentrantLock lock = lockFor(key);
    lock.lock();
    try {
      byte[] current = db.get(bytes(key));
      if (current == null || !Arrays.equals(current, expected)) {
        return false;
      }
      db.delete(syncWrites, bytes(key));
      return true;
    } catch (RocksDBException e) {
      throw failure("delete " + key, e);
    } finally {
      lock.unlock();
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

  private static String decodeContinuation(String prefix, String token) {
    return ContinuationTokens.decode(prefix, token);
  }

  private static String encodeContinuation(String prefix, String lastKey) {
    return ContinuationTokens.encode(prefix, lastKey);
  }
}
