package dev.lake.engine.log;

import dev.lake.engine.log.commit.CommitEntry;
import dev.lake.engine.log.commit.SegmentRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The commit entries read so far, versions 0..latest, with an index of operation ids. */
final class TableState {

  /** A segment live in some version, with the version that added it (for error messages). */
  record LiveSegment(SegmentRef ref, long addedIn) {}

  private final List<CommitEntry> entries;
  private final Map<UUID, CommitEntry> byOperation;

  private TableState(List<CommitEntry> entries, Map<UUID, CommitEntry> byOperation) {
    this.entries = entries;
    this.byOperation = byOperation;
  }

  static TableState of(List<CommitEntry> entries) {
    return new TableState(List.of(), Map.of()).plus(entries);
  }

  TableState plus(List<CommitEntry> more) {
    if (more.isEmpty()) {
      return this;
    }
    List<CommitEntry> all = new ArrayList<>(entries.size() + more.size());
    all.addAll(entries);
    Map<UUID, CommitEntry> ops = new HashMap<>(byOperation);
    for (CommitEntry e : more) {
      if (e.version() != all.size()) {
        throw new IllegalStateException("entry " + e.version() + " out of order");
      }
      all.add(e);
      if (e.operation() != null) {
        ops.putIfAbsent(e.operation().operationId(), e);
      }
    }
    return new TableState(List.copyOf(all), ops);
  }

  long latest() {
    return entries.size() - 1;
  }

  CommitEntry entry(long version) {
    return entries.get((int) version);
  }

  List<CommitEntry> entries() {
    return entries;
  }

  CommitEntry byOperation(UUID operationId) {
    return byOperation.get(operationId);
  }

  /** Replays entries 0..version into the set of segments live in that version. */
  List<LiveSegment> liveSegments(long version) {
    Map<String, LiveSegment> live = new LinkedHashMap<>();
    for (int v = 0; v <= version; v++) {
      CommitEntry e = entries.get(v);
      e.removed().forEach(live::remove);
      for (SegmentRef s : e.added()) {
        live.put(s.file(), new LiveSegment(s, v));
      }
    }
    return List.copyOf(live.values());
  }
}
