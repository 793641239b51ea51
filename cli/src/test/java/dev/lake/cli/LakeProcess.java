package dev.lake.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A {@code lake} process started from the packaged jar, as a user starts it. Always destroyed on close. */
final class LakeProcess implements AutoCloseable {

  private static final Pattern LISTENING = Pattern.compile("(?:Flight SQL on|metasrv listening on) ([^ ]+):(\\d+)");

  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Integer> port = new CompletableFuture<>();
  private final Thread reader;

  private LakeProcess(Process process) {
    this.process = process;
    reader = new Thread(this::pump, "lake-output");
    reader.setDaemon(true);
    reader.start();
  }

  static Path jar() {
    Path jar = Path.of("target", "lake-cli.jar").toAbsolutePath();
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing: integration tests run after package");
    }
    return jar;
  }

  static LakeProcess start(String... args) throws IOException {
    return start(Map.of(), args);
  }

  /** Starts {@code lake <args>} with {@code env} added to the environment. */
  static LakeProcess start(Map<String, String> env, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(
        ProcessHandle.current().info().command().orElse("java"),
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow", "--add-modules=jdk.incubator.vector", "-Xmx1g", "-jar", jar().toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    return new LakeProcess(builder.start());
  }

  /** Starts {@code lake dev} on a free port and waits until it is ready. */
  static LakeProcess dev(Path dataDir) throws Exception {
    LakeProcess lake = start("dev", "--port", "0", "--data-dir", dataDir.toString());
    lake.port.get(60, TimeUnit.SECONDS);
    return lake;
  }

  /** Starts {@code lake <args>} and waits until it prints the address it listens on. */
  static LakeProcess listening(String... args) throws Exception {
    LakeProcess lake = start(args);
    lake.port.get(120, TimeUnit.SECONDS);
    return lake;
  }

  int port() {
    return port.join();
  }

  String jdbcUrl() {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + port() + "/?useEncryption=false";
  }

  List<String> output() {
    return List.copyOf(output);
  }

  /**
   * The first line of output matching {@code pattern}, waiting for it as long as the process
   * lives (at most 5 min).
   */
  Matcher awaitLine(Pattern pattern) throws InterruptedException {
    // Generous: a cluster starts several JVMs one after another (each given 120 s by lake
    // itself); on a loaded 2-core machine that took over a minute. Returns as soon as it appears.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (System.nanoTime() < deadline) {
      for (String line : output) {
        Matcher m = pattern.matcher(line);
        if (m.find()) {
          return m;
        }
      }
      if (!process.isAlive()) {
        break;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no line matching " + pattern + " in: " + output);
  }

  /** Sends SIGTERM and waits for the exit code. */
  int terminate() throws InterruptedException {
    // Through the handle: Process.destroy() would also close our end of the output pipe, losing
    // what the process prints while it shuts down.
    process.toHandle().destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("lake did not stop within 30 s of SIGTERM; output: " + output);
    }
    reader.join(10_000);
    return process.exitValue();
  }

  int waitForExit() throws InterruptedException {
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("lake did not exit; output: " + output);
    }
    reader.join(10_000);
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private void pump() {
    try (BufferedReader lines = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        output.add(line);
        Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          port.complete(Integer.parseInt(m.group(2)));
        }
      }
    } catch (IOException ignored) {
      // the process ended; its exit is observed through waitFor
    } finally {
      port.completeExceptionally(new IllegalStateException("lake exited before listening: " + output));
    }
  }
}
