package dev.lake.catalog;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.UuidV7;
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

/** Test rows: one BIGINT column, a reader over {@code first..first+rows-1}, operations. */
final class Rows {

  static final Schema IDS = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));

  private Rows() {}

  /** A reader holding ids {@code first..first+rows-1}; closing it releases everything. */
  static RecordBatchReader ids(BufferAllocator allocator, long first, int rows) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector(0);
      id.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        id.set(i, first + i);
      }
      root.setRowCount(rows);
      return new RecordBatchReader(allocator, IDS, List.of(new VectorUnloader(root).getRecordBatch()));
    }
  }

  /** A fresh operation (UUIDv7 id) whose digest stands for payload {@code seed}. */
  static AppendOperation operation(TableIdent table, long seed) {
    return operation(table, UuidV7.generate(), seed);
  }

  static AppendOperation operation(TableIdent table, UUID id, long seed) {
    return new AppendOperation("default", table.toString(), id, String.format("%064x", seed));
  }

  /** Appends ids {@code first..first+rows-1} to {@code table} as {@code op}. */
  static TableEntry append(Catalog catalog, BufferAllocator allocator, TableIdent table,
      AppendOperation op, long first, int rows) throws java.io.IOException {
    try (RecordBatchReader reader = ids(allocator, first, rows)) {
      return catalog.append(table, java.util.Optional.empty(), op, reader);
    }
  }

  /** The rows of the table's latest version. */
  static long count(Catalog catalog, TableIdent table) {
    return catalog.readHandle(table).orElseThrow().latestSnapshot().rowCount();
  }

  /** Fails unless every operation record in {@code store} is committed or aborted. */
  static void assertNoOperationInProgress(dev.lake.metastore.MetaStore store) {
    for (var e : store.scan(OperationRecord.PREFIX, java.util.Optional.empty(), 1000).entries()) {
      OperationRecord record = OperationRecord.decode(e.key(), e.value());
      org.junit.jupiter.api.Assertions.assertTrue(record.state().terminal(),
          e.key() + " is " + record.state());
    }
  }

  static TableEngine logEngine() {
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      if (factory.name().equals("log")) {
        return factory.create(Map.of());
      }
    }
    throw new IllegalStateException("the log engine is not on the test class path");
  }
}
