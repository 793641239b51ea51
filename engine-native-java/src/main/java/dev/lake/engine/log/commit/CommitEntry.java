package dev.lake.engine.log.commit;

import dev.lake.engine.AppendOperation;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One version of a table as the commit log records it: which segments it adds and removes
 * relative to the previous version, the schema, and the append that made it (null for create).
 */
public record CommitEntry(
    long version,
    Instant committedAt,
    AppendOperation operation,
    Schema schema,
    List<SegmentRef> added,
    List<String> removed) {

  public CommitEntry {
    if (version < 0) {
      throw new IllegalArgumentException("negative version");
    }
    Objects.requireNonNull(committedAt, "committedAt");
    Objects.requireNonNull(schema, "schema");
    added = List.copyOf(added);
    removed = List.copyOf(removed);
  }
}
