package dev.lake.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogConcurrencyTest {

  private static final int WRITERS = 4;
  private static final int APPENDS_EACH = 25;
  private static final int ROWS = 300;

  @Test
  void concurrentWritersThroughSeparateEnginesGetContiguousVersionsAndEveryBatchOnce(@TempDir Path dir)
      throws Exception {
    TableLocation location = TableLocation.of(dir);
    try (TableEngine engine = LogTestData.engine(128, 1 << 20)) {
      engine.create(location, LogTestData.BATCHES).close();
    }
    CyclicBarrier start = new CyclicBarrier(WRITERS);
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    List<Future<List<Version>>> results = new ArrayList<>();
    try (RootAllocator allocator = new RootAllocator()) {
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        results.add(pool.submit(() -> {
          List<Version> versions = new ArrayList<>();
          try (TableEngine engine = LogTestData.engine(128, 1 << 20);
              TableHandle table = engine.open(location).orElseThrow()) {
            start.await();
            for (int i = 0; i < APPENDS_EACH; i++) {
              long batchId = writer * 1000L + i;
              try (ArrowReader reader = LogTestData.batchReader(allocator, batchId, ROWS, 20)) {
                versions.add(table.append(LogTestData.batchOp(batchId), reader));
              }
            }
          }
          return versions;
        }));
      }
      Set<Version> returned = new HashSet<>();
      for (Future<List<Version>> f : results) {
        for (Version v : f.get()) {
          assertTrue(returned.add(v), "version " + v + " returned twice");
        }
      }
      pool.shutdown();

      try (TableEngine engine = LogTestData.engine(128, 1 << 20);
          TableHandle table = engine.open(location).orElseThrow()) {
        int total = WRITERS * APPENDS_EACH;
        assertEquals(Version.of(total), table.currentVersion());
        List<VersionInfo> versions = table.versions();
        assertEquals(total + 1, versions.size());
        for (int v = 0; v <= total; v++) {
          assertEquals(Version.of(v), versions.get(v).version());
        }
        Map<Long, Long> counts = LogTestData.countByValue(table.latestSnapshot(), "batch", allocator);
        assertEquals(total, counts.size());
        for (int w = 0; w < WRITERS; w++) {
          for (int i = 0; i < APPENDS_EACH; i++) {
            assertEquals(ROWS, counts.get(w * 1000L + i), "rows of batch " + (w * 1000L + i));
          }
        }
      }
      assertEquals(0, allocator.getAllocatedMemory());
    } finally {
      pool.shutdownNow();
    }
  }
}
