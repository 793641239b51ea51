package dev.lake.engine.log;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.EngineException;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import dev.lake.engine.VersionNotFoundException;
import dev.lake.engine.log.commit.CommitEntry;
import dev.lake.engine.log.commit.CommitLog;
import dev.lake.engine.log.commit.CorruptEntryException;
import dev.lake.engine.log.commit.SegmentRef;
import dev.lake.engine.log.segment.SegmentAppender;
import dev.lake.engine.log.segment.SegmentFooter;
import dev.lake.engine.log.segment.SegmentFormatException;
import dev.lake.engine.log.segment.SegmentFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An open log table. The replayed commit entries are cached and only new entries are read on a
 * refresh; segment footers are cached by file name since segments never change.
 */
final class LogTableHandle implements TableHandle {

  private final TableLocation location;
  private final LogEngine.Settings settings;
  private final CommitLog log;
  private final Path dataDir;
  private final Object refreshLock = new Object();
  private final ConcurrentHashMap<String, SegmentFooter> footers = new ConcurrentHashMap<>();
  private volatile TableState state;

  LogTableHandle(TableLocation location, LogEngine.Settings settings, CommitLog log, TableState state) {
    this.location = location;
    this.settings = settings;
    this.log = log;
    this.dataDir = location.localPath().resolve(LogEngine.DATA);
    this.state = state;
  }

  @Override
  public TableLocation location() {
    return location;
  }

  @Override
  public Schema schema() {
    TableState s = state;
    return s.entry(s.latest()).schema();
  }

  /**
   * Reads entries committed since the last look.
   *
   * @throws CorruptTableException if a new entry is damaged
   */
  @Override
  public Version currentVersion() {
    return Version.of(refresh().latest());
  }

  @Override
  public List<VersionInfo> versions() {
    List<VersionInfo> out = new ArrayList<>();
    for (CommitEntry e : refresh().entries()) {
      out.add(new VersionInfo(Version.of(e.version()), e.committedAt(), Optional.ofNullable(e.operation())));
    }
    return out;
  }

  /**
   * A pinned view of {@code version}; segment files are only checked when planned and read.
   *
   * @throws VersionNotFoundException if the version was never committed
   */
  @Override
  public Snapshot snapshot(Version version) {
    TableState s = state;
    if (version.number() > s.latest()) {
      s = refresh();
      if (version.number() > s.latest()) {
        throw new VersionNotFoundException(location, version,
            "was never committed (latest is " + s.latest() + ")");
      }
    }
    CommitEntry entry = s.entry(version.number());
    return new LogSnapshot(this, version, entry.schema(), s.liveSegments(version.number()));
  }

  /**
   * Writes the batches into new segment files, fsyncs them, then creates the next commit entry
   * put-if-absent; on losing a race it re-reads the log and retries on the following version.
   *
   * <p>An operation id already committed with the same digest returns its version without
   * writing anything (an idempotent replay).
   *
   * @throws IllegalArgumentException if the batches hold no rows: an append must add a version
   *     with data, and nothing is written
   * @throws SchemaMismatchException if the batches' fields differ from the table's (names, types,
   *     or a nullable field into a NOT NULL column); nothing is written
   * @throws CommitConflictException if the operation id was committed with another digest or
   *     tenant/table, or if other writers won {@code log.commit.retries} versions in a row; no
   *     version was created by this call
   * @throws CorruptTableException if the log holds a damaged entry
   * @throws EngineException if the storage fails; the outcome is then unknown, use {@link
   *     #reconcileAppend}
   */
  @Override
  public Version append(AppendOperation operation, ArrowReader batches) {
    TableState s = refresh();
    Optional<Version> replay = committed(s, operation);
    if (replay.isPresent()) {
      return replay.get();
    }
    Schema schema = s.entry(s.latest()).schema();
    VectorSchemaRoot input;
    try {
      input = batches.getVectorSchemaRoot();
    } catch (IOException e) {
      throw new EngineException(location, "cannot read the appended batches: " + e.getMessage(), e);
    }
    requireAppendable(schema, input.getSchema());
    List<SegmentAppender.Written> written = writeSegments(schema, batches, input);
    List<SegmentRef> added = written.stream()
        .map(w -> new SegmentRef(w.fileName(), w.rows(), w.bytes())).toList();
    boolean maybeCommitted = false;
    try {
      for (int attempt = 0; attempt <= settings.commitRetries(); attempt++) {
        long next = s.latest() + 1;
        CommitEntry entry = new CommitEntry(next, Instant.now(), operation, schema, added, List.of());
        maybeCommitted = true;
        if (log.tryCommit(entry)) {
          // Not refreshed here: a failure reading others' entries must not mask this success.
          return Version.of(next);
        }
        maybeCommitted = false;
        s = refresh();
        replay = committed(s, operation);
        if (replay.isPresent()) {
          deleteQuietly(written);
          return replay.get();
        }
        Schema now = s.entry(s.latest()).schema();
        if (!now.equals(schema)) {
          deleteQuietly(written);
          throw new SchemaMismatchException(location,
              "the table schema changed while appending; nothing was committed");
        }
      }
    } catch (IOException e) {
      if (!maybeCommitted) {
        deleteQuietly(written);
      }
      throw new EngineException(location,
          "commit failed, outcome unknown: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      if (!maybeCommitted) {
        deleteQuietly(written);
      }
      throw e;
    }
    deleteQuietly(written);
    throw new CommitConflictException(location, "other writers won " + (settings.commitRetries() + 1)
        + " versions in a row; nothing was committed, retrying the operation is safe");
  }

  /**
   * @throws CommitConflictException if the operation id was committed with a different digest
   */
  @Override
  public Optional<Version> reconcileAppend(AppendOperation operation) {
    return committed(refresh(), operation);
  }

  @Override
  public void close() {
    footers.clear();
  }

  Path dataFile(TableState.LiveSegment segment) {
    return dataDir.resolve(segment.ref().file());
  }

  /** The verified footer of a live segment, read once per handle. */
  SegmentFooter footer(TableState.LiveSegment segment) {
    SegmentFooter cached = footers.get(segment.ref().file());
    if (cached != null) {
      return cached;
    }
    Schema schema = state.entry(segment.addedIn()).schema();
    try {
      SegmentFooter footer = SegmentFile.readFooter(dataFile(segment), segment.ref().bytes(), schema);
      if (footer.rowCount() != segment.ref().rows()) {
        throw new SegmentFormatException(
            "holds " + footer.rowCount() + " rows, the commit log recorded " + segment.ref().rows());
      }
      footers.putIfAbsent(segment.ref().file(), footer);
      return footer;
    } catch (SegmentFormatException e) {
      throw new CorruptTableException(location, "segment " + LogEngine.DATA + "/" + segment.ref().file()
          + " of version " + segment.addedIn() + " " + e.getMessage(), e);
    }
  }

  private TableState refresh() {
    synchronized (refreshLock) {
      TableState s = state;
      List<CommitEntry> more = new ArrayList<>();
      try {
        for (long v = s.latest() + 1; ; v++) {
          Optional<CommitEntry> e = log.read(v);
          if (e.isEmpty()) {
            break;
          }
          more.add(e.get());
        }
      } catch (CorruptEntryException e) {
        throw new CorruptTableException(location, e.getMessage(), e);
      } catch (IOException e) {
        throw new EngineException(location, "cannot read the commit log: " + e.getMessage(), e);
      }
      state = s.plus(more);
      return state;
    }
  }

  private Optional<Version> committed(TableState s, AppendOperation operation) {
    CommitEntry e = s.byOperation(operation.operationId());
    if (e == null) {
      return Optional.empty();
    }
    if (!e.operation().equals(operation)) {
      throw new CommitConflictException(location, "operation " + operation.operationId()
          + " was committed as version " + e.version() + " with a different payload digest or target");
    }
    return Optional.of(Version.of(e.version()));
  }

  private List<SegmentAppender.Written> writeSegments(
      Schema schema, ArrowReader batches, VectorSchemaRoot input) {
    BufferAllocator parent = input.getFieldVectors().getFirst().getAllocator();
    try (BufferAllocator staging = parent.newChildAllocator("log-append", 0, Long.MAX_VALUE);
        SegmentAppender appender = new SegmentAppender(
            dataDir, schema, settings.blockRows(), settings.segmentBytes(), staging)) {
      Files.createDirectories(dataDir);
      while (batches.loadNextBatch()) {
        appender.append(input);
      }
      if (appender.rows() == 0) {
        throw new IllegalArgumentException("append has no rows; an append must add at least one row");
      }
      return appender.finish();
    } catch (IOException e) {
      throw new EngineException(location, "writing segments failed, nothing was committed: "
          + e.getMessage(), e);
    }
  }

  private void requireAppendable(Schema table, Schema incoming) {
    List<Field> want = table.getFields();
    List<Field> got = incoming.getFields();
    for (int i = 0; i < Math.max(want.size(), got.size()); i++) {
      Field w = i < want.size() ? want.get(i) : null;
      Field g = i < got.size() ? got.get(i) : null;
      String problem = null;
      if (w == null) {
        problem = "batches have an extra column '" + g.getName() + "'";
      } else if (g == null) {
        problem = "batches lack column '" + w.getName() + "'";
      } else if (!w.getName().equals(g.getName())) {
        problem = "column " + i + " is '" + w.getName() + "' in the table but '" + g.getName() + "' in the batches";
      } else if (!w.getType().equals(g.getType()) || !g.getChildren().equals(w.getChildren())) {
        problem = "column '" + w.getName() + "' is " + w.getType() + " in the table but " + g.getType() + " in the batches";
      } else if (!w.isNullable() && g.isNullable()) {
        problem = "column '" + w.getName() + "' is NOT NULL in the table but nullable in the batches";
      }
      if (problem != null) {
        throw new SchemaMismatchException(location, problem + "; nothing was written");
      }
    }
  }

  private void deleteQuietly(List<SegmentAppender.Written> written) {
    for (SegmentAppender.Written w : written) {
      try {
        Files.deleteIfExists(dataDir.resolve(w.fileName()));
      } catch (IOException e) {
        // An unreferenced segment is harmless; maintenance may remove it later.
      }
    }
  }
}
