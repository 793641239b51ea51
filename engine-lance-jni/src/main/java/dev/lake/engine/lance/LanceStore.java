package dev.lake.engine.lance;

import dev.lake.engine.EngineException;
import dev.lake.engine.TableLocation;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.Session;
import org.lance.WriteParams;

/**
 * What every table of one engine shares: the allocator for Lance's metadata calls, one Lance
 * {@link Session} (its manifest and index caches make opening a dataset at a version cost tens of
 * microseconds), the object-store options, and the engine settings.
 *
 * <p>Nothing here touches Lance's native library until the first table operation calls {@link
 * #ready()}: a process that has the engine on its class path but never uses a lance table pays
 * neither the library copy nor its load (see {@link LanceNative}).
 */
final class LanceStore implements AutoCloseable {

  /** Settings from {@link LanceEngineFactory}. */
  record Settings(Map<String, String> storageOptions, int commitRetries, int maxRowsPerFile, long cacheBytes) {
    Settings {
      storageOptions = Map.copyOf(storageOptions);
    }
  }

  private final BufferAllocator allocator;
  private final Settings settings;
  private final Object sessionLock = new Object();
  private volatile Session session;
  private boolean closed;

  LanceStore(BufferAllocator allocator, Settings settings) {
    this.allocator = allocator;
    this.settings = settings;
  }

  /**
   * Loads the native library and creates the shared session, once; every operation that reaches
   * Lance calls this first.
   *
   * @throws IllegalStateException if the store is closed
   * @throws EngineException if the Lance library cannot be loaded or started
   */
  void ready() {
    session();
  }

  private Session session() {
    Session s = session;
    if (s != null) {
      return s;
    }
    synchronized (sessionLock) {
      if (closed) {
        throw new IllegalStateException("the lance engine is closed");
      }
      if (session == null) {
        try {
          LanceNative.ensureLoaded();
          session = Session.builder()
              .metadataCacheSizeBytes(settings.cacheBytes())
              .indexCacheSizeBytes(settings.cacheBytes())
              .build();
        } catch (RuntimeException | LinkageError e) {
          throw new EngineException(null, "cannot start the Lance library: " + e.getMessage(), e);
        }
      }
      return session;
    }
  }

  BufferAllocator allocator() {
    return allocator;
  }

  Settings settings() {
    return settings;
  }

  Map<String, String> storageOptions() {
    return settings.storageOptions();
  }

  /**
   * The path or URI Lance addresses the table by: a plain path for {@code file:} locations, the
   * URI itself for object stores ({@code s3://bucket/prefix}).
   */
  static String uri(TableLocation location) {
    if (location.isLocal()) {
      return location.localPath().toString();
    }
    String scheme = location.uri().getScheme();
    if (!"s3".equals(scheme)) {
      throw new EngineException(location, "the lance engine supports file: and s3: locations, not " + scheme + ":");
    }
    String uri = location.uri().toString();
    return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
  }

  /**
   * Opens the dataset at {@code lanceVersion} (or its latest version) with {@code allocator} for
   * the buffers its reads return. The caller closes the dataset.
   *
   * @throws RuntimeException as Lance raises it; see {@link LanceErrors}
   */
  Dataset open(BufferAllocator allocator, String uri, OptionalLong lanceVersion) {
    ReadOptions.Builder options = new ReadOptions.Builder()
        .setSession(session())
        .setStorageOptions(settings.storageOptions());
    lanceVersion.ifPresent(options::setVersion);
    return Dataset.open().allocator(allocator).uri(uri).readOptions(options.build()).build();
  }

  WriteParams writeParams() {
    return writeParams(settings.maxRowsPerFile());
  }

  /** Write parameters with at most {@code maxRowsPerFile} rows per data file (0: Lance's default). */
  WriteParams writeParams(int maxRowsPerFile) {
    WriteParams.Builder params = new WriteParams.Builder().withStorageOptions(settings.storageOptions());
    if (maxRowsPerFile > 0) {
      params.withMaxRowsPerFile(maxRowsPerFile);
    }
    return params.build();
  }

  @Override
  public void close() {
    Session s;
    synchronized (sessionLock) {
      if (closed) {
        return;
      }
      closed = true;
      s = session;
    }
    try {
      if (s != null) {
        s.close();
      }
    } finally {
      allocator.close();
    }
  }
}
