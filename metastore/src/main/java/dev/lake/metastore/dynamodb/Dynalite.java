package dev.lake.metastore.dynamodb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A dynalite server (the open-source DynamoDB implementation from npm) run by the machine's
 * Node.js on a loopback port: in memory for tests and benchmarks, or persisted under a folder for
 * {@code lake cluster}. It is installed into {@code <repo>/.tools/dynalite} (as {@code .ci/run}
 * does) if missing. The server also exits when this JVM does, because it watches its standard
 * input.
 */
public final class Dynalite implements AutoCloseable {

  public static final String VERSION = "4.0.0";
  public static final String ACCESS_KEY = "lake-test";
  public static final String SECRET_KEY = "lake-test-secret";
  public static final String REGION = "us-east-1";

  private static final String LAUNCHER = """
      // Written by the lake tests: runs dynalite, and exits when the parent JVM goes away.
      process.stdin.on('end', () => process.exit(0));
      process.stdin.on('error', () => process.exit(0));
      process.stdin.resume();
      require('./node_modules/dynalite/cli.js');
      """;
  private static final AtomicInteger TABLES = new AtomicInteger();

  private final Process process;
  private final int port;
  private final Path log;
  private final Thread cleanup;

  private Dynalite(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.cleanup = new Thread(process::destroyForcibly, "dynalite-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
  }

  /**
   * Installs dynalite if needed and starts it on a free loopback port.
   *
   * @throws IllegalStateException naming what is missing (Node.js, npm) or why it did not start
   */
  public static Dynalite start() {
    return start(null, null);
  }

  /**
   * Installs dynalite if needed and starts it on a free loopback port, its tables persisted under
   * {@code storeDirectory} (in memory when null), its output in {@code logFile} (a temporary file,
   * deleted on close, when null).
   *
   * @throws IllegalStateException naming what is missing (Node.js, npm) or why it did not start
   */
  public static Dynalite start(Path storeDirectory, Path logFile) {
    Path home = installedHome();
    IllegalStateException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      int port = freePort();
      try {
        Path log = logFile != null ? logFile : Files.createTempFile("dynalite-" + port + "-", ".log");
        List<String> command = new java.util.ArrayList<>(List.of("node",
            home.resolve("launch.js").toString(),
            "--host", "127.0.0.1", "--port", Integer.toString(port),
            "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0"));
        if (storeDirectory != null) {
          Files.createDirectories(storeDirectory);
          command.addAll(List.of("--path", storeDirectory.toAbsolutePath().toString()));
        }
        Process process = new ProcessBuilder(command)
            .directory(home.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
        if (awaitListening(process, log)) {
          return new Dynalite(process, port, logFile == null ? log : null);
        }
        stop(process);
        last = new IllegalStateException("dynalite did not start on port " + port + ": "
            + Files.readString(log).strip());
      } catch (IOException e) {
        throw new IllegalStateException("cannot run dynalite with node: " + e.getMessage(), e);
      }
    }
    throw last;
  }

  /** The endpoint to give the AWS SDK. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** Settings for table {@code table} on this server. */
  public DynamoDbSettings settings(String table) {
    return DynamoDbSettings.forEndpoint(endpoint(), REGION, table, ACCESS_KEY, SECRET_KEY);
  }

  /** Creates a fresh, uniquely named metastore table and opens a store on it. */
  public DynamoDbMetaStore newStore() {
    DynamoDbSettings settings = settings("lake-test-" + TABLES.incrementAndGet());
    DynamoDbTables.create(settings);
    return DynamoDbMetaStore.open(settings);
  }

  @Override
  public void close() {
    if (!process.isAlive()) {
      // It died by itself while in use: say so, with what it printed, before the log goes.
      System.err.println("dynalite on port " + port + " had exited by itself (status "
          + process.exitValue() + "); its output: " + tail());
    }
    stop(process);
    try {
      Runtime.getRuntime().removeShutdownHook(cleanup);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs anyway.
    }
    if (log != null) {
      try {
        Files.deleteIfExists(log);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The last 4 KiB of the server's output, or why it cannot be read. */
  private String tail() {
    if (log == null) {
      return "(written to a file the caller chose)";
    }
    try {
      byte[] bytes = Files.readAllBytes(log);
      int from = Math.max(0, bytes.length - 4096);
      return new String(bytes, from, bytes.length - from, java.nio.charset.StandardCharsets.UTF_8)
          .strip();
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  /** The server's process id. */
  public long pid() {
    return process.pid();
  }

  /** The loopback port it listens on. */
  public int port() {
    return port;
  }

  /** The dynalite folder, installing dynalite with npm under a file lock if it is missing. */
  public static synchronized Path installedHome() {
    Path home = repositoryRoot().resolve(".tools").resolve("dynalite");
    Path cli = home.resolve("node_modules/dynalite/cli.js");
    try {
      Files.createDirectories(home);
      try (FileChannel channel = FileChannel.open(home.resolve(".install.lock"),
              StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = channel.lock()) {
        requireTool("node");
        if (!Files.exists(cli)) {
          requireTool("npm");
          run(home, List.of("npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
              "--prefix", home.toString(), "dynalite@" + VERSION));
          if (!Files.exists(cli)) {
            throw new IllegalStateException("npm install dynalite@" + VERSION + " into " + home
                + " finished but " + cli + " is missing");
          }
        }
        Path launcher = home.resolve("launch.js");
        if (!Files.exists(launcher) || !Files.readString(launcher).equals(LAUNCHER)) {
          Files.writeString(launcher, LAUNCHER, StandardCharsets.UTF_8);
        }
      }
      return home;
    } catch (IOException e) {
      throw new IllegalStateException("cannot install dynalite into " + home + ": "
          + e.getMessage(), e);
    }
  }

  private static Path repositoryRoot() {
    String configured = System.getProperty("lake.repository");
    if (configured != null) {
      return Path.of(configured);
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("mvnw")) && Files.exists(dir.resolve("metastore/pom.xml"))) {
        return dir;
      }
    }
    throw new IllegalStateException("cannot find the lake repository above "
        + Path.of("").toAbsolutePath() + " (to install dynalite under .tools/); run lake from"
        + " its checkout or set -Dlake.repository=<path>");
  }

  private static void requireTool(String tool) {
    try {
      Process p = new ProcessBuilder(tool, "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      if (p.waitFor() != 0) {
        throw new IllegalStateException(tool + " --version failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("dynalite " + VERSION + " (a DynamoDB server) runs with "
          + "Node.js, but '" + tool + "' is not on the PATH; install Node.js and npm (for example"
          + " `apt-get install -y nodejs npm`) or run .ci/run", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted checking for " + tool, e);
    }
  }

  private static void run(Path dir, List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .start();
    try {
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " failed: " + output.strip());
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits for dynalite's own "listening" line, so a port taken meanwhile by another is noticed. */
  private static boolean awaitListening(Process process, Path log) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline && process.isAlive()) {
      if (Files.readString(log).contains("Dynalite listening at")) {
        return true;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  private static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
