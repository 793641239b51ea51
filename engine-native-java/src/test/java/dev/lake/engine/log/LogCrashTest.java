package dev.lake.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.ScanRequest;
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
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash campaign: a child JVM works on one table (appends; appends and compactions; appends
 * and expiries) and is killed with SIGKILL at a random moment, over and over. Every other kill is
 * followed by a simulated torn write: the file written last is truncated at a random length.
 * After every kill the parent checks, with a fresh engine, that the table opens at a committed
 * version, that every acknowledged batch is there exactly once, that every file a retained
 * version references is present and intact, and that the table takes an append.
 *
 * <p>CI size: 210 kills ({@code -Dlake.crash.rounds=N} for more, {@code -Dlake.crash.seed} to
 * replay a run). A torn file that a committed version needs cannot arise from a crash (it was
 * made durable before the version became visible), so if the truncation hits one, the check is
 * that reading reports it as corruption naming the file; the file is then restored.
 */
class LogCrashTest {

  private static final int ROWS = 200;
  private static final long PARENT_BATCHES = 1_000_000_000L;
  private static final List<String> PHASES = List.of("append", "compact", "expire");

  private record Ack(long version, long batch) {}

  private record Kill(List<Ack> acks, String during) {}

  @Test
  void killedWriterLeavesACommittedVersionWithEveryAckedBatchOnceAndNoReferencedFileMissing(
      @TempDir Path dir) throws Exception {
    int rounds = Integer.getInteger("lake.crash.rounds", 210);
    long seed = Long.getLong("lake.crash.seed", System.nanoTime());
    Random random = new Random(seed);
    TableLocation location = TableLocation.of(dir.resolve("t"));
    String classPath = childClassPath(dir.resolve("classes"));
    Path archive = dir.resolve("child.jsa");
    TableLocation scratch = TableLocation.of(dir.resolve("warmup"));
    try (TableEngine engine = new LogEngineFactory().create(CrashingAppender.PROPERTIES)) {
      engine.create(location, LogTestData.BATCHES).close();
      engine.create(scratch, LogTestData.BATCHES).close();
    }
    warmUp(scratch, classPath, archive);
    Map<Long, Long> acked = new HashMap<>();
    Map<String, Integer> killedDuring = new TreeMap<>();
    int torn = 0;
    int tornReferenced = 0;
    long started = System.nanoTime();
    for (int round = 0; round < rounds; round++) {
      String phase = PHASES.get(round % PHASES.size());
      int opsBeforeKill = random.nextInt(3);
      int delayMs = random.nextInt(40);
      Kill kill = runAndKill(location, classPath, archive, round * 1_000_000L, phase, opsBeforeKill, delayMs);
      killedDuring.merge(kill.during(), 1, Integer::sum);
      for (Ack a : kill.acks()) {
        assertEquals(null, acked.put(a.batch(), a.version()), "batch acked twice: " + a);
      }
      if (round % 2 == 1) {
        torn++;
        if (tearLastWrittenFile(location, random, acked, round)) {
          tornReferenced++;
        }
      }
      verify(location, acked, round);
    }
    System.out.printf("crash campaign: seed=%d kills=%d tornWrites=%d tornReferencedAndDetected=%d "
            + "killedDuring=%s ackedBatches=%d seconds=%.1f%n",
        seed, rounds, torn, tornReferenced, killedDuring, acked.size(),
        (System.nanoTime() - started) / 1e9);
  }

  /**
   * Truncates the most recently modified file of the table. If the table then reads as corrupt
   * naming that file, the file was one a committed version needs: that is the right answer, and
   * the file is restored so the campaign goes on.
   *
   * @return whether the torn file was one the table references
   */
  private boolean tearLastWrittenFile(TableLocation location, Random random, Map<Long, Long> acked,
      int round) throws IOException {
    Path newest = null;
    FileTime newestTime = null;
    try (Stream<Path> files = Files.walk(location.localPath())) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        FileTime t = Files.getLastModifiedTime(f);
        if (newest == null || t.compareTo(newestTime) > 0) {
          newest = f;
          newestTime = t;
        }
      }
    }
    byte[] original = Files.readAllBytes(newest);
    if (original.length == 0) {
      return false;
    }
    try (var ch = java.nio.channels.FileChannel.open(newest, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(random.nextInt(original.length));
    }
    // A writer killed between linking a commit entry and deleting its temp file leaves both
    // names on one inode: tearing the temp file tears the entry, which is what a reader reports.
    List<String> names = namesOfSameFile(location.localPath(), newest);
    try {
      verify(location, acked, round);
      return false;
    } catch (CorruptTableException e) {
      assertTrue(names.stream().anyMatch(e.getMessage()::contains),
          "corruption must name the torn file " + names + ": " + e.getMessage());
      Files.write(newest, original);
      return true;
    }
  }

  /** The names under {@code root} of the file {@code file} is, itself included (hard links). */
  private static List<String> namesOfSameFile(Path root, Path file) throws IOException {
    Object key = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class)
        .fileKey();
    List<String> names = new ArrayList<>(List.of(file.getFileName().toString()));
    if (key == null) {
      return names;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        if (!f.equals(file) && key.equals(Files.readAttributes(f,
            java.nio.file.attribute.BasicFileAttributes.class).fileKey())) {
          names.add(f.getFileName().toString());
        }
      }
    }
    return names;
  }

  private void verify(TableLocation location, Map<Long, Long> acked, int round) throws IOException {
    try (RootAllocator allocator = new RootAllocator();
        TableEngine engine = new LogEngineFactory().create(CrashingAppender.PROPERTIES);
        TableHandle table = engine.open(location).orElseThrow()) {
      List<VersionInfo> versions = table.versions();
      long latest = table.currentVersion().number();
      assertEquals(latest, versions.getLast().version().number(), "round " + round);
      for (int i = 1; i < versions.size(); i++) {
        assertEquals(versions.get(i - 1).version().next(), versions.get(i).version(),
            "round " + round + ": retained versions are not contiguous");
      }
      // Every file a retained version references is present, of its recorded size, with a valid
      // footer: planning reads and verifies each footer.
      for (VersionInfo info : versions) {
        var snapshot = table.snapshot(info.version());
        var plan = snapshot.plan(ScanRequest.of(List.of("batch")));
        assertEquals(snapshot.rowCount(), plan.units().stream().mapToLong(u -> u.rowCount()).sum());
      }
      Map<Long, Long> rows = LogTestData.countByValue(table.latestSnapshot(), "batch", allocator);
      for (var a : acked.entrySet()) {
        assertTrue(a.getValue() <= latest, "round " + round + ": acked version beyond latest");
        assertEquals(Long.valueOf(ROWS), rows.get(a.getKey()),
            "round " + round + ": acked batch " + a.getKey() + " (version " + a.getValue() + ")");
      }
      for (var r : rows.entrySet()) {
        long expected = r.getKey() >= PARENT_BATCHES ? 10 : ROWS;
        assertEquals(expected, r.getValue(), "round " + round + ": rows of batch " + r.getKey());
      }
      long parentBatch = PARENT_BATCHES + round;
      // every few rounds the table must take an append from another process
      if (round % 5 == 0 && !rows.containsKey(parentBatch)) {
        try (ArrowReader reader = LogTestData.batchReader(allocator, parentBatch, 10, 8)) {
          assertEquals(Version.of(latest + 1), table.append(LogTestData.batchOp(parentBatch), reader));
        }
      }
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }

  /**
   * The child's class path: the parent's, with every directory (this module's main and test
   * classes) packed into a private jar. Children start throughout the test, and a build of the
   * module running meanwhile would otherwise swap class files under them; jars also let the JVM
   * map a class-data archive, which refuses directories.
   */
  static String childClassPath(Path copies) throws Exception {
    List<String> entries = new ArrayList<>();
    Files.createDirectories(copies);
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path source = Path.of(entry);
      if (!Files.isDirectory(source)) {
        entries.add(entry);
        continue;
      }
      Path jar = copies.resolve(entries.size() + ".jar");
      try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar));
          Stream<Path> files = Files.walk(source)) {
        for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
          out.putNextEntry(new java.util.jar.JarEntry(source.relativize(f).toString().replace('\\', '/')));
          Files.copy(f, out);
          out.closeEntry();
        }
      }
      entries.add(jar.toString());
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  /** A child JVM command; the shared archive makes the hundreds of starts cheaper. */
  static List<String> javaCommand(String classPath, Path archive, String mainClass, String... args) {
    String java = ProcessHandle.current().info().command().orElseThrow();
    List<String> command = new ArrayList<>(List.of(java,
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow",
        "-XX:+UseSerialGC", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
        "-XX:+AutoCreateSharedArchive", "-XX:SharedArchiveFile=" + archive,
        "-cp", classPath, mainClass));
    command.addAll(List.of(args));
    return command;
  }

  /** One child that exits normally, so the JVM writes the class-data archive the others map. */
  private static void warmUp(TableLocation scratch, String classPath, Path archive) throws Exception {
    Path log = scratch.localPath().resolveSibling("warmup.out");
    Process process = new ProcessBuilder(javaCommand(classPath, archive, CrashingAppender.class.getName(),
        scratch.localPath().toString(), "0", Integer.toString(ROWS), "warmup"))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      assertTrue(process.waitFor(120, TimeUnit.SECONDS), "warm-up child did not finish");
      assertEquals(0, process.exitValue(), Files.readString(log));
    } finally {
      process.destroyForcibly();
    }
  }

  private Kill runAndKill(TableLocation location, String classPath, Path archive, long firstBatch,
      String phase, int opsBeforeKill, int delayMs) throws Exception {
    List<String> command = javaCommand(classPath, archive, CrashingAppender.class.getName(),
        location.localPath().toString(), Long.toString(firstBatch), Integer.toString(ROWS), phase);
    Path stderr = location.localPath().resolveSibling("child.err");
    Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
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
    List<String> seen = new ArrayList<>();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (seen.stream().filter(l -> l.startsWith("END")).count() < opsBeforeKill
          || seen.stream().noneMatch(l -> l.startsWith("BEGIN"))) {
        String line = lines.poll(100, TimeUnit.MILLISECONDS);
        if (line != null) {
          seen.add(line);
        } else if (!process.isAlive()) {
          fail("child exited with " + process.exitValue() + ":\n" + Files.readString(stderr));
        } else if (System.nanoTime() > deadline) {
          fail("child did not start working within 60 s");
        }
      }
      Thread.sleep(delayMs);
    } finally {
      process.destroyForcibly();
      assertTrue(process.waitFor(30, TimeUnit.SECONDS), "child did not die");
      pump.join(30_000);
    }
    lines.drainTo(seen);
    List<Ack> acks = new ArrayList<>();
    String during = "between operations";
    for (String line : seen) {
      String[] parts = line.split(" ");
      switch (parts[0]) {
        case "ACK" -> acks.add(new Ack(Long.parseLong(parts[1]), Long.parseLong(parts[2])));
        case "BEGIN" -> during = parts[1];
        case "END" -> during = "between operations";
        default -> { }
      }
    }
    return new Kill(acks, during);
  }

}
