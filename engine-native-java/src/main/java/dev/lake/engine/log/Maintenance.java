package dev.lake.engine.log;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.EngineException;
import dev.lake.engine.MaintenancePolicy;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.log.commit.CommitLog;
import dev.lake.engine.log.commit.HistoryEntry;
import dev.lake.engine.log.commit.LiveSegment;
import dev.lake.engine.log.commit.SegmentRef;
import dev.lake.engine.log.segment.SegmentAppender;
import dev.lake.engine.log.segment.SegmentFile;
import dev.lake.engine.log.segment.SegmentFooter;
import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Compaction and expiry of one log table.
 *
 * <p>Compaction reads every live segment smaller than the target, writes their rows into new
 * segments of about the target size and commits one version that adds those and removes the
 * inputs. It rebases over appends committed meanwhile and gives up (returning empty) if another
 * compaction removed an input first.
 *
 * <p>Expiry picks the oldest version to retain (the newest {@code retainVersions} and any
 * younger than {@code retainAge}), writes a checkpoint at it, then the expiry mark
 * {@code _expired/<version>}: from that moment older versions read as expired. Only then does
 * it delete segments that no retained version names, the older entries and checkpoints, and
 * segments no version ever named once they are older than the orphan grace period (so an
 * append still writing its segments is never robbed). A crash anywhere in between leaves a
 * readable table; the next expiry finishes the deletions.
 */
final class Maintenance {

  private final LogTableHandle table;
  private final TableLocation location;
  private final CommitLog log;
  private final ObjectStore store;

  Maintenance(LogTableHandle table) {
    this.table = table;
    this.location = table.location();
    this.log = table.log();
    this.store = table.store();
  }

  Optional<Version> run(MaintenancePolicy policy) {
    try {
      Optional<Version> compacted = policy.compacts() ? compact(policy) : Optional.empty();
      if (policy.expires()) {
        expire(policy);
      }
      return compacted;
    } catch (IOException e) {
      throw new EngineException(location, "maintenance failed; the table stays at a committed version: "
          + e.getMessage(), e);
    }
  }

  private Optional<Version> compact(MaintenancePolicy policy) throws IOException {
    TableState s = table.refresh();
    Version at = Version.of(s.latest());
    List<LiveSegment> small = s.liveSegments(s.latest()).stream()
        .filter(l -> l.ref().bytes() < policy.compactionTargetBytes()).toList();
    if (small.size() < policy.minSmallSegments()) {
      return Optional.empty();
    }
    List<SegmentAppender.Written> written;
    try (BufferAllocator allocator = new RootAllocator();
        SegmentAppender appender = new SegmentAppender(store, LogEngine.DATA + "/", s.schema(),
            table.settings().blockRows(), policy.compactionTargetBytes(), table.settings().compression(),
            allocator)) {
      List<Integer> columns = IntStream.range(0, s.schema().getFields().size()).boxed().toList();
      for (LiveSegment segment : small) {
        SegmentFooter footer = table.footer(segment, at, s.schema());
        List<Integer> blocks = IntStream.range(0, footer.blocks().size()).boxed().toList();
        try (ArrowReader reader = SegmentFile.openBlocks(store,
            LogTableHandle.segmentKey(segment.ref().file()), footer, blocks, columns, allocator,
            (block, column, problem, cause) ->
                table.corruptOrExpired(at, segment, block, column, problem, cause))) {
          while (reader.loadNextBatch()) {
            appender.append(reader.getVectorSchemaRoot());
          }
        }
      }
      written = appender.finish();
    }
    List<SegmentRef> added = written.stream()
        .map(w -> new SegmentRef(w.fileName(), w.rows(), w.bytes())).toList();
    List<String> removed = small.stream().map(l -> l.ref().file()).toList();
    return table.commitCompaction(s, added, removed);
  }

  private void expire(MaintenancePolicy policy) throws IOException {
    TableState s = table.refreshFloor();
    long latest = s.latest();
    Instant now = Instant.now();
    Instant youngFrom = now.minus(policy.retainAge());
    long keepFrom = latest - policy.retainVersions() + 1;
    for (HistoryEntry h : s.history()) {
      if (h.committedAt().isAfter(youngFrom)) {
        keepFrom = Math.min(keepFrom, h.version());
        break;
      }
    }
    long floor = Math.min(Math.max(keepFrom, s.floor()), latest);
    Set<String> expiredFiles = new HashSet<>();
    if (floor > s.floor()) {
      TableState older = s.covers(floor) ? s
          : LogTableHandle.load(location, log, floor).orElseThrow(() -> new CorruptTableException(
              location, "no checkpoint or entry at or before version " + floor));
      LogTableHandle.load(location, log, floor - 1).ifPresent(
          expired -> expiredFiles.addAll(expired.everyNamedSegment()));
      // The checkpoint makes the new floor openable without the entries about to be deleted;
      // the mark then makes every older version read as expired.
      log.writeCheckpoint(older.checkpoint(floor));
      log.markExpired(floor);
    }
    collect(floor, expiredFiles, now.minus(table.settings().orphanGrace()));
  }

  /** Deletes what no version at or after {@code floor} needs. */
  private void collect(long floor, Set<String> expiredFiles, Instant orphanedBefore) throws IOException {
    // List first, then read the log: a segment listed here and committed later is younger than
    // the grace period, so it is never taken for an orphan.
    List<ObjectStore.ObjectInfo> files = store.list(LogEngine.DATA + "/", null);
    Set<String> needed = neededFrom(floor);
    for (ObjectStore.ObjectInfo f : files) {
      String name = f.key().substring(LogEngine.DATA.length() + 1);
      if (!needed.contains(name)
          && (expiredFiles.contains(name) || f.lastModified().isBefore(orphanedBefore))) {
        store.delete(f.key());
      }
    }
    for (long v : log.entryVersions(-1)) {
      if (v >= floor) {
        break;
      }
      log.deleteEntry(v);
    }
    for (long c : log.checkpointVersions()) {
      if (c < floor) {
        log.deleteCheckpoint(c);
      }
    }
    List<Long> marks = log.expiryMarks();
    for (long m : marks) {
      if (m < marks.getLast()) {
        log.deleteExpiryMark(m);
      }
    }
  }

  /** Every segment a version from {@code floor} to the latest names. */
  private Set<String> neededFrom(long floor) throws IOException {
    TableState s = table.refresh();
    if (s.covers(floor)) {
      return s.namedFrom(floor);
    }
    // The cached base is newer than the floor: versions between them need their own entries,
    // since a compaction there may have removed segments those versions still read.
    TableState atFloor = LogTableHandle.load(location, log, floor).orElseThrow(
        () -> new CorruptTableException(location, "no checkpoint or entry at or before version " + floor));
    Set<String> needed = new HashSet<>(atFloor.namedFrom(floor));
    for (long v = floor + 1; v <= s.baseVersion(); v++) {
      long version = v;
      log.read(v).orElseThrow(() -> new CorruptTableException(location,
              "commit log entry " + CommitLog.entryKey(version) + " of a retained version is missing"))
          .added().forEach(a -> needed.add(a.file()));
    }
    needed.addAll(s.everyNamedSegment());
    return needed;
  }
}
