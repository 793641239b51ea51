package dev.lake.cli;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The victim of {@link CatalogCrashIT}: appends batches to {@code crash.appends} through the
 * catalog (RocksDB registry + log engine) forever, printing {@code ACK <batch>} after each append
 * returns. Batch ids continue from the first id given on the command line.
 */
public final class CrashingAppender {

  static final TableIdent TABLE = TableIdent.of("crash", "appends");
  static final int ROWS_PER_BATCH = 20_000;
  static final Schema SCHEMA = new Schema(List.of(
      Field.notNullable("batch", new ArrowType.Int(64, true)),
      Field.notNullable("row", new ArrowType.Int(64, true))));

  private CrashingAppender() {}

  public static void main(String[] args) throws Exception {
    Path dataDir = Path.of(args[0]);
    long batch = Long.parseLong(args[1]);
    Map<String, TableEngine> engines = new java.util.TreeMap<>();
    for (TableEngineFactory f : ServiceLoader.load(TableEngineFactory.class)) {
      engines.put(f.name(), f.create(Map.of()));
    }
    try (BufferAllocator allocator = new RootAllocator();
        RocksDbMetaStore store = RocksDbMetaStore.open(dataDir.resolve("meta"));
        Catalog catalog = Catalog.open(store, engines, dataDir.resolve("warehouse"))) {
      if (catalog.lookup(TABLE).isEmpty()) {
        catalog.create(TABLE, SCHEMA, "log");
      }
      System.out.println("STARTED");
      System.out.flush();
      while (true) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
          BigIntVector ids = (BigIntVector) root.getVector("batch");
          BigIntVector rows = (BigIntVector) root.getVector("row");
          ids.allocateNew(ROWS_PER_BATCH);
          rows.allocateNew(ROWS_PER_BATCH);
          for (int i = 0; i < ROWS_PER_BATCH; i++) {
            ids.set(i, batch);
            rows.set(i, i);
          }
          root.setRowCount(ROWS_PER_BATCH);
          byte[] digest = MessageDigest.getInstance("SHA-256")
              .digest(Long.toString(batch).getBytes(java.nio.charset.StandardCharsets.UTF_8));
          AppendOperation op = AppendOperation.of("default", TABLE.toString(),
              UUID.nameUUIDFromBytes(digest), digest);
          try (RecordBatchReader reader = new RecordBatchReader(allocator, SCHEMA,
              List.of(new VectorUnloader(root).getRecordBatch()))) {
            catalog.append(TABLE, op, reader);
          }
        }
        System.out.println("ACK " + batch);
        System.out.flush();
        batch++;
      }
    }
  }
}
