package dev.lake.cli;

import dev.lake.catalog.CatalogCache;
import dev.lake.engine.TableEngine;
import dev.lake.flight.CatalogSqlCatalog;
import dev.lake.flight.LakeFlightServer;
import dev.lake.flight.metasrv.MetasrvClient;
import dev.lake.sql.SqlEngine;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lake query}: one stateless Query replica over the Metasrv tier. */
@Command(
    name = "query",
    mixinStandardHelpOptions = true,
    description = {
      "Runs one Query replica: Flight SQL over a catalog cache whose authority is Metasrv.",
      "",
      "Table files are read where the registry places them. Not ready until the cache holds",
      "a first snapshot; writes go to the Metasrv leader. Stop with Ctrl-C or SIGTERM."
    })
final class QueryCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--metasrv", required = true,
      description = "Metasrv replicas, host:port[,host:port...].")
  String metasrv;

  @Option(names = "--data-dir", required = true,
      description = "This replica's working directory (created if missing).")
  Path dataDir;

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Address to listen on; other than loopback it needs --principals and"
          + " --tls-cert/--tls-key (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", defaultValue = "0",
      description = "Flight SQL port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
  int port;

  @CommandLine.Mixin S3Options s3;

  @CommandLine.Mixin StageOptions stage;

  @CommandLine.Mixin IcebergOptions iceberg;

  @CommandLine.Mixin OpsOptions ops;

  @CommandLine.Mixin TicketOptions tickets;
  @CommandLine.Mixin SecurityOptions security;

  @CommandLine.Mixin ServiceOptions service;

  @CommandLine.Mixin AdmissionOptions admission;

  @Override
  public Integer call() throws Exception {
    ops.check(spec.commandLine());
    security.check(spec.commandLine());
    admission.check(spec.commandLine());
    try {
      security.checkListener(host);
    } catch (IllegalStateException e) {
      spec.commandLine().getErr().println("lake query: " + e.getMessage());
      return 2;
    }
    List<URI> endpoints;
    try {
      endpoints = MetasrvClient.endpoints(metasrv);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("lake query: --metasrv: " + e.getMessage());
      return 2;
    }
    Map<String, String> engineProperties;
    URI stageRoot;
    java.util.Optional<dev.lake.iceberg.IcebergSettings> icebergSettings;
    try {
      engineProperties = s3.engineProperties();
      stageRoot = stage.root(null);
      icebergSettings = iceberg.settings();
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("lake query: " + e.getMessage());
      return 2;
    }
    List<AutoCloseable> opened = new ArrayList<>();
    LakeFlightServer server;
    try {
      Files.createDirectories(dataDir);
      BufferAllocator allocator = new RootAllocator();
      opened.add(allocator);
      Map<String, TableEngine> engines = DevServer.loadEngines(engineProperties);
      opened.addAll(engines.values());
      MetasrvClient authority = MetasrvClient.connect(endpoints, allocator,
          Duration.ofSeconds(30), service.credentials());
      opened.add(authority);
      CatalogCache cache = CatalogCache.start(authority, engines);
      opened.add(cache);
      QueryLimits limits = QueryLimits.defaults();
      LakeFlightServer.Builder builder = LakeFlightServer.builder().registry(cache).role("query")
          .sqlEngine(new SqlEngine(new CatalogSqlCatalog(cache,
              DevServer.federated(icebergSettings, opened)), limits.memoryBytes(), limits.threads()))
          .allocator(allocator).host(host).port(port).tickets(tickets.sealer());
      if (stageRoot != null) {
        builder.stage(stageRoot, s3.endpoint == null ? null : URI.create(s3.endpoint.trim()),
            s3.region == null || s3.region.isBlank() ? "us-east-1" : s3.region.trim(),
            s3.endpoint != null);
      }
      if (ops.metricsPort != null) {
        builder.metrics(host, ops.metricsPort);
      }
      server = ops.apply(admission.apply(security.apply(builder))).build();
      opened.add(server);
      if (!cache.awaitReady(Duration.ofSeconds(60))) {
        throw new IllegalStateException("no catalog snapshot from Metasrv " + metasrv
            + " within 60 s");
      }
      server.start();
    } catch (RuntimeException | java.io.IOException e) {
      MetasrvCommand.closeAll(opened);
      spec.commandLine().getErr().println("lake query: " + e.getMessage());
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("lake query: stopping");
      MetasrvCommand.closeAll(opened);
      stopped.countDown();
    }, "lake-query-shutdown"));
    System.out.println("lake query: Flight SQL on " + host + ":" + server.port()
        + " over metasrv " + metasrv);
    System.out.println("lake query: JDBC URL " + security.jdbcUrl(host, server.port()));
    if (ops.metricsPort != null) {
      System.out.println("lake query: metrics on http://" + host + ":" + server.metricsPort()
          + "/metrics");
    }
    System.out.println("lake query: ready");
    System.out.flush();
    stopped.await();
    return 0;
  }
}
