package dev.lake.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a writing child JVM with SIGKILL at random moments, many times over the same table, and
 * checks after each kill that a fresh engine opens the table at a committed version holding every
 * acknowledged batch exactly once, and that the table takes appends again.
 */
class LogCrashTest {

  private static final int ROWS = 20_000;
  private static final int PAYLOAD = 48;
  private static final int BLOCK_ROWS = 4096;
  private static final long SEGMENT_BYTES = 400_000;
  private static final long PARENT_BATCHES = 1_000_000_000L;

  private record Ack(long version, long batch) {}

  @Test
  void killedWriterLeavesLastCommittedVersionReadableWithEveryAckedBatchOnce(@TempDir Path dir)
      throws Exception {
    int rounds = Integer.getInteger("lake.crash.rounds", 30);
    long seed = Long.getLong("lake.crash.seed", System.nanoTime());
    Random random = new Random(seed);
    TableLocation location = TableLocation.of(dir.resolve("t"));
    String classPath = childClassPath(dir.resolve("classes"));
    try (TableEngine engine = LogTestData.engine(BLOCK_ROWS, SEGMENT_BYTES)) {
      engine.create(location, LogTestData.BATCHES).close();
    }
    Map<Long, Long> acked = new HashMap<>();
    int killedBeforeAck = 0;
    long started = System.nanoTime();
    for (int round = 0; round < rounds; round++) {
      boolean afterFirstAck = round % 2 == 1;
      int delayMs = 50 + random.nextInt(351);
      List<Ack> acks = runAndKill(location, classPath, round * 1_000_000L, afterFirstAck, delayMs);
      if (acks.isEmpty()) {
        killedBeforeAck++;
      }
      for (Ack a : acks) {
        assertEquals(null, acked.put(a.batch(), a.version()), "batch acked twice: " + a);
      }
      verify(location, acked, round);
    }
    long orphans = orphanSegments(location);
    long childVersions;
    try (TableEngine engine = LogTestData.engine(BLOCK_ROWS, SEGMENT_BYTES);
        TableHandle table = engine.open(location).orElseThrow()) {
      childVersions = table.currentVersion().number() - rounds;
    }
    // orphanSegments > 0 shows kills landed mid-write; committedUnacked > 0 shows kills between
    // the commit and the acknowledgement.
    System.out.printf("crash test: seed=%d rounds=%d acked=%d committedUnacked=%d "
            + "killedBeforeFirstAck=%d orphanSegments=%d seconds=%.1f%n",
        seed, rounds, acked.size(), childVersions - acked.size(), killedBeforeAck, orphans,
        (System.nanoTime() - started) / 1e9);
  }

  /**
   * The child's class path: private copies of this module's main and test classes ahead of the
   * parent's class path. Children start throughout the test, and a build of the module running
   * meanwhile (an IDE, a second Maven) would otherwise swap class files under them.
   */
  private static String childClassPath(Path copies) throws Exception {
    List<String> entries = new ArrayList<>();
    for (Class<?> c : List.of(LogEngineFactory.class, CrashingAppender.class)) {
      Path source = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path target = copies.resolve(Integer.toString(entries.size()));
      if (Files.isDirectory(source)) {
        try (Stream<Path> files = Files.walk(source)) {
          for (Path f : (Iterable<Path>) files::iterator) {
            Path t = target.resolve(source.relativize(f).toString());
            if (Files.isDirectory(f)) {
              Files.createDirectories(t);
            } else {
              Files.copy(f, t);
            }
          }
        }
        entries.add(target.toString());
      }
    }
    entries.add(System.getProperty("java.class.path"));
    return String.join(java.io.File.pathSeparator, entries);
  }

  private List<Ack> runAndKill(
      TableLocation location, String classPath, long firstBatch, boolean afterFirstAck, int delayMs)
      throws Exception {
    String java = ProcessHandle.current().info().command().orElseThrow();
    List<String> command = List.of(java,
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow",
        "-XX:+UseSerialGC", "-Xmx512m",
        "-cp", classPath,
        CrashingAppender.class.getName(),
        location.localPath().toString(), Long.toString(firstBatch), Integer.toString(ROWS),
        Integer.toString(PAYLOAD), Integer.toString(BLOCK_ROWS), Long.toString(SEGMENT_BYTES));
    Path stderr = location.localPath().resolveSibling("child.err");
    Process process = new ProcessBuilder(command)
        .redirectError(stderr.toFile())
        .start();
    LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread pump = Thread.ofPlatform().daemon().start(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          lines.add(line);
        }
      } catch (IOException e) {
        // the pipe breaks when the child is killed; every complete line was already queued
      }
    });
    List<Ack> acks = new ArrayList<>();
    try {
      awaitLine(lines, "READY", process, acks, stderr);
      if (afterFirstAck) {
        awaitLine(lines, "ACK", process, acks, stderr);
      }
      Thread.sleep(delayMs);
    } finally {
      process.destroyForcibly();
      assertTrue(process.waitFor(30, TimeUnit.SECONDS), "child did not die");
      pump.join(30_000);
    }
    for (String line; (line = lines.poll()) != null; ) {
      parse(line, acks);
    }
    return acks;
  }

  private static void awaitLine(
      LinkedBlockingQueue<String> lines, String prefix, Process process, List<Ack> acks, Path stderr)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null) {
        parse(line, acks);
        if (line.startsWith(prefix)) {
          return;
        }
      } else if (!process.isAlive()) {
        throw new AssertionError("child exited with " + process.exitValue() + " before " + prefix
            + ":\n" + Files.readString(stderr));
      }
    }
    throw new AssertionError("child printed no " + prefix + " within 30 s");
  }

  private static void parse(String line, List<Ack> acks) {
    if (line.startsWith("ACK ")) {
      String[] parts = line.split(" ");
      acks.add(new Ack(Long.parseLong(parts[1]), Long.parseLong(parts[2])));
    }
  }

  private void verify(TableLocation location, Map<Long, Long> acked, int round) throws IOException {
    try (RootAllocator allocator = new RootAllocator();
        TableEngine engine = LogTestData.engine(BLOCK_ROWS, SEGMENT_BYTES);
        TableHandle table = engine.open(location).orElseThrow()) {
      List<VersionInfo> versions = table.versions();
      Map<Long, Long> versionOfBatch = new HashMap<>();
      for (VersionInfo info : versions.subList(1, versions.size())) {
        long batch = info.operation().orElseThrow().operationId().getLeastSignificantBits();
        assertEquals(null, versionOfBatch.put(batch, info.version().number()), "batch committed twice");
      }
      for (var a : acked.entrySet()) {
        assertEquals(a.getValue(), versionOfBatch.get(a.getKey()),
            "round " + round + ": acked batch " + a.getKey() + " not at its acked version");
      }
      Map<Long, Long> rows = LogTestData.countByValue(table.latestSnapshot(), "batch", allocator);
      assertEquals(versionOfBatch.keySet(), rows.keySet(), "round " + round + ": batches in data vs log");
      for (var r : rows.entrySet()) {
        long expected = r.getKey() >= PARENT_BATCHES ? 10 : ROWS;
        assertEquals(expected, r.getValue(), "round " + round + ": rows of batch " + r.getKey());
      }

      long parentBatch = PARENT_BATCHES + round;
      Version before = table.currentVersion();
      try (ArrowReader reader = LogTestData.batchReader(allocator, parentBatch, 10, 8)) {
        assertEquals(before.next(), table.append(LogTestData.batchOp(parentBatch), reader));
      }
      assertEquals(10L, LogTestData.countByValue(table.latestSnapshot(), "batch", allocator).get(parentBatch));
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }

  /** Segment files no version references: written by a child killed before its commit. */
  private static long orphanSegments(TableLocation location) throws IOException {
    Set<String> referenced = new HashSet<>();
    try (TableEngine engine = LogTestData.engine(BLOCK_ROWS, SEGMENT_BYTES);
        TableHandle table = engine.open(location).orElseThrow()) {
      for (VersionInfo info : table.versions()) {
        for (var s : ((LogSnapshot) table.snapshot(info.version())).segments()) {
          referenced.add(s.ref().file());
        }
      }
    }
    try (Stream<Path> files = Files.list(location.localPath().resolve("data"))) {
      return files.filter(f -> !referenced.contains(f.getFileName().toString())).count();
    }
  }
}
