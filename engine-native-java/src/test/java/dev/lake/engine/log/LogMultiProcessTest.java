package dev.lake.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.VersionInfo;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 8 writers in 2 processes (4 threads each) append to one table, on local disk and on S3 (the
 * children reach the parent's S3 server over loopback). Afterwards every batch is there exactly
 * once, every acknowledged version holds its batch, and versions are contiguous.
 */
class LogMultiProcessTest {

  private static final int PROCESSES = 2;
  private static final int THREADS = 4;
  private static final int PER_THREAD = 6;
  private static final int ROWS = 100;

  @Test
  void eightWritersInTwoProcessesOnLocalDiskCommitEveryBatchOnceWithContiguousVersions(@TempDir Path dir)
      throws Exception {
    run(TableLocation.of(dir.resolve("t")), Map.of("log.checkpoint.interval", "7"), dir);
  }

  @Test
  void eightWritersInTwoProcessesOnS3CommitEveryBatchOnceWithContiguousVersions(@TempDir Path dir)
      throws Exception {
    try (S3Server server = S3Server.start(Files.createDirectories(dir.resolve("s3")), "multi")) {
      Map<String, String> properties = new HashMap<>(server.engineProperties());
      properties.put("log.checkpoint.interval", "7");
      run(new TableLocation(URI.create("s3://multi/tables/t")), properties, dir);
    }
  }

  private void run(TableLocation location, Map<String, String> properties, Path dir) throws Exception {
    try (TableEngine engine = new LogEngineFactory().create(properties)) {
      engine.create(location, LogTestData.BATCHES).close();
    }
    String classPath = LogCrashTest.childClassPath(dir.resolve("classes"));
    List<Process> children = new ArrayList<>();
    List<Path> outputs = new ArrayList<>();
    try {
      for (int p = 0; p < PROCESSES; p++) {
        List<String> args = new ArrayList<>(List.of(location.uri().toString(), Integer.toString(p),
            Integer.toString(THREADS), Integer.toString(PER_THREAD), Integer.toString(ROWS)));
        properties.forEach((k, v) -> args.add(k + "=" + v));
        Path out = dir.resolve("child-" + p + ".out");
        outputs.add(out);
        children.add(new ProcessBuilder(LogCrashTest.javaCommand(classPath, dir.resolve("multi.jsa"),
                ConcurrentAppender.class.getName(), args.toArray(String[]::new)))
            .redirectOutput(out.toFile())
            .redirectError(dir.resolve("child-" + p + ".err").toFile())
            .start());
      }
      for (int p = 0; p < PROCESSES; p++) {
        assertTrue(children.get(p).waitFor(180, TimeUnit.SECONDS), "writer process " + p + " hangs");
        assertEquals(0, children.get(p).exitValue(),
            "writer process " + p + " failed:\n" + Files.readString(dir.resolve("child-" + p + ".err")));
      }
    } finally {
      children.forEach(Process::destroyForcibly);
    }
    Map<Long, Long> versionOfBatch = new TreeMap<>();
    for (Path out : outputs) {
      for (String line : Files.readAllLines(out)) {
        if (line.startsWith("ACK ")) {
          String[] parts = line.split(" ");
          assertEquals(null, versionOfBatch.put(Long.parseLong(parts[2]), Long.parseLong(parts[1])),
              "batch acknowledged twice: " + line);
        }
      }
    }
    int total = PROCESSES * THREADS * PER_THREAD;
    assertEquals(total, versionOfBatch.size());
    assertEquals(total, versionOfBatch.values().stream().distinct().count(), "two batches got one version");
    try (RootAllocator allocator = new RootAllocator();
        TableEngine engine = new LogEngineFactory().create(properties);
        TableHandle table = engine.open(location).orElseThrow()) {
      assertEquals(total, table.currentVersion().number());
      List<VersionInfo> versions = table.versions();
      assertEquals(total + 1, versions.size());
      for (int v = 0; v <= total; v++) {
        assertEquals(v, versions.get(v).version().number(), "versions are not contiguous");
      }
      for (VersionInfo info : versions.subList(1, versions.size())) {
        long batch = info.operation().orElseThrow().operationId().getLeastSignificantBits();
        assertEquals(versionOfBatch.get(batch), info.version().number(), "batch " + batch);
      }
      Map<Long, Long> rows = LogTestData.countByValue(table.latestSnapshot(), "batch", allocator);
      assertEquals(versionOfBatch.keySet(), rows.keySet());
      rows.values().forEach(n -> assertEquals(ROWS, n));
      assertEquals((long) total * ROWS, table.latestSnapshot().rowCount());
    }
  }
}
