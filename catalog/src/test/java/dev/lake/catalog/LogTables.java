package dev.lake.catalog;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Log tables of one {@code id BIGINT} column for catalog tests, written with the real log engine. */
final class LogTables {

  static final Schema IDS = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));

  private LogTables() {}

  static TableEngine logEngine() {
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      if (factory.name().equals("log")) {
        return factory.create(Map.of());
      }
    }
    throw new IllegalStateException("the log engine is not on the test class path");
  }

  /** Writes a log table at {@code location} with the engine alone, no registry: {@code appends} versions. */
  static void writeAt(TableEngine log, BufferAllocator allocator, TableLocation location, int appends,
      int rowsEach) throws java.io.IOException {
    try (TableHandle t = log.create(location, IDS)) {
      for (int i = 0; i < appends; i++) {
        try (VectorSchemaRoot root = ids(allocator, (long) i * rowsEach, rowsEach);
            RecordBatchReader reader = reader(allocator, root)) {
          t.append(operation(i), reader);
        }
      }
    }
  }

  static RecordBatchReader reader(BufferAllocator allocator, VectorSchemaRoot root) {
    return new RecordBatchReader(allocator, IDS, List.of(new VectorUnloader(root).getRecordBatch()));
  }

  static VectorSchemaRoot ids(BufferAllocator allocator, long first, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator);
    BigIntVector id = (BigIntVector) root.getVector(0);
    id.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      id.set(i, first + i);
    }
    root.setRowCount(rows);
    return root;
  }

  static AppendOperation operation(long seed) {
    return new AppendOperation("default", "lab.runs", UUID.randomUUID(), String.format("%064x", seed));
  }
}
