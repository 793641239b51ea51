package dev.lake.catalog;

import dev.lake.engine.AppendOperation;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The table registry's authority as a Query process sees it: the directory (namespaces and table
 * records) and every change to it. Implemented in-process by {@link Catalog} (one process holding
 * both tiers, as {@code lake dev} runs) and remotely by the Metasrv client, which forwards each
 * call to the leading Metasrv.
 *
 * <p>Writes are exactly-once per {@link AppendOperation#operationId()}: repeating a write with the
 * same operation id and digest returns the original result; the same id with another digest is
 * refused. Every refusal is one of the catalog's precise exceptions and changes nothing.
 */
public interface TableRegistry {

  /** The names of the engines tables can be created with, sorted. */
  List<String> engineNames();

  /**
   * The whole directory now: every namespace and every table record, with the generation it is
   * current at.
   */
  RegistrySnapshot snapshot();

  /**
   * The directory, unless {@code generation} is still current: empty means "not modified", so a
   * cache holding that generation is up to date.
   */
  Optional<RegistrySnapshot> snapshotIfChanged(long generation);

  /** The record of {@code ident}, if registered, read from the authority (never from a cache). */
  Optional<TableEntry> lookup(TableIdent ident);

  /**
   * Creates an empty namespace.
   *
   * @throws NamespaceAlreadyExistsException if it exists; nothing is changed
   */
  void createNamespace(String namespace);

  /**
   * Drops a namespace, its tables too when {@code cascade}.
   *
   * @throws NamespaceNotFoundException if it does not exist
   * @throws NamespaceNotEmptyException if it holds tables and {@code cascade} is false
   */
  void dropNamespace(String namespace, boolean cascade);

  /**
   * Creates an empty table (version 0) with {@code engine} at a location the authority chooses.
   *
   * @throws TableAlreadyExistsException if the name is taken; nothing is changed
   */
  TableEntry create(TableIdent ident, Schema schema, String engine);

  /**
   * Creates a table holding exactly {@code batches} as its first version, atomically. The reader
   * is consumed, not closed.
   */
  TableEntry createWith(TableIdent ident, Schema schema, String engine,
      AppendOperation operation, ArrowReader batches);

  /**
   * Appends {@code batches} as one new version and makes it visible. The reader is consumed, not
   * closed.
   *
   * @param incarnation when present, the incarnation the statement was planned against: if the
   *     name now denotes another incarnation (dropped, or dropped and created again) the append is
   *     refused with {@link TableNotFoundException} and nothing is written
   * @return the table's record at the new version
   */
  TableEntry append(TableIdent ident, Optional<UUID> incarnation, AppendOperation operation,
      ArrowReader batches);

  /** Replaces the table with a new incarnation holding exactly {@code batches}. */
  TableEntry replace(TableIdent ident, Schema schema, AppendOperation operation,
      ArrowReader batches);

  /** Replaces the table with a new empty incarnation holding {@code schema}. */
  TableEntry replaceWithEmpty(TableIdent ident, Schema schema);

  /**
   * Drops the table: it disappears from the directory at once and its files are deleted.
   *
   * @throws TableNotFoundException if it is not registered
   */
  void drop(TableIdent ident);
}
