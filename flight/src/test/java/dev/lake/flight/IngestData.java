package dev.lake.flight;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Episode rows for ingest tests: id, robot (one of four), reward = id / 2. */
final class IngestData {

  static final Schema EPISODES = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.nullable("robot", ArrowType.Utf8.INSTANCE),
      Field.nullable("reward", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));

  static final String[] ROBOTS = {"atlas", "spot", "digit", "optimus"};

  private IngestData() {}

  /** A root holding rows [from, from + count). */
  static VectorSchemaRoot episodes(BufferAllocator allocator, long from, int count) {
    VectorSchemaRoot root = VectorSchemaRoot.create(EPISODES, allocator);
    BigIntVector ids = (BigIntVector) root.getVector("id");
    VarCharVector robots = (VarCharVector) root.getVector("robot");
    Float8Vector rewards = (Float8Vector) root.getVector("reward");
    ids.allocateNew(count);
    rewards.allocateNew(count);
    for (int i = 0; i < count; i++) {
      long id = from + i;
      ids.set(i, id);
      robots.setSafe(i, ROBOTS[(int) (id % ROBOTS.length)].getBytes(StandardCharsets.UTF_8));
      rewards.set(i, id / 2.0);
    }
    root.setRowCount(count);
    return root;
  }

  static FlightSqlClient.ExecuteIngestOptions options(String schema, String table,
      TableNotExistOption ifNotExist, TableExistsOption ifExists) {
    return new FlightSqlClient.ExecuteIngestOptions(table,
        TableDefinitionOptions.newBuilder().setIfNotExist(ifNotExist).setIfExists(ifExists)
            .build(),
        false, null, schema, Map.of());
  }

  /**
   * An Arrow IPC stream of rows [from, from + batches * rowsPerBatch) in {@code batches}
   * batches, as a reader a client can ingest from. The caller closes the reader.
   */
  static ArrowStreamReader stream(BufferAllocator allocator, long from, int batches,
      int rowsPerBatch) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(EPISODES, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
      writer.start();
      for (int b = 0; b < batches; b++) {
        try (VectorSchemaRoot batch = episodes(allocator, from + (long) b * rowsPerBatch,
            rowsPerBatch)) {
          copy(batch, root);
        }
        writer.writeBatch();
      }
      writer.end();
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  /** Loads the contents of {@code from} into {@code to} (same schema). */
  private static void copy(VectorSchemaRoot from, VectorSchemaRoot to) {
    try (ArrowRecordBatch batch = new VectorUnloader(from).getRecordBatch()) {
      new VectorLoader(to).load(batch);
    }
  }
}
