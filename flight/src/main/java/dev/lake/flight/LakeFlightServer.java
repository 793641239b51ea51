package dev.lake.flight;

import dev.lake.catalog.CatalogCache;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.StatementLimits;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import dev.lake.flight.ops.Health;
import dev.lake.flight.ops.OpsEndpoint;
import dev.lake.flight.ops.ServerMetrics;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * lake's Arrow Flight SQL server: a Vert.x gRPC server for {@code arrow.flight.protocol
 * .FlightService} serving queries, prepared statements, catalog metadata and bulk ingest over
 * one {@link CatalogCache} and {@link SqlEngine}.
 *
 * <p>The event loops only decode, dispatch and write; planning, execution, registry reads and
 * ingest run on a bounded pool of worker threads (a full pool answers {@code
 * RESOURCE_EXHAUSTED}). No authentication yet, so the default bind address is loopback.
 *
 * <pre>{@code
 * try (LakeFlightServer server = LakeFlightServer.builder()
 *     .registry(cache).sqlEngine(new SqlEngine(new CatalogSqlCatalog(cache)))
 *     .allocator(root).port(0).build()) {
 *   server.start();
 *   // jdbc:arrow-flight-sql://127.0.0.1:<server.port()>/?useEncryption=false
 * }
 * }</pre>
 */
public final class LakeFlightServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LakeFlightServer.class);
  static final long DEFAULT_WORKER_STACK_BYTES = 64L << 20;
  /** Version reported in GetSqlInfo. */
  static final String VERSION = "0.1.0";
  /** Queries running at once, by default. */
  public static final int DEFAULT_MAX_CONCURRENT_QUERIES = 64;
  /** Queries of one tenant running at once, by default. */
  public static final int DEFAULT_MAX_QUERIES_PER_TENANT = 16;
  /** Queries waiting for admission, by default. */
  public static final int DEFAULT_MAX_QUEUED_QUERIES = 1024;
  /** The longest a query waits for admission, by default. */
  public static final Duration DEFAULT_MAX_QUEUE_WAIT = Duration.ofSeconds(30);

  private final Builder config;
  private final BufferAllocator allocator;
  private final FairWorkers workers;
  private final Vertx vertx;
  private final Health health;
  private final ServerMetrics metrics;
  private final dev.lake.flight.ops.CallTracing tracing;
  /** The OTLP exporter's SDK this server made ({@link Builder#otlpTraces}), closed with it. */
  private final io.opentelemetry.sdk.OpenTelemetrySdk ownedTelemetry;
  /** Signs {@code lake.presign} URLs; null without a stage. */
  private PresignAction presign;
  private final QueryAdmission admission;
  private final QueryMeters queryMeters;
  private HttpServer http;
  private OpsEndpoint ops;
  private int port = -1;
  private boolean closed;

  private LakeFlightServer(Builder builder) {
    this.config = builder;
    this.allocator = builder.allocator.newChildAllocator("lake-flight-server", 0, Long.MAX_VALUE);
    AtomicInteger threads = new AtomicInteger();
    this.workers = new FairWorkers(builder.workerThreads, builder.workerQueue, task -> {
          // A stated stack, so the statement limits' depth is measured against a known size.
          Thread thread = new Thread(null, task, "lake-flight-worker-" + threads.incrementAndGet(),
              builder.workerStackBytes);
          thread.setDaemon(true);
          return thread;
        });
    this.vertx = Vertx.vertx(builder.vertxOptions);
    CatalogCache registry = builder.registry;
    BooleanSupplier readiness = builder.readiness;
    this.health = Health.of(() -> registry.isReady() && readiness.getAsBoolean(),
        Set.of(FlightSqlService.SERVICE.fullyQualifiedName()));
    this.metrics = ServerMetrics.create(builder.role, FlightSqlService.METHOD_PATHS);
    this.queryMeters = new QueryMeters(metrics.registry());
    this.ownedTelemetry = builder.otlpEndpoint == null ? null
        : dev.lake.flight.ops.CallTracing.otlp(builder.otlpEndpoint, "lake-" + builder.role);
    this.tracing = dev.lake.flight.ops.CallTracing.create(
        ownedTelemetry != null ? ownedTelemetry : builder.openTelemetry,
        FlightSqlService.METHOD_PATHS);
    Vertx timers = vertx;
    this.admission = new QueryAdmission(builder.maxConcurrentQueries, builder.maxQueriesPerTenant,
        builder.maxQueuedQueries, builder.maxQueueWait.toMillis(), (delay, task) -> {
          long id = timers.setTimer(delay, t -> task.run());
          return () -> timers.cancelTimer(id);
        }, queryMeters);
    queryMeters.watch(admission);
    metrics.registry().gauge("lake_workers_active", workers, FairWorkers::active);
    metrics.registry().gauge("lake_workers_queued", workers, FairWorkers::queued);
    metrics.registry().gauge("lake_arrow_allocated_bytes", allocator,
        BufferAllocator::getAllocatedMemory);
    metrics.registry().more().counter("lake_catalog_cache_hits", java.util.List.of(), registry,
        r -> r.stats().hits());
    metrics.registry().more().counter("lake_catalog_cache_misses", java.util.List.of(), registry,
        r -> r.stats().misses());
    metrics.registry().more().counter("lake_catalog_authority_calls", java.util.List.of(),
        registry, r -> r.stats().authorityCalls());
    metrics.registry().more().counter("lake_catalog_refreshes", java.util.List.of(), registry,
        r -> r.stats().refreshes());
    metrics.registry().gauge("lake_catalog_snapshot_age_seconds", registry,
        r -> r.stats().snapshotAge().map(age -> age.toMillis() / 1000.0).orElse(Double.NaN));
  }

  /**
   * Vert.x ends an HTTP/2 response that wrote no body with {@code content-length: 0} in its
   * headers, and the gRPC trailers after them; nginx's {@code grpc_pass} then ends the stream at
   * the headers and drops the trailers (clients see "missing GRPC status" for a successful call
   * that returns no messages, such as ClosePreparedStatement). gRPC never needs the header (its
   * messages are length-prefixed), so it is taken out as the headers go.
   */
  private static io.vertx.core.Handler<io.vertx.core.http.HttpServerRequest> withoutContentLength(
      io.vertx.core.Handler<io.vertx.core.http.HttpServerRequest> calls) {
    return request -> {
      io.vertx.core.http.HttpServerResponse response = request.response();
      response.headersEndHandler(v -> response.headers().remove("content-length"));
      DoGetResponses.handle(request, calls);
    };
  }

  /** The sealer of this server's tickets and handles (tests forge envelopes with it). */
  dev.lake.flight.ticket.TicketSealer sealer() {
    return config.tickets();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds the listener and returns once it accepts connections.
   *
   * @throws IllegalStateException if already started or closed
   * @throws FlightServerException if the address cannot be bound (in use, not local); the
   *     server is then unusable and should be closed
   */
  public synchronized void start() {
    if (http != null || closed) {
      throw new IllegalStateException(closed ? "server is closed" : "server already started");
    }
    dev.lake.flight.auth.ListenerPolicy.check(config.host, config.authenticator != null, config.tls != null);
    FlightSqlService service = new FlightSqlService(config.sqlEngine,
        new MetadataCommands(config.registry, config.sqlEngine.federatedCatalogs(), SqlInfos.create(VERSION)), new Ingestor(config.registry), workers,
        allocator, config.maxIngestBytes, config.maxBytesInFlight, config.queryTimeout,
        config.statementLimits, new Tickets(config.tickets(), config.registry),
        config.authenticator, admission, queryMeters);
    if (config.stageRoot != null) {
      presign = new PresignAction(config.stageRoot, config.s3Endpoint, config.s3Region,
          config.s3PathStyle, config.presignCredentials != null ? config.presignCredentials
              : software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider.builder().build());
      service.stage(new StageAction(config.stageRoot, config.s3Endpoint, config.s3Region,
          config.s3PathStyle), presign);
    }
    GrpcServer grpc = GrpcServer.server(vertx,
        new GrpcServerOptions().setMaxMessageSize(config.maxMessageBytes));
    service.register(grpc);
    health.register(grpc);
    HttpServerOptions options = new HttpServerOptions().setHost(config.host).setPort(config.port);
    if (config.tls != null) {
      config.tls.apply(options);
    }
    HttpServer server = vertx.createHttpServer(options)
        .requestHandler(metrics.instrument(dev.lake.flight.auth.AuthGate.wrap(config.authenticator,
            withoutContentLength(grpc)), tracing));
    try {
      server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new FlightServerException("cannot listen on " + config.host + ":" + config.port
          + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new FlightServerException("timed out binding " + config.host + ":" + config.port, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlightServerException("interrupted while binding", e);
    }
    http = server;
    port = server.actualPort();
    if (config.metricsPort >= 0) {
      ops = OpsEndpoint.start(vertx, config.metricsHost, config.metricsPort, metrics, health);
    }
    LOG.info("lake Flight SQL server listening on {}:{}", config.host, port);
  }

  /**
   * The port the server listens on (the chosen one when built with port 0).
   *
   * @throws IllegalStateException if not started
   */
  public synchronized int port() {
    if (port < 0) {
      throw new IllegalStateException("server not started");
    }
    return port;
  }

  /**
   * The port of the metrics and health endpoint.
   *
   * @throws IllegalStateException if not started or started without one
   */
  /** The authenticator calls are checked against; null when the server authenticates nobody. */
  public dev.lake.flight.auth.Authenticator authenticator() {
    return config.authenticator;
  }

  public synchronized int metricsPort() {
    if (ops == null) {
      throw new IllegalStateException("no metrics endpoint: the server was built without"
          + " metricsPort or is not started");
    }
    return ops.port();
  }

  /** The server's health: readiness, and {@link Health#drain()} at shutdown. */
  public Health health() {
    return health;
  }

  /** The server's metrics, to add meters to (for example the catalog cache's). */
  public ServerMetrics metrics() {
    return metrics;
  }

  /** The server's query admission; for tests. */
  QueryAdmission admission() {
    return admission;
  }

  /** Worker threads running a task now (planning, executing, ingesting); for tests. */
  int activeWorkers() {
    return workers.active();
  }

  /**
   * Stops accepting calls, lets running calls finish for up to the shutdown grace period, then
   * stops the workers and releases the server's memory. Idempotent.
   *
   * @throws IllegalStateException if Arrow memory was still allocated after everything stopped
   *     (a leak; the message lists the allocations)
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    health.drain();
    long graceMillis = config.shutdownGrace.toMillis();
    if (http != null) {
      await(http.shutdown(graceMillis, TimeUnit.MILLISECONDS), graceMillis + 5_000, "stopping the listener");
    }
    workers.shutdown();
    try {
      if (!workers.awaitTermination(graceMillis, TimeUnit.MILLISECONDS)) {
        LOG.warn("workers still busy after {} ms; interrupting them", graceMillis);
        workers.shutdownNow();
        workers.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (ops != null) {
      ops.close();
    }
    await(vertx.close(), 10_000, "stopping Vert.x");
    if (presign != null) {
      presign.close();
    }
    if (ownedTelemetry != null) {
      ownedTelemetry.close(); // flushes spans still buffered
    }
    allocator.close();
    LOG.info("lake Flight SQL server stopped");
  }

  private static void await(io.vertx.core.Future<Void> future, long millis, String what) {
    try {
      future.toCompletionStage().toCompletableFuture().get(millis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("{} did not complete cleanly: {}", what, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The server could not start. */
  public static final class FlightServerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    FlightServerException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Configures a {@link LakeFlightServer}; registry, sqlEngine and allocator are required. */
  public static final class Builder {
    private CatalogCache registry;
    private SqlEngine sqlEngine;
    private BufferAllocator allocator;
    private String host = "127.0.0.1";
    private int port = 0;
    private int workerThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
    private int workerQueue = 4096;
    private long maxIngestBytes = 1L << 30;
    private long maxMessageBytes = 64L << 20;
    private long maxBytesInFlight = 8L << 20;
    private Duration shutdownGrace = Duration.ofSeconds(10);
    private Duration queryTimeout;
    private StatementLimits statementLimits = StatementLimits.DEFAULTS;
    private dev.lake.flight.ticket.TicketSealer tickets;
    private long workerStackBytes = DEFAULT_WORKER_STACK_BYTES;
    private BooleanSupplier readiness = () -> true;
    private String role = "dev";
    private String metricsHost = "127.0.0.1";
    private int metricsPort = -1;
    private io.opentelemetry.api.OpenTelemetry openTelemetry = io.opentelemetry.api.OpenTelemetry.noop();
    private java.net.URI otlpEndpoint;
    private dev.lake.flight.auth.Authenticator authenticator;
    private dev.lake.flight.auth.TlsFiles tls;
    private java.net.URI stageRoot;
    private java.net.URI s3Endpoint;
    private String s3Region;
    private boolean s3PathStyle;
    private software.amazon.awssdk.auth.credentials.AwsCredentialsProvider presignCredentials;
    private int maxConcurrentQueries = DEFAULT_MAX_CONCURRENT_QUERIES;
    private int maxQueriesPerTenant = DEFAULT_MAX_QUERIES_PER_TENANT;
    private int maxQueuedQueries = DEFAULT_MAX_QUEUED_QUERIES;
    private Duration maxQueueWait = DEFAULT_MAX_QUEUE_WAIT;
    private io.vertx.core.VertxOptions vertxOptions = new io.vertx.core.VertxOptions();

    private Builder() {}

    /**
     * The managed object stage named to clients by action {@code lake.stage} ({@code file:} or
     * {@code s3:} URI ending in {@code /}; each tenant's objects lie below {@code
     * tenants/<tenant>/} of it), with the S3 endpoint (null: AWS's own), region and addressing
     * style clients use for an {@code s3:} root; default none (the action answers UNIMPLEMENTED).
     *
     * @throws IllegalArgumentException for a root that is not such a URI
     */
    public Builder stage(java.net.URI root, java.net.URI s3Endpoint, String s3Region,
        boolean s3PathStyle) {
      new StageAction(root, s3Endpoint, s3Region, s3PathStyle);
      this.stageRoot = root;
      this.s3Endpoint = s3Endpoint;
      this.s3Region = s3Region;
      this.s3PathStyle = s3PathStyle;
      return this;
    }

    /**
     * Query admission (docs/query-tier.md): at most {@code maxConcurrent} queries run at once,
     * at most {@code maxPerTenant} of one tenant; a query over a bound waits, tenants taking
     * turns, among at most {@code maxQueued} waiting queries for at most {@code maxWait}, and is
     * otherwise refused with {@code RESOURCE_EXHAUSTED} naming its tenant and the bound. A query
     * is planning (GetFlightInfo, GetSchema, CreatePreparedStatement) or a {@code DoGet} until its
     * stream ends. Defaults {@value #DEFAULT_MAX_CONCURRENT_QUERIES}, {@value
     * #DEFAULT_MAX_QUERIES_PER_TENANT}, {@value #DEFAULT_MAX_QUEUED_QUERIES}, 30 s.
     *
     * @throws IllegalArgumentException if a bound is below 1 ({@code maxQueued} below 0) or the
     *     wait is under 1 ms
     */
    public Builder admission(int maxConcurrent, int maxPerTenant, int maxQueued,
        Duration maxWait) {
      Objects.requireNonNull(maxWait, "maxWait");
      QueryAdmission.checkBounds(maxConcurrent, maxPerTenant, maxQueued, maxWait.toMillis());
      this.maxConcurrentQueries = maxConcurrent;
      this.maxQueriesPerTenant = maxPerTenant;
      this.maxQueuedQueries = maxQueued;
      this.maxQueueWait = maxWait;
      return this;
    }

    /** Vert.x's options (event loops, the blocked-thread checker); for tests. */
    Builder vertxOptions(io.vertx.core.VertxOptions options) {
      this.vertxOptions = Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * Authenticates every call (bearer tokens, basic-auth Handshake) and checks its grants;
     * default none: every caller is {@code Principal.ANONYMOUS}, allowed on loopback only.
     */
    public Builder authenticator(dev.lake.flight.auth.Authenticator authenticator) {
      this.authenticator = authenticator;
      return this;
    }

    /** Serves TLS (and mutual TLS when a client CA is given); default plaintext, loopback only. */
    public Builder tls(dev.lake.flight.auth.TlsFiles tls) {
      this.tls = tls;
      return this;
    }

    /**
     * When the server is ready for work, besides its catalog cache holding a first snapshot, as
     * its gRPC health service and {@code /health/ready} report; default: the cache alone decides. Asked on
     * every health check: it must be cheap and must not block. Readiness ends for good when the
     * server starts closing.
     */
    public Builder readiness(BooleanSupplier readiness) {
      this.readiness = Objects.requireNonNull(readiness, "readiness");
      return this;
    }

    /** The process's role, a tag on every metric: {@code dev} (default), {@code query}. */
    public Builder role(String role) {
      this.role = Objects.requireNonNull(role, "role");
      return this;
    }

    /**
     * The storage credentials action {@code lake.presign} signs GET URLs of an S3 stage with;
     * default: AWS's default chain (environment, profile, instance role), looked up when a URL is
     * first signed (a server without any answers that action UNIMPLEMENTED).
     */
    public Builder stagePresigning(String accessKeyId, String secretAccessKey) {
      this.presignCredentials = software.amazon.awssdk.auth.credentials.StaticCredentialsProvider
          .create(software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
              Objects.requireNonNull(accessKeyId, "accessKeyId"),
              Objects.requireNonNull(secretAccessKey, "secretAccessKey")));
      return this;
    }

    /**
     * Records a server span per call with {@code openTelemetry} (the child of the client's W3C
     * {@code traceparent}; see {@link dev.lake.flight.ops.CallTracing}); the caller owns and
     * closes it. Default {@link io.opentelemetry.api.OpenTelemetry#noop()}.
     */
    public Builder tracing(io.opentelemetry.api.OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /**
     * Exports a span per call to the OTLP/HTTP collector at {@code endpoint} ({@code
     * http://host:4318}) as service {@code lake-<role>}; the server owns the exporter and flushes
     * it on close. Default: no export (incoming trace context is then not recorded).
     *
     * @throws IllegalArgumentException if {@code endpoint} is not an http(s) URI with a host
     */
    public Builder otlpTraces(java.net.URI endpoint) {
      dev.lake.flight.ops.CallTracing.checkEndpoint(endpoint);
      this.otlpEndpoint = endpoint;
      return this;
    }

    /**
     * Serves {@code /metrics} (Prometheus) and {@code /health/live|ready} over HTTP on a loopback
     * {@code host:port} (port 0 picks a free one; see {@link LakeFlightServer#metricsPort()});
     * default: no such endpoint.
     */
    public Builder metrics(String host, int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("metrics port must be 0..65535, got " + port);
      }
      this.metricsHost = Objects.requireNonNull(host, "host");
      this.metricsPort = port;
      return this;
    }

    /**
     * The limits every statement's text is checked against before it is parsed (statement
     * bytes, expression depth, select-list width, list terms, identifier length); default
     * {@link StatementLimits#DEFAULTS}. A statement over one is refused with {@code
     * RESOURCE_EXHAUSTED} (an over-long identifier with {@code INVALID_ARGUMENT}) naming it.
     * Flight SQL commands and action bodies may be at most the statement limit plus
     * {@value FlightSqlService#COMMAND_OVERHEAD_BYTES} bytes.
     *
     * @throws IllegalArgumentException if the statement limit is over 16 MiB (the most a ticket
     *     carries) or does not fit, with its command, in {@link #maxMessageBytes} (checked by
     *     {@link #build()})
     */
    public Builder statementLimits(StatementLimits limits) {
      this.statementLimits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * The stack of each worker thread, which parses and plans statements; default 64 MiB (address
     * space reserved, memory used only as deep as a statement goes). The default expression depth
     * limit was measured to need well under a quarter of it (docs/architecture.md); a smaller stack
     * needs a smaller {@link StatementLimits#maxDepth()}.
     */
    public Builder workerStackBytes(long bytes) {
      this.workerStackBytes = positive(bytes, "workerStackBytes");
      return this;
    }

    /**
     * The registry served, as this process's catalog cache over the registry's authority (the
     * in-process {@code Catalog} in {@code lake dev}, the Metasrv tier otherwise); the server
     * neither starts nor closes it.
     */
    public Builder registry(CatalogCache registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** Plans and runs SQL, normally over {@code new CatalogSqlCatalog(registry)}. */
    public Builder sqlEngine(SqlEngine sqlEngine) {
      this.sqlEngine = Objects.requireNonNull(sqlEngine, "sqlEngine");
      return this;
    }

    /**
     * The allocator the server takes a child of for all its buffers; the child is closed (and so
     * checked for leaks) by {@link LakeFlightServer#close()}. The caller keeps the parent.
     */
    public Builder allocator(BufferAllocator allocator) {
      this.allocator = Objects.requireNonNull(allocator, "allocator");
      return this;
    }

    /** Bind address; default {@code 127.0.0.1} (no authentication yet). */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** Port to listen on; 0 (the default) picks a free one, see {@link LakeFlightServer#port()}. */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be 0..65535, got " + port);
      }
      this.port = port;
      return this;
    }

    /** Threads that plan, execute and ingest; default the number of processors (at least 2). */
    public Builder workerThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("workerThreads must be >= 1, got " + threads);
      }
      this.workerThreads = threads;
      return this;
    }

    /** Tasks that may wait for a worker before calls are refused; default 4096. */
    public Builder workerQueue(int tasks) {
      if (tasks < 1) {
        throw new IllegalArgumentException("workerQueue must be >= 1, got " + tasks);
      }
      this.workerQueue = tasks;
      return this;
    }

    /** Largest ingest payload (IPC headers and bodies); default 1 GiB. */
    public Builder maxIngestBytes(long bytes) {
      this.maxIngestBytes = positive(bytes, "maxIngestBytes");
      return this;
    }

    /** Largest single gRPC message accepted; default 64 MiB. */
    public Builder maxMessageBytes(long bytes) {
      this.maxMessageBytes = positive(bytes, "maxMessageBytes");
      return this;
    }

    /** Result bytes a DoGet may have written but not yet flushed; default 8 MiB. */
    public Builder maxBytesInFlight(long bytes) {
      this.maxBytesInFlight = positive(bytes, "maxBytesInFlight");
      return this;
    }

    /**
     * The longest a query's {@code DoGet} may run, from the call's start to its last batch,
     * when the client sets no shorter gRPC deadline; default none (the client's deadline only).
     * Past it the query stops, its workers exit and the call fails with {@code
     * DEADLINE_EXCEEDED}.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder queryTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("queryTimeout must be > 0, got " + timeout);
      }
      this.queryTimeout = timeout;
      return this;
    }

    /**
     * Seals tickets and prepared-statement handles; replicas that serve each other's tickets share
     * its key ring and audience. Default: a key ring generated at start, audience {@code lake}
     * (tickets redeem on this process only, for as long as it runs).
     */
    public Builder tickets(dev.lake.flight.ticket.TicketSealer sealer) {
      this.tickets = Objects.requireNonNull(sealer, "sealer");
      return this;
    }

    /** The sealer the server uses (the configured one, or the one generated for it). */
    synchronized dev.lake.flight.ticket.TicketSealer tickets() {
      if (tickets == null) {
        dev.lake.flight.ticket.KeyRing ephemeral =
            dev.lake.flight.ticket.KeyRing.generate("ephemeral");
        tickets = new dev.lake.flight.ticket.TicketSealer(() -> ephemeral, "lake");
      }
      return tickets;
    }

    /** How long {@link LakeFlightServer#close()} lets running calls finish; default 10 s. */
    public Builder shutdownGrace(Duration grace) {
      this.shutdownGrace = Objects.requireNonNull(grace, "grace");
      return this;
    }

    /**
     * Creates the server (not yet listening: call {@link LakeFlightServer#start()}).
     *
     * @throws IllegalStateException if registry, sqlEngine or allocator is missing
     */
    public LakeFlightServer build() {
      if (registry == null || sqlEngine == null || allocator == null) {
        throw new IllegalStateException("registry, sqlEngine and allocator are required");
      }
      long statement = statementLimits.maxStatementBytes();
      if (statement > TicketCodec.MAX_TEXT) {
        throw new IllegalArgumentException("the statement limit " + statement
            + " is over the " + TicketCodec.MAX_TEXT + " bytes a ticket carries");
      }
      if (2 * (statement + FlightSqlService.COMMAND_OVERHEAD_BYTES) > maxMessageBytes) {
        throw new IllegalArgumentException("maxMessageBytes " + maxMessageBytes
            + " cannot hold a GetFlightInfo answer (descriptor and ticket) for a statement of "
            + statement + " bytes");
      }
      return new LakeFlightServer(this);
    }

    private static long positive(long value, String what) {
      if (value <= 0) {
        throw new IllegalArgumentException(what + " must be > 0, got " + value);
      }
      return value;
    }
  }
}
