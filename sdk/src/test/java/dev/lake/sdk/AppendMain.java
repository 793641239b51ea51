package dev.lake.sdk;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The SDK in a process of its own, started by {@link LakeClientAppendTest}, with the server
 * {@code args[0]} and the resume directory {@code args[1]}:
 * <ul>
 *   <li>{@code append N}: appends rows id 0..N-1 to {@code demo.ids} with no retry window; prints
 *       {@code appended <operation> <version>} and exits 0, or {@code pending <operation>} and
 *       exits 4 leaving its checkpoint;
 *   <li>{@code resume}: resumes every checkpointed append; prints {@code resumed <operation>
 *       <version>} for each and exits 0.
 * </ul>
 * Any other failure prints {@code failed <class> <message>} and exits 3.
 */
final class AppendMain {
  private AppendMain() {}

  static final int PENDING = 4;

  public static void main(String[] args) throws Exception {
    int exit = 0;
    try (LakeClient lake = LakeClient.connect(args[0], Credentials.none(),
        StageCredentials.defaultChain(), Path.of(args[1]))) {
      if (args[2].equals("append")) {
        lake.setAppendRetryWindow(Duration.ZERO);
        try (BufferAllocator allocator = new RootAllocator();
            VectorSchemaRoot rows = ids(allocator, Integer.parseInt(args[3]))) {
          AppendResult done = lake.append("demo.ids", rows);
          System.out.println("appended " + done.operationId() + " " + done.version());
        } catch (LakeException.AppendPending e) {
          System.out.println("pending " + e.pending().operationId());
          exit = PENDING;
        }
      } else {
        for (PendingAppend pending : lake.pendingAppends()) {
          AppendResult done = lake.resume(pending);
          System.out.println("resumed " + done.operationId() + " " + done.version());
        }
      }
    } catch (RuntimeException e) {
      System.out.println("failed " + e.getClass().getName() + " " + e.getMessage());
      exit = 3;
    }
    System.out.flush();
    System.exit(exit); // Flight's non-daemon threads would keep the JVM up a while
  }

  private static VectorSchemaRoot ids(BufferAllocator allocator, int count) {
    VectorSchemaRoot root = VectorSchemaRoot.create(
        new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)))), allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    for (int i = 0; i < count; i++) {
      id.setSafe(i, i);
    }
    root.setRowCount(count);
    return root;
  }
}
