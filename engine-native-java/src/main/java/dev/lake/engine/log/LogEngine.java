package dev.lake.engine.log;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.EngineException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableExistsException;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.log.commit.CommitEntry;
import dev.lake.engine.log.commit.CommitLog;
import dev.lake.engine.log.commit.CorruptEntryException;
import dev.lake.engine.log.segment.ColumnKind;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** The {@code log} table engine over local directories. Thread-safe; holds no open resources. */
final class LogEngine implements TableEngine {

  static final String DATA = "data";

  record Settings(int blockRows, long segmentBytes, int commitRetries) {}

  private final Settings settings;
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
   *     format cannot store
   * @throws TableExistsException if version 0 already exists; nothing is changed
   * @throws EngineException if the storage fails; a retry is safe
   */
  @Override
  public TableHandle create(TableLocation location, Schema schema) {
    checkOpen();
    validateSchema(schema);
    Path dir = localPath(location);
    CommitLog log = new CommitLog(dir);
    CommitEntry initial = new CommitEntry(0, Instant.now(), null, schema, List.of(), List.of());
    try {
      Files.createDirectories(dir.resolve(DATA));
      if (!log.tryCommit(initial)) {
        throw new TableExistsException(location);
      }
    } catch (IOException e) {
      throw new EngineException(location, "cannot create the table: " + e.getMessage(), e);
    }
    return new LogTableHandle(location, settings, log, TableState.of(List.of(initial)));
  }

  /**
   * Reads and verifies every commit entry.
   *
   * @return empty if there is no {@code _log} directory or no version 0 in it (a create that
   *     never completed)
   * @throws CorruptTableException if an entry is damaged or versions are missing in between
   */
  @Override
  public Optional<TableHandle> open(TableLocation location) {
    checkOpen();
    Path dir = localPath(location);
    CommitLog log = new CommitLog(dir);
    if (!log.exists()) {
      return Optional.empty();
    }
    try {
      TreeSet<Long> versions = log.listVersions();
      if (versions.isEmpty()) {
        return Optional.empty();
      }
      if (versions.first() != 0 || versions.last() != versions.size() - 1) {
        throw new CorruptTableException(location,
            "the commit log has gaps: versions " + versions.first() + ".." + versions.last()
                + " with " + versions.size() + " entries");
      }
      List<CommitEntry> entries = new ArrayList<>(versions.size());
      for (long v : versions) {
        entries.add(log.read(v).orElseThrow(() -> new CorruptTableException(location,
            "commit log entry " + CommitLog.fileName(v) + " disappeared while opening")));
      }
      return Optional.of(new LogTableHandle(location, settings, log, TableState.of(entries)));
    } catch (CorruptEntryException e) {
      throw new CorruptTableException(location, e.getMessage(), e);
    } catch (IOException e) {
      throw new EngineException(location, "cannot read the commit log: " + e.getMessage(), e);
    }
  }

  /** Deletes the directory tree. Idempotent; a retry after a failure is safe. */
  @Override
  public void drop(TableLocation location) {
    Path dir = localPath(location);
    if (!Files.exists(dir)) {
      return;
    }
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE;
          }
          throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
          if (e != null && !(e instanceof NoSuchFileException)) {
            throw e;
          }
          Files.deleteIfExists(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (NoSuchFileException e) {
      // dropped concurrently: the goal is reached
    } catch (IOException e) {
      throw new EngineException(location, "cannot drop the table: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    closed = true;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the log engine is closed");
    }
  }

  private static Path localPath(TableLocation location) {
    if (!location.isLocal()) {
      throw new EngineException(location, "the log engine supports only file: locations");
    }
    return location.localPath();
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
      if (ColumnKind.of(f) == null) {
        throw new IllegalArgumentException(
            "column '" + f.getName() + "' has type " + f.getType() + ", which the log format cannot store");
      }
    }
  }
}
