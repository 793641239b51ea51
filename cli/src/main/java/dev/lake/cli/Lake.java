package dev.lake.cli;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
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
    subcommands = {Lake.Dev.class, ClusterCommand.class, MetastoreCommand.class, MetasrvCommand.class,
        QueryCommand.class, dev.lake.cli.sql.SqlCommand.class,
        dev.lake.cli.objects.PutCommand.class, dev.lake.cli.objects.GetCommand.class,
        CommandLine.HelpCommand.class})
public final class Lake implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    LogFormat.configure(args);
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
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin OpsOptions ops;

    @CommandLine.Mixin SecurityOptions security;

    @CommandLine.Mixin StageOptions stage;

    @CommandLine.Mixin IcebergOptions iceberg;

    @CommandLine.Mixin AdmissionOptions admission;

    @Option(names = "--port", defaultValue = "31337",
        description = "Flight SQL port on loopback; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1",
        description = "Address to listen on; other than loopback it needs --principals and"
            + " --tls-cert/--tls-key (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--data-dir", defaultValue = "${env:LAKE_DATA_DIR:-.lake/dev}",
        description = "Where the registry and tables live; kept across restarts"
            + " (default: $LAKE_DATA_DIR or ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--query-timeout", converter = QueryLimits.DurationConverter.class,
        description = "Longest a SQL query may run before it is stopped with DEADLINE_EXCEEDED"
            + " (500ms, 30s, 2m, 1h or ISO-8601); default: none, clients may set their own deadline.")
    Duration queryTimeout;

    @Option(names = "--query-memory", converter = QueryLimits.SizeConverter.class,
        description = "Arrow memory (and hash-table heap) one SQL query may hold, e.g. 512m or 2g;"
            + " a query over it fails with RESOURCE_EXHAUSTED; default: no per-query limit.")
    Long queryMemory;

    @Option(names = "--lance-rest-port",
        description = "Also serve the Lance Namespace REST API (stock Lance, lance-spark, lance-ray)"
            + " on this loopback port; 0 picks a free one (default: not served).")
    Integer lanceRestPort;

    @Option(names = "--query-threads",
        description = "Workers of one parallel query plan (default: one per processor).")
    Integer queryThreads;

    /** The limits the options ask for, checked. */
    QueryLimits limits() {
      QueryLimits defaults = QueryLimits.defaults();
      if (queryThreads != null && queryThreads < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--query-threads must be at least 1, got " + queryThreads);
      }
      return new QueryLimits(queryTimeout, queryMemory == null ? defaults.memoryBytes() : queryMemory,
          queryThreads == null ? defaults.threads() : queryThreads);
    }

    @Override
    public Integer call() throws InterruptedException {
      Path data = dataDir.toAbsolutePath().normalize();
      ops.check(spec.commandLine());
      security.check(spec.commandLine());
      admission.check(spec.commandLine());
      QueryLimits limits = limits();
      if (lanceRestPort != null && (lanceRestPort < 0 || lanceRestPort > 65535)) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--lance-rest-port must be 0..65535, got " + lanceRestPort);
      }
      URI stageRoot;
      java.util.Optional<dev.lake.iceberg.IcebergSettings> icebergSettings;
      try {
        stageRoot = stage.root(data.resolve("stage"));
        icebergSettings = iceberg.settings();
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      DevServer server;
      try {
        server = DevServer.start(data, host, port, limits, ops.metricsPort, lanceRestPort,
            builder -> ops.apply(admission.apply(security.apply(builder))).stage(stageRoot, null,
                System.getenv("AWS_REGION"), false), icebergSettings);
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
      System.out.println("lake dev: JDBC URL " + (security.tls() || security.principals != null
          ? security.jdbcUrl(host, server.port()) : server.jdbcUrl(host)));
      if (ops.metricsPort != null) {
        System.out.println("lake dev: metrics on http://" + host + ":" + server.metricsPort()
            + "/metrics");
      }
      icebergSettings.ifPresent(c -> System.out.println("lake dev: catalog iceberg (read-only) from "
          + c.uri()));
      if (lanceRestPort != null) {
        System.out.println("lake dev: Lance Namespace REST on http://" + host + ":"
            + server.lanceRestPort());
      }
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
