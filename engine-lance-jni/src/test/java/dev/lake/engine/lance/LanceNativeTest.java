package dev.lake.engine.lance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Lance's native library is loaded by the first lance operation, and its temp copy never outlives the load. */
class LanceNativeTest {

  @TempDir Path dir;

  @Test
  void libraryLoadsAtTheFirstOperationAndNoCopySurvivesEvenASigkill() throws Exception {
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    String java = ProcessHandle.current().info().command().orElse("java");
    Process child = new ProcessBuilder(java,
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow", "-Xmx256m",
        "-Djava.io.tmpdir=" + tmp,
        "-cp", System.getProperty("java.class.path"),
        NativeLoadProbe.class.getName(), dir.resolve("t").toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("CREATED mapped=false copies=0", nextReport(out), "creating the engine loads nothing");
      assertEquals("USED mapped=true copies=0", nextReport(out), "the first operation loads the library, the copy is gone");
      child.destroyForcibly(); // SIGKILL: no deleteOnExit runs
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      try (Stream<Path> left = Files.list(tmp)) {
        assertEquals(0, left.filter(p -> p.getFileName().toString().startsWith("liblance_jni")).count());
      }
    } finally {
      child.destroyForcibly();
    }
  }

  /** The next line the probe reports (its loggers print to stdout too). */
  private static String nextReport(BufferedReader out) throws java.io.IOException {
    String line;
    while ((line = out.readLine()) != null) {
      if (line.startsWith("CREATED ") || line.startsWith("USED ")) {
        return line;
      }
    }
    return "the probe exited";
  }

  @Test
  void onlyMappedLanceCopiesInTheTempFolderAreDeleted() throws Exception {
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    Path other = Files.createDirectories(dir.resolve("other"));
    Path mapped = Files.writeString(tmp.resolve("liblance_jni123.so"), "x");
    Path unmapped = Files.writeString(tmp.resolve("liblance_jni456.so"), "x");
    Path elsewhere = Files.writeString(other.resolve("liblance_jni789.so"), "x");
    Path rocks = Files.writeString(tmp.resolve("librocksdbjni1.so"), "x");
    Path maps = Files.writeString(dir.resolve("maps"), String.join("\n",
        "7f00-7f01 r-xp 00000000 fd:01 11 " + mapped.toRealPath(),
        "7f01-7f02 r--p 00001000 fd:01 11 " + mapped.toRealPath(),
        "7f02-7f03 r-xp 00000000 fd:01 12 " + elsewhere.toRealPath(),
        "7f03-7f04 r-xp 00000000 fd:01 13 " + rocks.toRealPath(),
        "7f04-7f05 rw-p 00000000 00:00 0 ",
        "7f05-7f06 r-xp 00000000 fd:01 14 " + tmp.toRealPath().resolve("liblance_jni0.so") + " (deleted)",
        "7ffd-7ffe rw-p 00000000 00:00 0                          [stack]"));

    assertEquals(Set.of(mapped.toRealPath()), LanceNative.deleteMappedCopies(maps, tmp));
    assertTrue(Files.exists(unmapped) && Files.exists(elsewhere) && Files.exists(rocks));
    assertEquals(Set.of(), LanceNative.deleteMappedCopies(dir.resolve("no-such-maps"), tmp));
  }
}
