package dev.lake.engine.log.commit;

import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The replayed state of the table at {@code version}: its live segments and the history of the
 * versions before it that were retained when it was written. Opening a table reads the newest
 * checkpoint and only the entries after it; time travel reads the newest checkpoint at or
 * before the version asked for. The history may reach below the current retention floor; readers
 * filter it.
 */
public record Checkpoint(long version, Schema schema, List<LiveSegment> live, List<HistoryEntry> history) {
  public Checkpoint {
    Objects.requireNonNull(schema, "schema");
    live = List.copyOf(live);
    history = List.copyOf(history);
    if (history.isEmpty() || history.getLast().version() != version) {
      throw new IllegalArgumentException("a checkpoint's history must end at its own version " + version);
    }
  }
}
