package dev.lake.engine.lance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A writer killed with SIGKILL in the middle of appending leaves the table at a committed version. */
class LanceKillTest {

  @TempDir Path dir;

  @Test
  void writerKilledMidAppendLeavesTheTableAtACommittedVersion() throws Exception {
    TableLocation loc = TableLocation.of(dir.resolve("t"));
    try (TableEngine engine = new LanceEngineFactory().create(Map.of())) {
      engine.create(loc, TestData.SCHEMA).close();
      String java = ProcessHandle.current().info().command().orElse("java");
      Process child = new ProcessBuilder(java,
          "--add-opens=java.base/java.nio=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
          "--sun-misc-unsafe-memory-access=allow", "-Xmx512m",
          "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
          "-cp", System.getProperty("java.class.path"),
          AppendUntilKilled.class.getName(), loc.localPath().toString())
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      try {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        int committed = 0;
        String line;
        while (committed < 3 && (line = out.readLine()) != null) {
          if (line.startsWith("committed ")) {
            committed++;
          }
        }
        assertEquals(3, committed, "the writer committed before being killed");
        Thread.sleep(40); // inside the next append: data files written or being written
        child.destroyForcibly(); // SIGKILL
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      } finally {
        child.destroyForcibly();
      }
      try (TableHandle t = engine.open(loc).orElseThrow();
          BufferAllocator allocator = new RootAllocator()) {
        Version v = t.currentVersion();
        assertTrue(v.number() >= 3, "at least the acknowledged appends: " + v);
        long rows = v.number() * AppendUntilKilled.ROWS_PER_APPEND;
        assertEquals(rows, t.latestSnapshot().rowCount());
        assertEquals(LongStream.range(0, rows).boxed().toList(),
            TestData.ids(t.latestSnapshot(), ScanRequest.of(List.of("id")), allocator).stream().sorted().toList());
      }
    }
  }
}
