package dev.lake.iceberg;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.Version;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.TableScanUtil;

/**
 * One Iceberg snapshot, read with the schema that snapshot was written with. Planning prunes
 * manifests, partitions and files with the pushed-down predicate and splits files into units of
 * about {@value #SPLIT_BYTES} bytes (at row-group boundaries) for parallel reads.
 */
final class IcebergSnapshot implements Snapshot {
  static final long SPLIT_BYTES = 64L << 20;

  private final IcebergTable handle;
  private final Table table;
  private final org.apache.iceberg.Snapshot snapshot; // null: the table has no snapshot yet
  private final org.apache.iceberg.Schema schema;

  IcebergSnapshot(IcebergTable handle, Table table, org.apache.iceberg.Snapshot snapshot) {
    this.handle = handle;
    this.table = table;
    this.snapshot = snapshot;
    this.schema = snapshot == null || snapshot.schemaId() == null || table.schemas().get(snapshot.schemaId()) == null
        ? table.schema() : table.schemas().get(snapshot.schemaId());
  }

  @Override
  public Version version() {
    return snapshot == null ? Version.INITIAL : Version.of(snapshot.snapshotId());
  }

  /** The id of the Iceberg schema this snapshot is read with. */
  int schemaId() {
    return schema.schemaId();
  }

  @Override
  public Schema schema() {
    return ArrowSchemas.of(schema);
  }

  @Override
  public long rowCount() {
    if (snapshot == null) {
      return 0;
    }
    java.util.Map<String, String> summary = snapshot.summary();
    long records = Long.parseLong(summary.getOrDefault("total-records", "0"));
    long deleted = Long.parseLong(summary.getOrDefault("total-position-deletes", "0"));
    return Math.max(0, records - deleted);
  }

  @Override
  public ScanPlan plan(ScanRequest request) {
    org.apache.iceberg.Schema projected = project(request.columns());
    if (snapshot == null) {
      return new ScanPlan(List.of(), 0, 0);
    }
    TableScan scan = table.newScan().useSnapshot(snapshot.snapshotId()).project(projected)
        .filter(Pushdown.of(request.filter(), schema));
    List<ScanUnit> units = new ArrayList<>();
    long files = 0;
    // Closing the split closes the planned tasks too.
    try (CloseableIterable<FileScanTask> split =
        TableScanUtil.splitFiles(IcebergFederation.call(scan::planFiles), SPLIT_BYTES)) {
      String last = null;
      for (FileScanTask task : split) {
        if (!task.file().location().equals(last)) {
          files++;
          last = task.file().location();
        }
        units.add(new IcebergScanUnit(task));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      StorageAccessDeniedException denied = StorageAccessDeniedException.ifDenied(e, handle.location(),
          "the manifests of " + handle.qualifiedName() + " at snapshot " + version().number()
          + " (manifest list " + snapshot.manifestListLocation() + ")");
      throw denied == null ? e : denied;
    }
    long total = Long.parseLong(snapshot.summary().getOrDefault("total-data-files", Long.toString(files)));
    return new ScanPlan(units, Math.max(total, files), Math.max(total, files) - files);
  }

  /** The columns of {@code names} in this snapshot's schema, by name (and so by field id). */
  org.apache.iceberg.Schema project(List<String> names) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (String name : names) {
      Types.NestedField field = schema.caseInsensitiveFindField(name);
      if (field == null || schema.columns().stream().noneMatch(c -> c.fieldId() == field.fieldId())) {
        throw new IllegalArgumentException("no column '" + name + "' in " + handle.qualifiedName());
      }
      fields.add(field);
    }
    return new org.apache.iceberg.Schema(fields);
  }

  @Override
  public ArrowReader open(ScanUnit unit, ScanRequest request, BufferAllocator allocator) {
    if (!(unit instanceof IcebergScanUnit u)) {
      throw new IllegalArgumentException("not a unit of an Iceberg table: " + unit.describe());
    }
    return new IcebergReader(allocator, table, schema, project(request.columns()), u.task(),
        e -> StorageAccessDeniedException.ifDenied(e, handle.location(), "data file " + u.task().file().location()
            + " of " + handle.qualifiedName() + " at snapshot " + version().number()),
        e -> new CorruptTableException(handle.location(), "data file " + u.task().file().location()
            + " of " + handle.qualifiedName() + " at snapshot " + version() + " cannot be read: " + e.getMessage(), e));
  }

  /** One split of one data file, with the delete files that apply to it. */
  record IcebergScanUnit(FileScanTask task) implements ScanUnit {
    @Override
    public long rowCount() {
      long length = Math.max(1, task.file().fileSizeInBytes());
      return Math.max(1, (long) ((double) task.file().recordCount() * task.length() / length));
    }

    @Override
    public String describe() {
      return task.file().location() + "@" + task.start() + "+" + task.length();
    }
  }
}
