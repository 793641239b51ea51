package dev.lake.engine.log;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.AppendSchemas;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.CorruptDataException;
import dev.lake.engine.CorruptMetadataException;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.EngineException;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import dev.lake.engine.VersionNotFoundException;
import dev.lake.engine.log.commit.Checkpoint;
import dev.lake.engine.log.commit.CommitEntry;
import dev.lake.engine.log.commit.CommitLog;
import dev.lake.engine.log.commit.CorruptEntryException;
import dev.lake.engine.log.commit.HistoryEntry;
import dev.lake.engine.log.commit.LiveSegment;
import dev.lake.engine.log.commit.SegmentRef;
import dev.lake.engine.log.segment.SegmentAppender;
import dev.lake.engine.log.segment.SegmentMappings;
import dev.lake.engine.log.segment.SegmentFooter;
import dev.lake.engine.log.segment.SegmentFormatException;
import dev.lake.engine.log.segment.SegmentFile;
import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An open log table. The replayed state is cached and only new entries are read on a refresh;
 * segment footers are cached by file name since segments never change.
 */
final class LogTableHandle implements TableHandle {

  private final TableLocation location;
  private final LogEngine.Settings settings;
  private final CommitLog log;
  private final ObjectStore store;
  private final Object refreshLock = new Object();
  private final ConcurrentHashMap<String, SegmentFooter> footers = new ConcurrentHashMap<>();
  private final SegmentMappings mappings;
  private final ScanPlans plans = new ScanPlans();
  private volatile TableState state;

  LogTableHandle(TableLocation location, LogEngine.Settings settings, CommitLog log, TableState state) {
    this.location = location;
    this.settings = settings;
    this.log = log;
    this.store = log.store();
    this.state = state;
    this.mappings = new SegmentMappings(settings.mapBytes());
  }

  /**
   * Reads the table's newest checkpoint at or before {@code upTo} and every entry after it.
   *
   * @return empty if there is neither a checkpoint nor an entry (no table)
   * @throws CorruptTableException if an entry or checkpoint is damaged, or entries are missing
   *     between the base and the newest one
   */
  static Optional<TableState> load(TableLocation location, CommitLog log, long upTo) {
    try {
      long floor = log.retentionFloor();
      long base = -1;
      for (long c : log.checkpointVersions()) {
        if (c >= floor && c <= upTo) {
          base = c;
        }
      }
      Checkpoint checkpoint = null;
      if (base >= 0) {
        long b = base;
        checkpoint = log.readCheckpoint(base).orElseThrow(() -> new CorruptTableException(location,
            "checkpoint " + CommitLog.checkpointKey(b) + " disappeared while opening; retry"));
      } else if (floor > 0) {
        throw new CorruptMetadataException(location, "checkpoint", CommitLog.checkpointKey(floor),
            Version.of(floor), "of the oldest retained version is missing", null);
      }
      List<CommitEntry> entries = new ArrayList<>();
      long expected = base + 1;
      for (long v : log.entryVersions(base)) {
        if (v > upTo) {
          break;
        }
        if (v != expected) {
          throw new CorruptMetadataException(location, "commit log entry",
              CommitLog.entryKey(expected), Version.of(expected), "is missing but "
              + CommitLog.entryKey(v) + " exists (the commit log has a gap)", null);
        }
        long version = v;
        entries.add(log.read(v).orElseThrow(() -> new CorruptTableException(location,
            "commit log entry " + CommitLog.entryKey(version) + " disappeared while opening; retry")));
        expected++;
      }
      if (checkpoint == null && entries.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(TableState.of(floor, checkpoint, entries));
    } catch (CorruptEntryException e) {
      throw corrupt(location, e);
    } catch (IOException e) {
      throw new EngineException(location, "cannot read the commit log: " + e.getMessage(), e);
    }
  }

  /** A damaged entry or checkpoint, as the engine reports it: naming the file and its version. */
  static CorruptMetadataException corrupt(TableLocation location, CorruptEntryException e) {
    long version = CommitLog.versionOf(e.file());
    return new CorruptMetadataException(location, e.what(), e.file(),
        version < 0 ? null : Version.of(version), e.problem(), e);
  }

  @Override
  public TableLocation location() {
    return location;
  }

  @Override
  public Schema schema() {
    return state.schema();
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

  /** Retained versions, re-reading the retention floor and new entries. */
  @Override
  public List<VersionInfo> versions() {
    TableState s = refreshFloor();
    List<VersionInfo> out = new ArrayList<>();
    for (HistoryEntry e : s.history()) {
      out.add(new VersionInfo(Version.of(e.version()), e.committedAt(), Optional.ofNullable(e.operation())));
    }
    return out;
  }

  /**
   * A pinned view of {@code version}; segment files are only checked when planned and read.
   *
   * @throws VersionNotFoundException if the version was never committed, or was expired by
   *     retention ({@link VersionNotFoundException#expired()})
   */
  @Override
  public Snapshot snapshot(Version version) {
    long v = version.number();
    TableState s = state;
    if (v > s.latest()) {
      s = refresh();
      if (v > s.latest()) {
        s = reloadPastExpiry(s);
      }
      if (v > s.latest()) {
        throw VersionNotFoundException.neverCommitted(location, version, Version.of(s.latest()));
      }
    }
    if (v < s.floor()) {
      throw VersionNotFoundException.expired(location, version, Version.of(s.floor()));
    }
    if (!s.covers(v)) {
      // Older than the cached base: read the checkpoint at or before it.
      s = load(location, log, v).orElseThrow(() -> new CorruptTableException(location,
          "no commit log entry or checkpoint at or before version " + v));
      if (v < s.floor() || !s.covers(v)) {
        throw VersionNotFoundException.expired(location, version, Version.of(s.floor()));
      }
    }
    return new LogSnapshot(this, version, s.schema(), s.liveSegments(v));
  }

  /**
   * Writes the batches into new segment files, makes them durable, then creates the next commit
   * entry put-if-absent; on losing a race it re-reads the log and retries on the following
   * version. Every {@code log.checkpoint.interval} versions the winner also writes a checkpoint.
   *
   * <p>An operation id already committed with the same digest returns its version without
   * writing anything (an idempotent replay), as long as that version is retained.
   *
   * @throws IllegalArgumentException if the batches hold no rows: an append must add a version
   *     with data, and nothing is written
   * @throws SchemaMismatchException if the batches' fields differ from the table's (names, types,
   *     or a nullable field into a NOT NULL column), including batches with no columns; nothing
   *     is written
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
    Schema schema = s.schema();
    VectorSchemaRoot input;
    try {
      input = batches.getVectorSchemaRoot();
    } catch (IOException e) {
      throw new EngineException(location, "cannot read the appended batches: " + e.getMessage(), e);
    }
    AppendSchemas.requireAppendable(location, schema, input.getSchema());
    List<SegmentAppender.Written> written = writeSegments(schema, batches, input);
    List<SegmentRef> added = written.stream()
        .map(w -> new SegmentRef(w.fileName(), w.rows(), w.bytes())).toList();
    boolean maybeCommitted = false;
    try {
      for (int attempt = 0; attempt <= settings.commitRetries(); attempt++) {
        long next = s.latest() + 1;
        CommitEntry entry = new CommitEntry(
            next, Instant.now(), CommitEntry.Kind.APPEND, operation, schema, added, List.of());
        maybeCommitted = true;
        if (log.tryCommit(entry)) {
          // Not refreshed here: a failure reading others' entries must not mask this success.
          maybeCheckpoint(s, entry);
          return Version.of(next);
        }
        maybeCommitted = false;
        s = refresh();
        replay = committed(s, operation);
        if (replay.isPresent()) {
          deleteQuietly(added);
          return replay.get();
        }
        if (!s.schema().equals(schema)) {
          deleteQuietly(added);
          throw new SchemaMismatchException(location,
              "the table schema changed while appending; nothing was committed");
        }
      }
    } catch (IOException e) {
      if (!maybeCommitted) {
        deleteQuietly(added);
      }
      throw new EngineException(location,
          "commit failed, outcome unknown: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      if (!maybeCommitted) {
        deleteQuietly(added);
      }
      throw e;
    }
    deleteQuietly(added);
    throw new CommitConflictException(location, "other writers won " + (settings.commitRetries() + 1)
        + " versions in a row; nothing was committed, retrying the operation is safe");
  }

  /**
   * Commits the compaction of {@code removed} into {@code added}, rebasing over appends that
   * won versions meanwhile.
   *
   * @return empty if another writer removed one of the inputs first; {@code added} was deleted
   */
  Optional<Version> commitCompaction(TableState s, List<SegmentRef> added, List<String> removed)
      throws IOException {
    for (int attempt = 0; attempt <= settings.commitRetries(); attempt++) {
      Set<String> live = new HashSet<>();
      s.liveSegments(s.latest()).forEach(l -> live.add(l.ref().file()));
      if (!live.containsAll(removed)) {
        deleteQuietly(added);
        return Optional.empty();
      }
      long next = s.latest() + 1;
      CommitEntry entry = new CommitEntry(
          next, Instant.now(), CommitEntry.Kind.COMPACT, null, s.schema(), added, removed);
      if (log.tryCommit(entry)) {
        maybeCheckpoint(s, entry);
        return Optional.of(Version.of(next));
      }
      s = refresh();
    }
    deleteQuietly(added);
    throw new CommitConflictException(location, "other writers won " + (settings.commitRetries() + 1)
        + " versions in a row during compaction; nothing was committed, retrying is safe");
  }

  /**
   * A checkpoint only speeds up opening, so failing to write one is not the caller's failure:
   * the next multiple of the interval writes another, and expiry writes its own.
   */
  private void maybeCheckpoint(TableState before, CommitEntry committed) {
    if (committed.version() % settings.checkpointInterval() != 0) {
      return;
    }
    try {
      log.writeCheckpoint(before.plus(List.of(committed)).checkpoint(committed.version()));
    } catch (IOException | RuntimeException e) {
      // see above: the version is committed either way
    }
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
    plans.clear();
    mappings.close();
  }

  SegmentMappings mappings() {
    return mappings;
  }

  ScanPlans plans() {
    return plans;
  }

  CommitLog log() {
    return log;
  }

  LogEngine.Settings settings() {
    return settings;
  }

  static String segmentKey(String file) {
    return LogEngine.DATA + "/" + file;
  }

  ObjectStore store() {
    return store;
  }

  /** The verified footer of a live segment of {@code version}, read once per handle. */
  SegmentFooter footer(LiveSegment segment, Version version, Schema schema) {
    SegmentFooter cached = footers.get(segment.ref().file());
    if (cached != null) {
      return cached;
    }
    try {
      SegmentFooter footer = SegmentFile.readFooter(
          store, segmentKey(segment.ref().file()), segment.ref().bytes(), schema);
      if (footer.rowCount() != segment.ref().rows()) {
        throw new SegmentFormatException(
            "holds " + footer.rowCount() + " rows, the commit log recorded " + segment.ref().rows());
      }
      footers.putIfAbsent(segment.ref().file(), footer);
      return footer;
    } catch (SegmentFormatException e) {
      throw corruptOrExpired(version, segment, -1, null, e.getMessage(), e);
    }
  }

  /**
   * A damaged or missing segment of a version that retention has since expired means the reader
   * is pinned to an expired version: say that, rather than report corruption.
   */
  RuntimeException corruptOrExpired(Version version, LiveSegment segment, int block, String column,
      String problem, Throwable cause) {
    try {
      long floor = log.retentionFloor();
      if (version.number() < floor) {
        return VersionNotFoundException.expired(location, version, Version.of(floor));
      }
    } catch (IOException e) {
      // report the corruption itself below
    }
    return new CorruptDataException(location, version, segmentKey(segment.ref().file()), block,
        column, problem, cause);
  }

  /**
   * The state again from the newest checkpoint if expiry deleted the entries right after the
   * cached latest version (a long-lived handle that last read before an expiry passed it), so
   * the versions committed since are found; {@code s} otherwise.
   */
  private TableState reloadPastExpiry(TableState s) {
    try {
      if (log.retentionFloor() <= s.latest() + 1) {
        return s;
      }
    } catch (IOException e) {
      throw new EngineException(location, "cannot read the commit log: " + e.getMessage(), e);
    }
    synchronized (refreshLock) {
      load(location, log, Long.MAX_VALUE).ifPresent(loaded -> state = loaded);
      return refresh();
    }
  }

  TableState refresh() {
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
        throw corrupt(location, e);
      } catch (IOException e) {
        throw new EngineException(location, "cannot read the commit log: " + e.getMessage(), e);
      }
      state = s.plus(more);
      return state;
    }
  }

  /** {@link #refresh()} plus the retention floor, which only expiry moves. */
  TableState refreshFloor() {
    long floor;
    try {
      floor = log.retentionFloor();
    } catch (IOException e) {
      throw new EngineException(location, "cannot read the commit log: " + e.getMessage(), e);
    }
    synchronized (refreshLock) {
      state = state.withFloor(floor);
    }
    return refresh();
  }

  private Optional<Version> committed(TableState s, AppendOperation operation) {
    HistoryEntry e = s.byOperation(operation.operationId());
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
        SegmentAppender appender = new SegmentAppender(store, LogEngine.DATA + "/", schema,
            settings.blockRows(), settings.segmentBytes(), settings.compression(), staging)) {
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

  void deleteQuietly(List<SegmentRef> segments) {
    for (SegmentRef w : segments) {
      try {
        store.delete(segmentKey(w.file()));
      } catch (IOException e) {
        // An unreferenced segment is harmless; expiry removes it after the orphan grace period.
      }
    }
  }
}
