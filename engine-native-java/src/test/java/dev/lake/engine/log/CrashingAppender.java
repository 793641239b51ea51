package dev.lake.engine.log;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.PrintStream;
import java.nio.file.Path;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * The child process of {@link LogCrashTest}: appends tracked batches to one table until it is
 * killed, printing {@code ACK <version> <batchId>} only after each append has returned.
 *
 * <p>Arguments: table directory, first batch id, rows per batch, payload bytes per row, block
 * rows, segment bytes.
 */
public final class CrashingAppender {

  private CrashingAppender() {}

  public static void main(String[] args) throws Exception {
    Path table = Path.of(args[0]);
    long firstBatch = Long.parseLong(args[1]);
    int rows = Integer.parseInt(args[2]);
    int payload = Integer.parseInt(args[3]);
    PrintStream out = System.out;
    try (RootAllocator allocator = new RootAllocator();
        TableEngine engine = LogTestData.engine(Integer.parseInt(args[4]), Long.parseLong(args[5]));
        TableHandle handle = engine.open(TableLocation.of(table)).orElseThrow()) {
      out.println("READY " + handle.currentVersion());
      out.flush();
      for (long batch = firstBatch; batch < firstBatch + 100_000; batch++) {
        Version v;
        try (ArrowReader reader = LogTestData.batchReader(allocator, batch, rows, payload)) {
          v = handle.append(LogTestData.batchOp(batch), reader);
        }
        out.println("ACK " + v.number() + " " + batch);
        out.flush();
      }
    }
  }
}
