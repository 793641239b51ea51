package dev.lake.cli;

import dev.lake.catalog.CatalogCache;
import dev.lake.catalog.LanceNamespaces;
import dev.lake.catalog.Placement;
import dev.lake.engine.TableEngine;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.lancerest.LanceRestServer;
import dev.lake.flight.metasrv.MetasrvServer;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.dynamodb.DynamoDbMetaStore;
import dev.lake.metastore.dynamodb.DynamoDbSettings;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lake metasrv}: one replica of the registry authority (see docs/metasrv.md). */
@Command(
    name = "metasrv",
    mixinStandardHelpOptions = true,
    description = {
      "Runs one Metasrv replica: the registry authority's Flight control plane.",
      "",
      "Replicas sharing one DynamoDB table elect a leader by a lease; followers forward to it.",
      "RocksDB (the default) allows a single replica. Prints one line when ready.",
      "SIGTERM drains accepted writes, then resigns the lease."
    })
final class MetasrvCommand implements Callable<Integer> {

  enum Store { rocksdb, dynamodb }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--data-dir", required = true,
      description = "Where the RocksDB registry (meta/) and, by default, the tables (warehouse/) live.")
  Path dataDir;

  @Option(names = "--warehouse",
      description = "Where new tables are placed: a directory or s3://bucket/prefix (see --s3-*);"
          + " default: <data-dir>/warehouse.")
  String warehouse;

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Loopback address to listen on and advertise (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", defaultValue = "0",
      description = "Port; 0 picks a free one, printed when ready (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--node-id", description = "This replica's id (default: metasrv-<pid>).")
  String nodeId;

  @Option(names = "--metastore", defaultValue = "rocksdb",
      description = "rocksdb (single replica) or dynamodb (default: ${DEFAULT-VALUE}).")
  Store metastore;

  @Option(names = "--dynamodb-endpoint", description = "DynamoDB endpoint URL (dynalite, VPC).")
  URI dynamodbEndpoint;

  @Option(names = "--dynamodb-table", description = "DynamoDB table (see lake metastore init).")
  String dynamodbTable;

  @Option(names = "--dynamodb-region", defaultValue = "${env:AWS_REGION}",
      description = "AWS region (default: $AWS_REGION).")
  String dynamodbRegion;

  @Option(names = "--access-key", description = "Static access key (test servers).")
  String accessKey;

  @Option(names = "--secret-key", description = "Static secret key, with --access-key.")
  String secretKey;

  @Option(names = "--worker-threads",
      description = "Threads that run registry work (commits wait on the store and the disk);"
          + " default: one per processor, at least 2.")
  Integer workerThreads;
  @Option(names = "--lance-rest-port",
      description = "Also serve the Lance Namespace REST API on this loopback port (0 = a free"
          + " one); only the leader answers, followers answer 503 naming it (default: not served).")
  Integer lanceRestPort;

  @CommandLine.Mixin S3Options s3;

  @CommandLine.Mixin OpsOptions ops;

  @CommandLine.Mixin SecurityOptions security;

  @CommandLine.Mixin ServiceOptions service;

  @Override
  public Integer call() throws InterruptedException {
    ops.check(spec.commandLine());
    security.check(spec.commandLine());
    if (security.principals != null && lanceRestPort == null) {
      return usage("--principals on lake metasrv authenticates the Lance Namespace REST callers"
          + " (--lance-rest-port) only; Flight calls authenticate the service token"
          + " (--service-token-file)");
    }
    Path data = dataDir.toAbsolutePath().normalize();
    Placement placement;
    Map<String, String> engineProperties = Map.of();
    try {
      placement = warehouse != null ? Placement.parse(warehouse)
          : Placement.local(data.resolve("warehouse"));
    } catch (IllegalArgumentException e) {
      return usage("--warehouse: " + e.getMessage());
    }
    if (placement.isLocal() && s3.endpoint != null) {
      return usage("--s3-endpoint needs an s3://bucket/prefix --warehouse, got " + placement);
    }
    if (!placement.isLocal()) {
      try {
        engineProperties = s3.engineProperties();
      } catch (IllegalArgumentException e) {
        return usage(e.getMessage());
      }
    }
    if (workerThreads != null && workerThreads < 1) {
      return usage("--worker-threads must be at least 1, got " + workerThreads);
    }
    if (lanceRestPort != null && (lanceRestPort < 0 || lanceRestPort > 65535)) {
      return usage("--lance-rest-port must be 0..65535, got " + lanceRestPort);
    }
    if (metastore == Store.dynamodb && dynamodbTable == null) {
      return usage("--metastore dynamodb needs --dynamodb-table");
    }
    String node = nodeId != null ? nodeId : "metasrv-" + ProcessHandle.current().pid();
    List<AutoCloseable> opened = new ArrayList<>();
    MetasrvServer server;
    LanceRestServer lanceRest = null;
    Authenticator restAuthenticator;
    try {
      restAuthenticator = security.principals == null ? null : Authenticator.load(security.principals);
    } catch (IllegalArgumentException e) {
      return usage(e.getMessage());
    }
    try {
      BufferAllocator allocator = new RootAllocator();
      opened.add(allocator);
      MetaStore store = switch (metastore) {
        case rocksdb -> RocksDbMetaStore.open(data.resolve("meta"));
        case dynamodb -> DynamoDbMetaStore.open(new DynamoDbSettings(
            Optional.ofNullable(dynamodbEndpoint), dynamodbRegion, dynamodbTable,
            Optional.ofNullable(accessKey), Optional.ofNullable(secretKey)));
      };
      opened.add(store);
      Map<String, TableEngine> engines = DevServer.loadEngines(engineProperties);
      opened.addAll(engines.values());
      MetasrvServer.Builder builder = MetasrvServer.builder().store(store).engines(engines)
          .warehouse(placement)
          .allocator(allocator).host(host).port(port).nodeId(node)
          .credentials(service.credentials()).tls(security.tlsFiles());
      if (ops.metricsPort != null) {
        builder.metrics(host, ops.metricsPort);
      }
      if (ops.otlpEndpoint != null && !ops.otlpEndpoint.isBlank()) {
        builder.otlpTraces(java.net.URI.create(ops.otlpEndpoint.trim()));
      }
      if (workerThreads != null) {
        builder.workerThreads(workerThreads);
      }
      server = builder.build();
      opened.add(server);
      server.start();
      if (lanceRestPort != null) {
        MetasrvServer authority = server;
        java.util.function.Function<dev.lake.engine.TableLocation, Map<String, String>> options =
            LanceStorageOptions.of(engineProperties);
        lanceRest = LanceRestServer.start(new LanceRestServer.Access() {
          @Override
          public <T> T apply(java.util.function.Function<LanceNamespaces, T> operation) {
            return authority.withLeaderCatalog(catalog -> operation.apply(new LanceNamespaces(catalog, options)));
          }
        }, host, lanceRestPort, CatalogCache.DEFAULT_REFRESH_INTERVAL, restAuthenticator);
        opened.add(lanceRest);
      }
    } catch (RuntimeException e) {
      closeAll(opened);
      spec.commandLine().getErr().println("lake metasrv: " + e.getMessage());
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("lake metasrv: stopping (draining writes, then resigning the lease)");
      closeAll(opened);
      stopped.countDown();
    }, "lake-metasrv-shutdown"));
    System.out.println("metasrv listening on " + host + ":" + server.port() + ", "
        + (server.isLeader() ? "leader" : "follower") + " (node " + node + ", " + metastore + ")");
    if (lanceRest != null) {
      System.out.println("lake metasrv: Lance Namespace REST on http://" + host + ":" + lanceRest.port());
    }
    if (ops.metricsPort != null) {
      System.out.println("lake metasrv: metrics on http://" + host + ":" + server.metricsPort()
          + "/metrics");
    }
    System.out.flush();
    stopped.await();
    return 0;
  }

  private int usage(String message) {
    spec.commandLine().getErr().println("lake metasrv: " + message);
    return 2;
  }

  static void closeAll(List<AutoCloseable> opened) {
    for (int i = opened.size() - 1; i >= 0; i--) {
      try {
        opened.get(i).close();
      } catch (Exception e) {
        System.err.println("lake: closing " + opened.get(i).getClass().getSimpleName()
            + " failed: " + e.getMessage());
      }
    }
    opened.clear();
  }
}
