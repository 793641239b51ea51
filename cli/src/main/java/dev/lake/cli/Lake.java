package dev.lake.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The {@code lake} command. */
@Command(
    name = "lake",
    mixinStandardHelpOptions = true,
    versionProvider = Lake.Version.class,
    description = "A lakehouse for robot-training and ML data, served over Arrow Flight SQL.",
    subcommands = {Lake.Dev.class, MetastoreCommand.class, CommandLine.HelpCommand.class})
public final class Lake implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new Lake()).execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  @Command(
      name = "dev",
      mixinStandardHelpOptions = true,
      description = {
        "Runs an all-in-one lake on loopback: registry, storage and Flight SQL in one process.",
        "",
        "The registry (RocksDB) and the tables live under --data-dir and survive restarts.",
        "Creates the demo table demo.episodes on first start and prints the JDBC URL.",
        "Listens on a loopback address only, without TLS or authentication. Stop with Ctrl-C."
      })
  static final class Dev implements Callable<Integer> {

    @Option(names = "--port", defaultValue = "31337",
        description = "Flight SQL port on loopback; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1",
        description = "Loopback address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--data-dir", defaultValue = "${env:LAKE_DATA_DIR:-.lake/dev}",
        description = "Where the registry and tables live; kept across restarts"
            + " (default: $LAKE_DATA_DIR or ${DEFAULT-VALUE}).")
    Path dataDir;

    @Override
    public Integer call() throws InterruptedException {
      Path data = dataDir.toAbsolutePath().normalize();
      DevServer server;
      try {
        server = DevServer.start(data, host, port);
      } catch (RuntimeException e) {
        System.err.println("lake dev: " + e.getMessage());
        return 1;
      }
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        System.out.println("lake dev: stopping");
        server.close();
        stopped.countDown();
      }, "lake-shutdown"));
      System.out.println("lake dev: data in " + data
          + (server.demoCreated() ? " (created demo.episodes)" : ""));
      System.out.println("lake dev: Flight SQL on " + host + ":" + server.port());
      System.out.println("lake dev: JDBC URL " + server.jdbcUrl(host));
      System.out.println("lake dev: ready");
      System.out.flush();
      stopped.await();
      return 0;
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Lake.class.getPackage().getImplementationVersion();
      return new String[] {"lake " + (version == null ? "(development build)" : version)};
    }
  }
}
