package dev.lake.flight.ticket;

import java.util.Objects;
import java.util.UUID;

/**
 * One table snapshot a ticket replays: the table's name, and which incarnation of it (engine, the
 * location of its files, the registry's incarnation id) at which version. {@code engine},
 * {@code location} and {@code incarnation} are null for a table the registry does not own (for
 * example a federated one), which is then pinned by version only.
 */
public record SnapshotPin(String schema, String table, String engine, String location,
    UUID incarnation, long version) {

  public SnapshotPin {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(table, "table");
    if ((engine == null) != (location == null) || (engine == null) != (incarnation == null)) {
      throw new IllegalArgumentException("engine, location and incarnation are all set or none");
    }
  }

  /** Whether the registry owns the table (engine, location and incarnation are known). */
  public boolean registered() {
    return incarnation != null;
  }

  @Override
  public String toString() {
    return schema + "." + table + "@" + version
        + (registered() ? " (" + engine + ", incarnation " + incarnation + ")" : "");
  }
}
