package dev.lake.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files a crash can leave at each step of an append, placed deterministically: a torn
 * uncommitted segment, a complete uncommitted segment, a half-written temp entry. None may change
 * what readers see, and the next append must take the next version.
 */
class LogLeftoverFilesTest {

  @Test
  void filesOfAnUncommittedAppendAreIgnoredAndTheNextAppendSucceeds(@TempDir Path dir) throws IOException {
    TableLocation location = TableLocation.of(dir);
    try (RootAllocator allocator = new RootAllocator();
        TableEngine engine = LogTestData.engine(100, 1 << 20)) {
      try (TableHandle table = engine.create(location, LogTestData.BATCHES);
          ArrowReader reader = LogTestData.batchReader(allocator, 1, 250, 10)) {
        table.append(LogTestData.batchOp(1), reader);
      }
      Path committed;
      try (var files = Files.list(dir.resolve("data"))) {
        committed = files.findFirst().orElseThrow();
      }
      byte[] segment = Files.readAllBytes(committed);
      Files.write(dir.resolve("data/" + UUID.randomUUID() + ".seg"), java.util.Arrays.copyOf(segment, segment.length / 3));
      Files.write(dir.resolve("data/" + UUID.randomUUID() + ".seg"), segment);
      Files.writeString(dir.resolve("_log/.tmp-" + UUID.randomUUID() + ".json"), "{\"format\":1,\"vers");

      try (TableEngine fresh = LogTestData.engine(100, 1 << 20);
          TableHandle table = fresh.open(location).orElseThrow()) {
        assertEquals(Version.of(1), table.currentVersion());
        assertEquals(Long.valueOf(250), LogTestData.countByValue(table.latestSnapshot(), "batch", allocator).get(1L));
        try (ArrowReader reader = LogTestData.batchReader(allocator, 2, 10, 10)) {
          assertEquals(Version.of(2), table.append(LogTestData.batchOp(2), reader));
        }
        var counts = LogTestData.countByValue(table.latestSnapshot(), "batch", allocator);
        assertEquals(2, counts.size());
        assertEquals(Long.valueOf(10), counts.get(2L));
      }
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }
}
