package dev.lake.engine.lance;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Rows {@code (id BIGINT NOT NULL, name VARCHAR, score DOUBLE)} with id = row number. */
final class TestData {

  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      Field.nullable("name", new ArrowType.Utf8()),
      Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));

  private TestData() {}

  /** Rows {@code from .. from+count-1} in batches of at most {@code batchRows}; name is null for ids divisible by 10. */
  static ArrowReader rows(BufferAllocator allocator, long from, int count, int batchRows) {
    List<ArrowRecordBatch> batches = new ArrayList<>();
    for (int start = 0; start < count; start += batchRows) {
      int n = Math.min(batchRows, count - start);
      try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        Float8Vector score = (Float8Vector) root.getVector("score");
        id.allocateNew(n);
        name.allocateNew(n);
        score.allocateNew(n);
        for (int i = 0; i < n; i++) {
          long v = from + start + i;
          id.set(i, v);
          if (v % 10 == 0) {
            name.setNull(i);
          } else {
            name.setSafe(i, ("row-" + v).getBytes(StandardCharsets.UTF_8));
          }
          score.set(i, v / 2.0);
        }
        root.setRowCount(n);
        batches.add(new VectorUnloader(root).getRecordBatch());
      }
    }
    return new RecordBatchReader(allocator, SCHEMA, batches);
  }

  static AppendOperation operation(String payload) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(payload.getBytes(StandardCharsets.UTF_8));
      return AppendOperation.of("tenant", "t", UUID.randomUUID(), digest);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** Every id a full scan of {@code snapshot} returns with {@code request}, in scan order. */
  static List<Long> ids(Snapshot snapshot, ScanRequest request, BufferAllocator allocator) {
    List<Long> out = new ArrayList<>();
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          BigIntVector id = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
          for (int i = 0; i < reader.getVectorSchemaRoot().getRowCount(); i++) {
            out.add(id.get(i));
          }
        }
      } catch (java.io.IOException e) {
        throw new AssertionError(e);
      }
    }
    return out;
  }
}
