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
   * Removes every file of the table. Idempotent: dropping an absent table succeeds.
   *
   * @throws EngineException if the storage fails; retrying is safe
   */
  void drop(TableLocation location);

  /** Releases engine-wide resources; open handles must not be used afterwards. */
  @Override
  void close();
}
