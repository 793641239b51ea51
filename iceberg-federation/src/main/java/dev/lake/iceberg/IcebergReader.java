package dev.lake.iceberg;

import dev.lake.engine.CapabilityNotSupportedException;
import dev.lake.engine.EngineException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Reads one {@link FileScanTask} (a split of a Parquet data file) into Arrow batches: columns
 * resolved by field id (so renamed, reordered, added and dropped columns read right), identity
 * partition values filled from metadata, row groups pruned by statistics and dictionaries with the
 * task's residual filter, and the position and equality deletes that apply to the file removed.
 */
final class IcebergReader extends ArrowReader {
  static final int BATCH_ROWS = 4096;

  private final Table table;
  private final org.apache.iceberg.Schema tableSchema;
  private final org.apache.iceberg.Schema projected;
  private final FileScanTask task;
  private final Function<RuntimeException, EngineException> denied;
  private final Function<RuntimeException, EngineException> unreadable;
  private CloseableIterable<Record> records;
  private CloseableIterator<Record> rows;
  private long bytesRead;

  IcebergReader(BufferAllocator allocator, Table table, org.apache.iceberg.Schema tableSchema,
      org.apache.iceberg.Schema projected, FileScanTask task, Function<RuntimeException, EngineException> denied,
      Function<RuntimeException, EngineException> unreadable) {
    super(allocator);
    this.table = table;
    this.tableSchema = tableSchema;
    this.projected = projected;
    this.task = task;
    this.denied = denied;
    this.unreadable = unreadable;
    if (task.file().format() != FileFormat.PARQUET) {
      throw new CapabilityNotSupportedException(null, IcebergFederation.CATALOG,
          task.file().format() + " data files (" + task.file().location() + ")");
    }
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    try {
      if (rows == null) {
        rows = open().iterator();
      }
      VectorSchemaRoot root = getVectorSchemaRoot();
      ArrowWriter writer = new ArrowWriter(root, projected);
      int n = 0;
      while (n < BATCH_ROWS && rows.hasNext()) {
        writer.write(n++, rows.next());
      }
      writer.finish(n);
      bytesRead += root.getFieldVectors().stream().mapToLong(v -> v.getBufferSize()).sum();
      return n > 0;
    } catch (NotFoundException | UncheckedIOException | software.amazon.awssdk.services.s3.model.NoSuchKeyException e) {
      throw unreadable.apply(e);
    } catch (software.amazon.awssdk.core.exception.SdkClientException e) {
      throw new CatalogUnavailableException("the storage of " + task.file().location() + " is unreachable: "
          + e.getMessage(), e);
    } catch (RuntimeException e) {
      EngineException refused = denied.apply(e);
      throw refused == null ? e : refused;
    }
  }

  private CloseableIterable<Record> open() {
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, tableSchema, projected);
    org.apache.iceberg.Schema read = deletes.requiredSchema();
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    CloseableIterable<Record> raw = Parquet.read(table.io().newInputFile(task.file().location()))
        .project(read)
        .split(task.start(), task.length())
        .filter(task.residual())
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(read, fileSchema, constants))
        .build();
    records = deletes.filter(raw);
    return records;
  }

  @Override
  public long bytesRead() {
    return bytesRead;
  }

  @Override
  protected void closeReadSource() throws IOException {
    if (rows != null) {
      rows.close();
    }
    if (records != null) {
      records.close();
    }
  }

  @Override
  protected Schema readSchema() {
    return ArrowSchemas.of(projected);
  }
}
