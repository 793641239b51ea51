package dev.lake.engine;

import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table format: creates, opens and physically removes tables at a {@link TableLocation}.
 *
 * <p>Implementations are discovered with {@link java.util.ServiceLoader} through {@link
 * TableEngineFactory} and wired by the composition root; nothing above this interface names a
 * concrete engine. An engine is safe for concurrent use by many threads.
 */
public interface TableEngine extends AutoCloseable {

  /** The engine's registry name, for example {@code "log"}; stable across releases. */
  String name();

  /**
   * Creates an empty table at {@code location} whose first version ({@link Version#INITIAL})
   * holds the schema and no rows.
   *
   * @throws TableExistsException if a table of this engine already exists there; nothing is
   *     changed
   * @throws EngineException if the storage fails; a partially created table is never readable,
   *     and retrying the create at the same location is safe
   */
  TableHandle create(TableLocation location, Schema schema);

  /**
   * Opens the table at {@code location} at its latest committed version.
   *
   * @return empty when no table of this engine is there
   * @throws CorruptTableException if files are there but do not form a valid table
   */
  Optional<TableHandle> open(TableLocation location);

  /**
   * Compacts small data files and expires old versions as {@code policy} allows. Compaction
   * commits one new version with exactly the rows of the latest one; expiry makes versions
   * outside the retention window unreadable (a {@link VersionNotFoundException} whose {@link
   * VersionNotFoundException#expired()} is true) and then deletes every file that no retained
   * version references. Safe to run next to appends and readers of retained versions.
   *
   * @return the version compaction committed, or empty if there was nothing to compact
   * @throws CapabilityNotSupportedException if the engine cannot maintain tables (the default);
   *     nothing was changed
   * @throws EngineException if no table is at {@code location}; nothing was changed
   * @throws CommitConflictException if compaction kept losing its version to other writers;
   *     nothing was committed and a retry is safe
   * @throws EngineException if the storage fails; the table stays at a committed version and a
   *     retry is safe
   */
  default Optional<Version> maintain(TableLocation location, MaintenancePolicy policy) {
    throw new CapabilityNotSupportedException(location, name(), "maintenance (compaction and expiry)");
  }

  /**
   * Removes every file of the table. Idempotent: dropping an absent table succeeds.
   *
   * @throws EngineException if the storage fails; retrying is safe
   */
  void drop(TableLocation location);

  /** Releases engine-wide resources; open handles must not be used afterwards. */
  @Override
  void close();
}
