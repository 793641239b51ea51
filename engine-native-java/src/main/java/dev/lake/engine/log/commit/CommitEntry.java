package dev.lake.engine.log.commit;

import dev.lake.engine.AppendOperation;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One version of a table as the commit log records it: what made it, which segments it adds and
 * removes relative to the previous version, and the schema. {@code operation} is the append's
 * identity, null for create and compaction.
 */
public record CommitEntry(
    long version,
    Instant committedAt,
    Kind kind,
    AppendOperation operation,
    Schema schema,
    List<SegmentRef> added,
    List<String> removed) {

  /** What made a version. */
  public enum Kind { CREATE, APPEND, COMPACT }

  public CommitEntry {
    if (version < 0) {
      throw new IllegalArgumentException("negative version");
    }
    Objects.requireNonNull(committedAt, "committedAt");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(schema, "schema");
    if ((kind == Kind.APPEND) != (operation != null)) {
      throw new IllegalArgumentException("an append, and only an append, carries an operation");
    }
    added = List.copyOf(added);
    removed = List.copyOf(removed);
  }
}
