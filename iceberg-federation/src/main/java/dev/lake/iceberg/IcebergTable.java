package dev.lake.iceberg;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import dev.lake.engine.VersionNotFoundException;
import java.net.URI;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Table;

/**
 * An Iceberg table as a read-only {@link TableHandle}: a version number is a snapshot id, and
 * {@link Version#INITIAL} stands for a table without any snapshot yet (no rows).
 */
final class IcebergTable implements TableHandle {
  private final String namespace;
  private final String name;
  private final Table table;
  private final TableLocation location;

  IcebergTable(String namespace, String name, Table table) {
    this.namespace = namespace;
    this.name = name;
    this.table = table;
    URI uri = URI.create(table.location());
    this.location = new TableLocation(uri.getScheme() == null ? java.nio.file.Path.of(table.location()).toUri() : uri);
  }

  @Override
  public TableLocation location() {
    return location;
  }

  @Override
  public Schema schema() {
    return ArrowSchemas.of(table.schema());
  }

  @Override
  public Version currentVersion() {
    org.apache.iceberg.Snapshot current = table.currentSnapshot();
    return current == null ? Version.INITIAL : Version.of(current.snapshotId());
  }

  @Override
  public List<VersionInfo> versions() {
    return java.util.stream.StreamSupport.stream(table.snapshots().spliterator(), false)
        .sorted(Comparator.comparingLong(org.apache.iceberg.Snapshot::timestampMillis))
        .map(s -> new VersionInfo(Version.of(s.snapshotId()), Instant.ofEpochMilli(s.timestampMillis()),
            Optional.empty()))
        .toList();
  }

  @Override
  public Snapshot snapshot(Version version) {
    if (version.equals(Version.INITIAL) && table.currentSnapshot() == null) {
      return new IcebergSnapshot(this, table, null);
    }
    org.apache.iceberg.Snapshot snapshot = table.snapshot(version.number());
    if (snapshot == null) {
      throw new VersionNotFoundException(location, version,
          "is not a snapshot of " + IcebergFederation.CATALOG + "." + namespace + "." + name);
    }
    return new IcebergSnapshot(this, table, snapshot);
  }

  @Override
  public Version append(AppendOperation operation, ArrowReader batches) {
    throw new ReadOnlyException(location, "appending to " + qualifiedName());
  }

  @Override
  public Optional<Version> reconcileAppend(AppendOperation operation) {
    return Optional.empty();
  }

  String qualifiedName() {
    return IcebergFederation.CATALOG + "." + namespace + "." + name;
  }

  @Override
  public void close() {}
}
