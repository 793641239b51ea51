package dev.lake.engine.log;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.EngineException;
import dev.lake.engine.MaintenancePolicy;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableExistsException;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.log.commit.CommitEntry;
import dev.lake.engine.log.commit.CommitLog;
import dev.lake.engine.log.segment.NestedLayout;
import dev.lake.engine.log.segment.Compression;
import dev.lake.engine.log.store.LocalObjectStore;
import dev.lake.engine.log.store.ObjectStore;
import dev.lake.engine.log.store.S3ObjectStore;
import dev.lake.engine.log.store.S3Settings;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The {@code log} table engine over local directories ({@code file:}) and S3 prefixes
 * ({@code s3://bucket/prefix}). Thread-safe; the only resource it holds is the S3 client, made
 * on first use of an S3 location and closed with the engine.
 */
final class LogEngine implements TableEngine {

  static final String DATA = "data";
  private static final Set<String> TABLE_DIRECTORIES =
      Set.of(DATA + "/", CommitLog.LOG, CommitLog.CHECKPOINTS, CommitLog.EXPIRED);

  record Settings(int blockRows, long segmentBytes, int commitRetries, int checkpointInterval,
      Duration orphanGrace, long mapBytes, S3Settings s3, Compression compression) {}

  private final Settings settings;
  private S3Client s3;
  private volatile boolean closed;

  LogEngine(Settings settings) {
    this.settings = settings;
  }

  @Override
  public String name() {
    return LogEngineFactory.NAME;
  }

  /**
   * Writes version 0 (the schema, no segments) put-if-absent.
   *
   * @throws IllegalArgumentException if the schema is empty, has duplicate names or a type the
   *     format cannot store (naming the column and the part of it); nothing is written
   * @throws TableExistsException if version 0 already exists; nothing is changed
   * @throws EngineException if the location holds files that are not a log table's (naming one);
   *     nothing is written
   * @throws EngineException if the storage fails; a retry is safe
   */
  @Override
  public TableHandle create(TableLocation location, Schema schema) {
    checkOpen();
    validateSchema(schema);
    ObjectStore store = store(location);
    CommitLog log = new CommitLog(store);
    CommitEntry initial = new CommitEntry(
        0, Instant.now(), CommitEntry.Kind.CREATE, null, schema, List.of(), List.of());
    try {
      for (ObjectStore.ObjectInfo o : store.list("", null)) {
        if (TABLE_DIRECTORIES.stream().noneMatch(o.key()::startsWith)) {
          throw new EngineException(location, "the location holds '" + o.key()
              + "', which is not part of a log table; nothing was written");
        }
      }
      if (load(location, log).isPresent() || !log.tryCommit(initial)) {
        throw new TableExistsException(location);
      }
    } catch (IOException e) {
      throw new EngineException(location, "cannot create the table: " + e.getMessage(), e);
    }
    return new LogTableHandle(location, settings, log, TableState.of(0, null, List.of(initial)));
  }

  /**
   * Reads the newest checkpoint and the entries after it.
   *
   * @return empty if there is no entry and no checkpoint (a plain directory, or a create that
   *     never completed)
   * @throws CorruptTableException if an entry or checkpoint is damaged or versions are missing
   *     in between
   */
  @Override
  public Optional<TableHandle> open(TableLocation location) {
    checkOpen();
    CommitLog log = new CommitLog(store(location));
    return load(location, log).map(state -> new LogTableHandle(location, settings, log, state));
  }

  private static Optional<TableState> load(TableLocation location, CommitLog log) {
    return LogTableHandle.load(location, log, Long.MAX_VALUE);
  }

  /**
   * Compacts and expires as {@code policy} says (see {@link Maintenance}).
   *
   * @throws EngineException if there is no log table at {@code location}; nothing is written
   */
  @Override
  public Optional<Version> maintain(TableLocation location, MaintenancePolicy policy) {
    checkOpen();
    try (LogTableHandle table = (LogTableHandle) open(location).orElseThrow(
        () -> new EngineException(location, "there is no log table here; nothing was maintained"))) {
      return new Maintenance(table).run(policy);
    }
  }

  /** Deletes every object of the table. Idempotent; a retry after a failure is safe. */
  @Override
  public void drop(TableLocation location) {
    checkOpen();
    try {
      store(location).deleteAll();
    } catch (IOException e) {
      throw new EngineException(location, "cannot drop the table: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (s3 != null) {
      s3.close();
      s3 = null;
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the log engine is closed");
    }
  }

  private ObjectStore store(TableLocation location) {
    return switch (location.uri().getScheme()) {
      case "file" -> new LocalObjectStore(location.localPath());
      case "s3" -> {
        String bucket = location.uri().getAuthority();
        if (bucket == null || bucket.isEmpty()) {
          throw new EngineException(location, "an s3 location needs a bucket: s3://bucket/prefix");
        }
        String path = location.uri().getPath() == null ? "" : location.uri().getPath();
        String prefix = path.replaceAll("^/+", "").replaceAll("/+$", "");
        yield new S3ObjectStore(s3Client(), bucket, prefix);
      }
      default -> throw new EngineException(location, "the log engine supports file: and s3: locations, not "
          + location.uri().getScheme() + ":");
    };
  }

  private synchronized S3Client s3Client() {
    checkOpen();
    if (s3 == null) {
      s3 = settings.s3().client();
    }
    return s3;
  }

  static void validateSchema(Schema schema) {
    if (schema.getFields().isEmpty()) {
      throw new IllegalArgumentException("a table needs at least one column");
    }
    Set<String> names = new HashSet<>();
    for (Field f : schema.getFields()) {
      if (!names.add(f.getName())) {
        throw new IllegalArgumentException("duplicate column name '" + f.getName() + "'");
      }
      String problem = NestedLayout.unsupported(f);
      if (problem != null) {
        throw new IllegalArgumentException("column '" + f.getName() + "' cannot be stored by the log"
            + " format: " + problem + "; it stores integers, floats, bool, utf8, binary, dates,"
            + " timestamps, decimal128, and structs, lists, large lists and fixed-size lists of"
            + " those, nested to any depth (no maps, unions or dictionary encoding)");
      }
    }
  }
}
