package dev.lake.sdk;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A child JVM on this test's class path running a test main, its stdout and stderr in a file. */
record ChildJvm(Process process, Path out) {

  /** {@link UploadMain} of {@code file} through {@code uri} with the resume directory. */
  static ChildJvm upload(Path dir, String name, List<String> jvm, String uri, Path file,
      Path resume, String... more) throws IOException {
    List<String> args = new ArrayList<>(List.of(uri, file.toString(), resume.toString()));
    args.addAll(List.of(more));
    return start(dir, name, jvm, UploadMain.class, args);
  }

  static ChildJvm start(Path dir, String name, List<String> jvm, Class<?> main, List<String> args)
      throws IOException {
    return start(dir, name, List.of(), jvm, main, args);
  }

  /** As {@link #start(Path, String, List, Class, List)}, the JVM run by {@code launcher}. */
  static ChildJvm start(Path dir, String name, List<String> launcher, List<String> jvm,
      Class<?> main, List<String> args) throws IOException {
    List<String> command = new ArrayList<>(launcher);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags());
    command.addAll(jvm);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    Path out = dir.resolve(name + ".out");
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(out.toFile()).start();
    return new ChildJvm(process, out);
  }

  /** The flags this JVM was started with that the SDK needs (Arrow, Netty), as surefire's. */
  private static List<String> jvmFlags() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens") || a.startsWith("--add-modules")
            || a.startsWith("--enable-native-access")
            || a.startsWith("--sun-misc-unsafe-memory-access")
            || a.startsWith("-Darrow."))
        .toList();
  }

  int await() throws InterruptedException {
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("the child did not finish in 10 minutes: " + output());
    }
    return process.exitValue();
  }

  String output() {
    try {
      return Files.readString(out);
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }
}
