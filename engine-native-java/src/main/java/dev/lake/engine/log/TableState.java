package dev.lake.engine.log;

import dev.lake.engine.log.commit.Checkpoint;
import dev.lake.engine.log.commit.CommitEntry;
import dev.lake.engine.log.commit.HistoryEntry;
import dev.lake.engine.log.commit.LiveSegment;
import dev.lake.engine.log.commit.SegmentRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What a handle knows of a table: a base (a checkpoint, or nothing before version 0), the entries
 * after it, the history of every retained version and an index of operation ids. Immutable.
 */
final class TableState {

  private final long floor;
  private final long baseVersion;
  private final List<LiveSegment> baseLive;
  private final List<CommitEntry> tail;
  private final List<HistoryEntry> history;
  private final Map<UUID, HistoryEntry> byOperation;
  private final Schema schema;

  private TableState(long floor, long baseVersion, List<LiveSegment> baseLive, List<CommitEntry> tail,
      List<HistoryEntry> history, Map<UUID, HistoryEntry> byOperation, Schema schema) {
    this.floor = floor;
    this.baseVersion = baseVersion;
    this.baseLive = baseLive;
    this.tail = tail;
    this.history = history;
    this.byOperation = byOperation;
    this.schema = schema;
  }

  /**
   * @param floor the oldest retained version
   * @param base the checkpoint the entries follow, or null if they start at version 0
   * @param entries the entries after the base, contiguous
   */
  static TableState of(long floor, Checkpoint base, List<CommitEntry> entries) {
    List<HistoryEntry> history = new ArrayList<>();
    Map<UUID, HistoryEntry> ops = new HashMap<>();
    if (base != null) {
      for (HistoryEntry h : base.history()) {
        if (h.version() >= floor) {
          history.add(h);
          if (h.operation() != null) {
            ops.putIfAbsent(h.operation().operationId(), h);
          }
        }
      }
    }
    TableState start = new TableState(floor, base == null ? -1 : base.version(),
        base == null ? List.of() : base.live(), List.of(), List.copyOf(history), Map.copyOf(ops),
        base == null ? null : base.schema());
    return start.plus(entries);
  }

  TableState plus(List<CommitEntry> more) {
    if (more.isEmpty()) {
      return this;
    }
    List<CommitEntry> all = new ArrayList<>(tail.size() + more.size());
    all.addAll(tail);
    List<HistoryEntry> hist = new ArrayList<>(history);
    Map<UUID, HistoryEntry> ops = new HashMap<>(byOperation);
    long expected = latest() + 1;
    Schema last = schema;
    for (CommitEntry e : more) {
      if (e.version() != expected++) {
        throw new IllegalStateException("entry " + e.version() + " out of order");
      }
      all.add(e);
      HistoryEntry h = HistoryEntry.of(e);
      if (e.version() >= floor) {
        hist.add(h);
        if (e.operation() != null) {
          ops.putIfAbsent(e.operation().operationId(), h);
        }
      }
      last = e.schema();
    }
    return new TableState(floor, baseVersion, baseLive, List.copyOf(all), List.copyOf(hist), ops, last);
  }

  /** The same state with a higher retention floor: history and operations below it are dropped. */
  TableState withFloor(long newFloor) {
    if (newFloor <= floor) {
      return this;
    }
    List<HistoryEntry> hist = history.stream().filter(h -> h.version() >= newFloor).toList();
    Map<UUID, HistoryEntry> ops = new HashMap<>();
    for (HistoryEntry h : hist) {
      if (h.operation() != null) {
        ops.putIfAbsent(h.operation().operationId(), h);
      }
    }
    return new TableState(newFloor, baseVersion, baseLive, tail, hist, ops, schema);
  }

  long latest() {
    return baseVersion + tail.size();
  }

  long floor() {
    return floor;
  }

  long baseVersion() {
    return baseVersion;
  }

  Schema schema() {
    return schema;
  }

  /** Retained versions, oldest first. */
  List<HistoryEntry> history() {
    return history;
  }

  HistoryEntry byOperation(UUID operationId) {
    return byOperation.get(operationId);
  }

  /** Whether {@link #liveSegments} can answer for {@code version} without loading a checkpoint. */
  boolean covers(long version) {
    return version >= Math.max(baseVersion, 0) && version <= latest();
  }

  /** Replays the base and the entries up to {@code version} into the segments live in it. */
  List<LiveSegment> liveSegments(long version) {
    if (!covers(version)) {
      throw new IllegalArgumentException("version " + version + " is outside " + baseVersion + ".." + latest());
    }
    Map<String, LiveSegment> live = new LinkedHashMap<>();
    for (LiveSegment s : baseLive) {
      live.put(s.ref().file(), s);
    }
    for (CommitEntry e : tail) {
      if (e.version() > version) {
        break;
      }
      e.removed().forEach(live::remove);
      for (SegmentRef s : e.added()) {
        live.put(s.file(), new LiveSegment(s, e.version()));
      }
    }
    return List.copyOf(live.values());
  }

  /** Every segment file the base or any entry after it names. */
  Set<String> everyNamedSegment() {
    Set<String> files = new LinkedHashSet<>();
    baseLive.forEach(s -> files.add(s.ref().file()));
    for (CommitEntry e : tail) {
      e.added().forEach(s -> files.add(s.file()));
    }
    return files;
  }

  /** The segments live in {@code version} and every segment a later entry adds. */
  Set<String> namedFrom(long version) {
    Set<String> files = new LinkedHashSet<>();
    liveSegments(version).forEach(s -> files.add(s.ref().file()));
    for (CommitEntry e : tail) {
      if (e.version() > version) {
        e.added().forEach(s -> files.add(s.file()));
      }
    }
    return files;
  }

  /** The checkpoint of {@code version}, which this state must cover. */
  Checkpoint checkpoint(long version) {
    List<HistoryEntry> upTo = history.stream().filter(h -> h.version() <= version).toList();
    return new Checkpoint(version, schema, liveSegments(version), upTo);
  }
}
