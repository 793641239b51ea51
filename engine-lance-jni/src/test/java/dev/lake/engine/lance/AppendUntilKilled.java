package dev.lake.engine.lance;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/** Child process of {@link LanceKillTest}: appends batches to a table until it is killed. */
public final class AppendUntilKilled {

  static final int ROWS_PER_APPEND = 50_000;

  public static void main(String[] args) throws Exception {
    TableLocation loc = TableLocation.of(Path.of(args[0]));
    try (TableEngine engine = new LanceEngineFactory().create(Map.of());
        BufferAllocator allocator = new RootAllocator();
        TableHandle t = engine.open(loc).orElseThrow()) {
      for (long i = 0; ; i++) {
        try (ArrowReader rows = TestData.rows(allocator, i * ROWS_PER_APPEND, ROWS_PER_APPEND, 8192)) {
          System.out.println("committed " + t.append(TestData.operation("batch " + i), rows));
          System.out.flush();
        }
      }
    }
  }
}
