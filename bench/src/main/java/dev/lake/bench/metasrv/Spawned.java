package dev.lake.bench.metasrv;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code lake} process started from the packaged jar ({@code cli/target/lake-cli.jar}) with the
 * flags a user's {@code ./lake} passes, its output copied to a log file. Every process started
 * is stopped when the benchmark's JVM exits: SIGTERM (a {@code lake cluster} then stops its own
 * members), SIGKILL after 30 s.
 */
public final class Spawned implements AutoCloseable {

  /** The port a server prints, or the client endpoint {@code lake cluster} prints. */
  private static final Pattern LISTENING = Pattern.compile(
      "(?:Flight SQL on|metasrv listening on|lake cluster: endpoint) [^ ]+:(\\d+)");
  private static final Pattern METRICS = Pattern.compile("metrics on (http://\\S+/metrics)");
  private static final List<Process> STARTED = new CopyOnWriteArrayList<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      STARTED.forEach(process -> process.toHandle().destroy());
      for (Process process : STARTED) {
        try {
          if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
          }
        } catch (InterruptedException e) {
          process.destroyForcibly();
        }
      }
    }, "lake-bench-children"));
  }

  final String name;
  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Integer> port = new CompletableFuture<>();
  private final CompletableFuture<String> metrics = new CompletableFuture<>();

  private Spawned(String name, Process process, Path log) throws IOException {
    this.name = name;
    this.process = process;
    // Appended to: a replica restarted under the same name keeps one log.
    PrintWriter logWriter = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND), true);
    Thread pump = new Thread(() -> pump(logWriter), "lake-bench-output-" + name);
    pump.setDaemon(true);
    pump.start();
  }

  /**
   * Starts {@code lake <args>} and waits (up to 180 s) until it prints the port it listens on
   * (for {@code lake cluster}: its client endpoint, printed once every member listens).
   *
   * @param jvmOptions extra JVM options (e.g. a JFR recording), may be empty
   */
  public static Spawned start(Path jar, Path logs, String name, List<String> jvmOptions, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        ProcessHandle.current().info().command().orElse("java"),
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow", "--add-modules=jdk.incubator.vector", "-Xmx1g"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", jar.toString()));
    command.addAll(List.of(args));
    Files.createDirectories(logs);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    STARTED.add(process);
    Spawned spawned = new Spawned(name, process, logs.resolve(name + ".log"));
    try {
      spawned.port.get(180, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      spawned.close();
      throw new IllegalStateException("lake " + String.join(" ", args) + " did not start: "
          + spawned.output, e);
    }
    return spawned;
  }

  /** The port it printed (for {@code lake cluster}, the endpoint's). */
  public int port() {
    return port.join();
  }

  /** The metrics URL it printed (started with {@code --metrics-port}); waits up to 60 s. */
  String metricsUrl() throws Exception {
    return metrics.get(60, TimeUnit.SECONDS);
  }

  /** Whether it printed a line containing {@code text}. */
  boolean printed(String text) {
    return output.stream().anyMatch(line -> line.contains(text));
  }

  /** SIGKILL, then waits for the exit. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(60, TimeUnit.SECONDS);
  }

  /** SIGTERM (graceful drain), SIGKILL if it has not exited within 30 s. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.toHandle().destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        kill();
      }
    }
    STARTED.remove(process);
  }

  private void pump(PrintWriter log) {
    try (log; BufferedReader lines = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        log.println(line);
        if (output.size() < 10_000) {
          output.add(line);
        }
        Matcher listening = LISTENING.matcher(line);
        if (listening.find()) {
          port.complete(Integer.parseInt(listening.group(1)));
        }
        Matcher m = METRICS.matcher(line);
        if (m.find()) {
          metrics.complete(m.group(1));
        }
      }
    } catch (IOException ignored) {
      // the process ended
    } finally {
      port.completeExceptionally(new IllegalStateException(name + " exited: " + output));
      metrics.completeExceptionally(new IllegalStateException(name + " printed no metrics URL"));
    }
  }
}
