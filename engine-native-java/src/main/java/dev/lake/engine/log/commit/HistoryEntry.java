package dev.lake.engine.log.commit;

import dev.lake.engine.AppendOperation;
import java.time.Instant;
import java.util.Objects;

/** What a version's entry says of it, without its segments: kept in checkpoints. */
public record HistoryEntry(long version, Instant committedAt, CommitEntry.Kind kind, AppendOperation operation) {
  public HistoryEntry {
    Objects.requireNonNull(committedAt, "committedAt");
    Objects.requireNonNull(kind, "kind");
  }

  public static HistoryEntry of(CommitEntry e) {
    return new HistoryEntry(e.version(), e.committedAt(), e.kind(), e.operation());
  }
}
