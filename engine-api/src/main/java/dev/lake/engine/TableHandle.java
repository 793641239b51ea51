package dev.lake.engine;

import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An open table. Reads pin a {@link Snapshot}; writes add exactly one new version each.
 * A handle is safe for concurrent use; its snapshots stay valid while it is open.
 */
public interface TableHandle extends AutoCloseable {

  TableLocation location();

  /** The schema of the latest version known to this handle. */
  Schema schema();

  /** The latest committed version, re-read from storage. */
  Version currentVersion();

  /** Every committed version still readable, oldest first. */
  List<VersionInfo> versions();

  /**
   * An immutable view of the table at {@code version}.
   *
   * @throws VersionNotFoundException if the version was never committed or is no longer readable
   */
  Snapshot snapshot(Version version);

  /** The snapshot of {@link #currentVersion()}. */
  default Snapshot latestSnapshot() {
    return snapshot(currentVersion());
  }

  /**
   * Appends every batch of {@code batches} as one new version. The reader is consumed but not
   * closed; the caller keeps ownership of it.
   *
   * <p>The version becomes visible only after all its bytes are durable. On any exception no new
   * version is visible; files written for it are unreferenced and harmless.
   *
   * @return the version this append created
   * @throws SchemaMismatchException if the batches' schema differs from the table's
   * @throws CommitConflictException if another writer kept winning the next version; retrying
   *     with the same operation is safe
   * @throws EngineException if the storage fails; whether the version was committed is then
   *     unknown: call {@link #reconcileAppend} before retrying
   */
  Version append(AppendOperation operation, ArrowReader batches);

  /**
   * Finds the version committed by {@code operation}, for a writer whose append reply was lost.
   *
   * @return the committed version, or empty if the operation never committed
   */
  Optional<Version> reconcileAppend(AppendOperation operation);

  @Override
  void close();
}
