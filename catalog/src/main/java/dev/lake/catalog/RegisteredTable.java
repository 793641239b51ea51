package dev.lake.catalog;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import dev.lake.engine.VersionNotFoundException;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A read-only view of a registered table whose latest version is the registry's, not the
 * engine's: a version the engine committed but the registry has not yet recorded stays invisible.
 * Writes go through {@link Catalog}, never through this view.
 */
final class RegisteredTable implements TableHandle {

  private final TableEntry entry;
  private final TableHandle handle;

  RegisteredTable(TableEntry entry, TableHandle handle) {
    this.entry = entry;
    this.handle = handle;
  }

  /** The registry record this view reads at. */
  TableEntry entry() {
    return entry;
  }

  @Override
  public TableLocation location() {
    return handle.location();
  }

  @Override
  public Schema schema() {
    return entry.schema();
  }

  @Override
  public Version currentVersion() {
    return entry.version();
  }

  @Override
  public List<VersionInfo> versions() {
    return handle.versions().stream()
        .filter(info -> info.version().compareTo(entry.version()) <= 0)
        .toList();
  }

  @Override
  public Snapshot snapshot(Version version) {
    if (version.compareTo(entry.version()) > 0) {
      throw new VersionNotFoundException(handle.location(), version,
          "does not exist: the latest version of lake." + entry.ident() + " is "
              + entry.version());
    }
    try {
      return handle.snapshot(version);
    } catch (dev.lake.engine.CorruptMetadataException e) {
      throw e.table() != null ? e : e.inTable("lake." + entry.ident());
    }
  }

  @Override
  public Version append(AppendOperation operation, ArrowReader batches) {
    throw new CatalogException("lake." + entry.ident() + " is opened for reading; append through"
        + " the catalog");
  }

  @Override
  public Optional<Version> reconcileAppend(AppendOperation operation) {
    return handle.reconcileAppend(operation)
        .filter(version -> version.compareTo(entry.version()) <= 0);
  }

  /** The underlying handle is the catalog's; closing this view leaves it open. */
  @Override
  public void close() {}
}
