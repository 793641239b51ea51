package dev.lake.sql;

import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A {@link SqlCatalog} that DDL and {@code INSERT} can change. Implemented over the registry by
 * the server and in memory by tests. Every method is one atomic change: on any exception nothing
 * changed.
 *
 * <p>Refusals are {@link SqlException}s with a kind the engine decides by: {@link
 * SqlException.Kind#ALREADY_EXISTS} (the schema or table exists), {@link
 * SqlException.Kind#TABLE_NOT_FOUND} (the schema or table does not), {@link
 * SqlException.Kind#NOT_EMPTY} (a {@code RESTRICT} drop of a schema that holds tables) and
 * {@link SqlException.Kind#INVALID} (a name, engine or type the catalog cannot take). Any other
 * exception is a failure of the storage underneath.
 */
public interface WritableSqlCatalog extends SqlCatalog {

  /** The schema an unqualified {@code CREATE TABLE} creates its table in, as in PostgreSQL. */
  String DEFAULT_SCHEMA = "public";

  /**
   * Called when an {@code INSERT} into {@code name} is prepared, before anything runs, so a
   * catalog that would refuse the write refuses it even when no row comes (an append of no rows
   * never reaches {@link #append}). Default: nothing.
   *
   * @throws RuntimeException the catalog's refusal, which the statement fails with
   */
  default void checkWritable(TableName name) {}

  /** Creates an empty schema. */
  void createSchema(String schema);

  /**
   * Drops a schema: RESTRICT refuses one that holds tables (NOT_EMPTY), CASCADE drops its tables
   * first.
   */
  void dropSchema(String schema, boolean cascade);

  /**
   * Creates an empty table (version 0).
   *
   * @param engine the table engine's name, or null for the catalog's default
   */
  void createTable(TableName name, Schema schema, String engine);

  /**
   * Creates a table holding exactly {@code batches} (its schema) as its first version, atomically:
   * readers see no table or the whole table, never an empty one. The reader is consumed, not
   * closed.
   *
   * @param sha256 the SHA-256 digest of the payload, 32 bytes
   * @return the table's version
   */
  Version createTableAs(TableName name, Schema schema, String engine, ArrowReader batches,
      byte[] sha256);

  /** Drops a table and its data. */
  void dropTable(TableName name);

  /**
   * Appends {@code batches} (the table's schema exactly) as one new version of the table, only if
   * it is still the incarnation at {@code location} (planned against): a table dropped, or
   * dropped and created again, since is TABLE_NOT_FOUND. The reader is consumed, not closed.
   *
   * @param sha256 the SHA-256 digest of the payload, 32 bytes, part of the append's identity
   * @return the new version
   */
  Version append(TableName name, TableLocation location, ArrowReader batches, byte[] sha256);
}
