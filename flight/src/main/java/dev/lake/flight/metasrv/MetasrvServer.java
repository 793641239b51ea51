package dev.lake.flight.metasrv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import com.google.protobuf.MessageOrBuilder;
import dev.lake.catalog.Placement;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.TableEngine;
import dev.lake.flight.FlightIpc;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.lease.LeaseSettings;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import dev.lake.flight.ops.Health;
import dev.lake.flight.ops.OpsEndpoint;
import dev.lake.flight.ops.ServerMetrics;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.GrpcServerRequest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metasrv, the registry authority's Flight control plane: a Vert.x gRPC server for {@code
 * arrow.flight.protocol.FlightService} answering {@code DoAction} (engines, snapshot, lookup,
 * create/drop namespace, create/drop table, replace with empty) and {@code DoPut} append streams
 * (append, create with rows, replace), with the wire format of {@link MetasrvClient}.
 *
 * <p>Replicas sharing one {@link MetaStore} elect a leader by the lease {@code lease/metasrv};
 * the leader serves from its {@link dev.lake.catalog.Catalog}, fenced by its epoch; followers
 * forward every call to the leader, and answer {@code UNAVAILABLE} when none is known. The event
 * loop only decodes and writes; registry work runs on a bounded worker pool. Statuses: see
 * docs/metasrv.md.
 */
public final class MetasrvServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(MetasrvServer.class);
  private static final ServiceName SERVICE =
      ServiceName.create("arrow.flight.protocol", "FlightService");

  private final Builder config;
  private final BufferAllocator allocator;
  private final ThreadPoolExecutor workers;
  private final Admission admission;
  private final Vertx vertx = Vertx.vertx();
  private final Health health;
  private final dev.lake.flight.ops.CallTracing tracing;
  private final io.opentelemetry.sdk.OpenTelemetrySdk ownedTelemetry;
  private final ServerMetrics metrics;
  private HttpServer http;
  private OpsEndpoint ops;
  private volatile Leadership leadership;
  private boolean closed;

  private MetasrvServer(Builder builder) {
    this.config = builder;
    this.allocator = builder.allocator.newChildAllocator("metasrv", 0, Long.MAX_VALUE);
    AtomicInteger threads = new AtomicInteger();
    this.workers = new ThreadPoolExecutor(builder.workerThreads, builder.workerThreads, 0,
        TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(builder.workerQueue), task -> {
          Thread thread = new Thread(task, "metasrv-worker-" + threads.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
    this.admission = new Admission(builder.maxConcurrentAppends, builder.maxBufferedBytes);
    // Ready: leading, or following a leader it can forward to.
    this.health = Health.of(() -> leaderAddress().isPresent(),
        Set.of(SERVICE.fullyQualifiedName()));
    Set<String> methods = Stream.concat(
        Stream.of("Handshake", "ListActions", "GetFlightInfo", "GetSchema", "DoGet", "DoPut",
            "DoAction", "ListFlights", "PollFlightInfo", "DoExchange").map(SERVICE::pathOf),
        Stream.of("/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"))
        .collect(Collectors.toUnmodifiableSet());
    this.metrics = ServerMetrics.create("metasrv", methods);
    this.ownedTelemetry = builder.otlpEndpoint == null ? null
        : dev.lake.flight.ops.CallTracing.otlp(builder.otlpEndpoint, "lake-metasrv");
    this.tracing = dev.lake.flight.ops.CallTracing.create(ownedTelemetry == null
        ? builder.openTelemetry : ownedTelemetry, methods);
    metrics.registry().gauge("lake_metasrv_leader", this, server -> server.isLeader() ? 1 : 0);
    metrics.registry().gauge("lake_workers_active", workers, ThreadPoolExecutor::getActiveCount);
    metrics.registry().gauge("lake_workers_queued", workers, w -> w.getQueue().size());
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds the listener, then starts campaigning for the lease; returns once it accepts calls
   * (as leader or follower: see {@link #isLeader()}).
   *
   * @throws IllegalStateException if already started, closed, or the address cannot be bound
   */
  public synchronized void start() {
    if (http != null || closed) {
      throw new IllegalStateException(closed ? "server is closed" : "server already started");
    }
    GrpcServer grpc = GrpcServer.server(vertx,
        new GrpcServerOptions().setMaxMessageSize(config.maxStreamBytes + (1 << 20)));
    register(grpc);
    health.register(grpc);
    dev.lake.flight.auth.ListenerPolicy.check(config.host, config.credentials.token() != null,
        config.tls != null);
    HttpServerOptions options = new HttpServerOptions().setHost(config.host).setPort(config.port);
    if (config.tls != null) {
      config.tls.apply(options);
    }
    HttpServer server = vertx.createHttpServer(options).requestHandler(metrics.instrument(
        dev.lake.flight.auth.AuthGate.wrap(config.credentials.serverCheck(), grpc), tracing));
    try {
      server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot listen on " + config.host + ":" + config.port
          + ": " + (e.getCause() == null ? e : e.getCause()).getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while binding", e);
    }
    http = server;
    String self = config.host + ":" + server.actualPort();
    leadership = new Leadership(config.store, config.engines, config.warehouse, config.lease,
        config.clock, allocator, config.nodeId, self, new Leadership.Maintenance(
            config.maintenanceInterval, config.maintenancePolicy, 100), config.credentials);
    leadership.step();
    if (config.campaign) {
      leadership.start();
    }
    if (config.metricsPort >= 0) {
      ops = OpsEndpoint.start(vertx, config.metricsHost, config.metricsPort, metrics, health);
    }
    LOG.info("metasrv {} listening on {} as {}", config.nodeId, self,
        leadership.isLeader() ? "leader" : "follower");
  }

  /**
   * Runs {@code call} on the registry's catalog while this replica leads it, for the Lance
   * Namespace REST binding, which needs the authority itself; a follower refuses.
   *
   * @throws dev.lake.catalog.RegistryUnavailableException if this replica does not lead (or has
   *     not started)
   */
  public <T> T withLeaderCatalog(java.util.function.Function<dev.lake.catalog.Catalog, T> call) {
    Leadership current = leadership;
    if (current == null) {
      throw new dev.lake.catalog.RegistryUnavailableException("this Metasrv replica has not started");
    }
    return current.runLeading(call);
  }

  /** The bound port. */
  public synchronized int port() {
    if (http == null) {
      throw new IllegalStateException("server not started");
    }
    return http.actualPort();
  }

  /**
   * The port of the metrics and health endpoint.
   *
   * @throws IllegalStateException if not started or built without one
   */
  public synchronized int metricsPort() {
    if (ops == null) {
      throw new IllegalStateException("no metrics endpoint: built without metrics or not started");
    }
    return ops.port();
  }

  /** The server's metrics, to add meters to. */
  public ServerMetrics metrics() {
    return metrics;
  }

  /** Whether this replica leads the registry now. */
  public boolean isLeader() {
    return leadership != null && leadership.isLeader();
  }

  /** The leader's {@code host:port} as last observed (this replica's own when leading). */
  public Optional<String> leaderAddress() {
    return leadership == null ? Optional.empty() : leadership.leaderAddress();
  }

  /** Appends admitted and not yet finished; for tests. */
  int appendsInProgress() {
    return admission.appendsInProgress(config.maxConcurrentAppends);
  }

  /** One maintenance pass now, if leading; the tables it advanced (tests). */
  int maintainNow() {
    return leadership.maintain();
  }

  /** One election step now, beside the periodic ones (tests drive elections with it). */
  void campaignNow() {
    leadership.step();
  }

  /**
   * Stops as a crashed process would: closes the listener at once and stops campaigning without
   * resigning, so the lease runs out after its TTL (tests of failover).
   */
  synchronized void kill() {
    if (closed) {
      return;
    }
    closed = true;
    if (leadership != null) {
      leadership.abandon();
    }
    await(vertx.close(), 10_000, "stopping Vert.x");
    workers.shutdownNow();
    if (ownedTelemetry != null) {
      ownedTelemetry.close();
    }
    allocator.close();
  }

  /**
   * Graceful stop: stops accepting calls, lets accepted ones (writes included) finish within the
   * shutdown grace while still holding the lease, then resigns it and releases everything.
   * Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    health.drain();
    long grace = config.shutdownGrace.toMillis();
    if (http != null) {
      await(http.shutdown(grace, TimeUnit.MILLISECONDS), grace + 5_000, "stopping the listener");
    }
    workers.shutdown();
    try {
      if (!workers.awaitTermination(grace, TimeUnit.MILLISECONDS)) {
        workers.shutdownNow();
        workers.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (leadership != null) {
      leadership.close();
    }
    if (ops != null) {
      ops.close();
    }
    await(vertx.close(), 10_000, "stopping Vert.x");
    if (ownedTelemetry != null) {
      ownedTelemetry.close(); // flushes spans still buffered
    }
    allocator.close();
    LOG.info("metasrv {} stopped", config.nodeId);
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

  // ---- the Flight service ------------------------------------------------------------------

  private void register(GrpcServer grpc) {
    grpc.callHandler(MetasrvServer.<Flight.HandshakeRequest, Flight.HandshakeResponse>method(
        "Handshake", Flight.HandshakeRequest.getDefaultInstance()), request -> {
          request.handler(m -> request.response().write(Flight.HandshakeResponse.newBuilder()
              .setProtocolVersion(m.getProtocolVersion()).build()));
          request.endHandler(v -> request.response().end());
        });
    grpc.callHandler(MetasrvServer.<Flight.Empty, Flight.ActionType>method("ListActions",
        Flight.Empty.getDefaultInstance()), request -> request.last().onSuccess(v -> {
          MetasrvProtocol.ACTIONS.forEach(type -> request.response()
              .write(Flight.ActionType.newBuilder().setType(type).build()));
          request.response().end();
        }));
    grpc.callHandler(MetasrvServer.<Flight.Action, Flight.Result>method("DoAction",
        Flight.Action.getDefaultInstance()), this::doAction);
    grpc.callHandler(ServiceMethod.server(SERVICE, "DoPut",
        GrpcMessageEncoder.<Flight.PutResult>encoder(), FlightIpc.putDecoder()), request -> {
          Leadership current = leadership;
          if (current == null) {
            MetasrvStatus.toStatus(starting()).answer(request.response());
            return;
          }
          java.util.concurrent.Executor callWorkers;
          try {
            callWorkers = callerWorkers(request);
          } catch (RuntimeException e) {
            MetasrvStatus.toStatus(e).answer(request.response());
            return;
          }
          new AppendCall(Vertx.currentContext(), callWorkers, request, admission, current,
              allocator, config.maxStreamBytes).start();
        });
    for (String name : new String[] {"GetFlightInfo", "GetSchema", "PollFlightInfo"}) {
      grpc.callHandler(MetasrvServer.<Flight.FlightDescriptor, Flight.FlightInfo>method(name,
          Flight.FlightDescriptor.getDefaultInstance()), request -> unimplemented(request, name));
    }
    grpc.callHandler(MetasrvServer.<Flight.Ticket, Flight.FlightData>method("DoGet",
        Flight.Ticket.getDefaultInstance()), request -> unimplemented(request, "DoGet"));
    grpc.callHandler(MetasrvServer.<Flight.Criteria, Flight.FlightInfo>method("ListFlights",
        Flight.Criteria.getDefaultInstance()), request -> unimplemented(request, "ListFlights"));
  }

  private static <Req extends MessageOrBuilder, Resp extends MessageLite>
      ServiceMethod<Req, Resp> method(String name, Req prototype) {
    return ServiceMethod.server(SERVICE, name, GrpcMessageEncoder.encoder(),
        GrpcMessageDecoder.decoder(prototype));
  }

  private static void unimplemented(GrpcServerRequest<?, ?> request, String name) {
    MetasrvStatus.Refusal.of(GrpcStatus.UNIMPLEMENTED, "unimplemented", "Metasrv does not serve "
        + name + "; it answers DoAction and DoPut only").answer(request.response());
  }

  /**
   * The pool, running the call's work as the end principal a Query replica forwarded (trusted:
   * the call passed the service-token gate), so writes re-check its grants and a forward to the
   * leader carries it on; and within the call's trace, which a forward continues.
   *
   * @throws dev.lake.flight.auth.AuthenticationException if the header is malformed
   */
  private java.util.concurrent.Executor callerWorkers(GrpcServerRequest<?, ?> request) {
    return dev.lake.flight.ops.TraceParent.within(
        request.headers().get(dev.lake.flight.ops.TraceParent.HEADER),
        dev.lake.flight.auth.Grants.as(dev.lake.flight.auth.PrincipalHeader.decode(
            request.headers().get(dev.lake.flight.auth.PrincipalHeader.NAME)), workers));
  }

  private void doAction(GrpcServerRequest<Flight.Action, Flight.Result> request) {
    Context context = Vertx.currentContext();
    boolean forwarded = request.headers().contains(MetasrvProtocol.FORWARDED_HEADER);
    java.util.concurrent.Executor callWorkers;
    try {
      callWorkers = callerWorkers(request);
    } catch (RuntimeException e) {
      MetasrvStatus.toStatus(e).answer(request.response());
      return;
    }
    request.last().onSuccess(action -> {
      long bytes = action.getSerializedSize();
      if (!admission.tryReserve(bytes)) {
        MetasrvStatus.Refusal.of(GrpcStatus.RESOURCE_EXHAUSTED, "busy", "this Metasrv holds"
            + " too many buffered control bytes; retry later").answer(request.response());
        return;
      }
      try {
        callWorkers.execute(() -> {
          try {
            byte[] result = runAction(action, forwarded);
            context.runOnContext(v -> request.response().end(Flight.Result.newBuilder()
                .setBody(ByteString.copyFrom(result)).build()));
          } catch (Throwable e) {
            context.runOnContext(v -> MetasrvStatus.toStatus(e).answer(request.response()));
          } finally {
            admission.release(bytes);
          }
        });
      } catch (RejectedExecutionException e) {
        admission.release(bytes);
        MetasrvStatus.toStatus(e).answer(request.response());
      }
    });
  }

  // The listener is bound before the election starts (its port is the lease holder's address).
  private static MetasrvStatus.NoLeaderException starting() {
    return new MetasrvStatus.NoLeaderException("this Metasrv replica is starting; retry");
  }

  private byte[] runAction(Flight.Action action, boolean forwarded) {
    Leadership leadership = this.leadership;
    if (leadership == null) {
      throw starting();
    }
    JsonNode body = action.getBody().isEmpty() ? MetasrvProtocol.object()
        : MetasrvProtocol.parse(action.getBody().toByteArray(), action.getType() + " body");
    ObjectNode result = MetasrvProtocol.object();
    switch (action.getType()) {
      case MetasrvProtocol.ENGINES -> {
        ArrayNode names = result.putArray("engines");
        leadership.run(forwarded, r -> r.engineNames()).forEach(names::add);
      }
      case MetasrvProtocol.SNAPSHOT -> {
        if (body.has("generation")) {
          long generation = body.get("generation").asLong();
          return leadership.run(forwarded, r -> r.snapshotIfChanged(generation)
              .map(s -> MetasrvProtocol.bytes(MetasrvProtocol.snapshot(s)))
              .orElseGet(() -> MetasrvProtocol.bytes(MetasrvProtocol.object()
                  .put("not_modified", true).put("generation", generation))));
        }
        return MetasrvProtocol.bytes(MetasrvProtocol.snapshot(
            leadership.run(forwarded, r -> r.snapshot())));
      }
      case MetasrvProtocol.LOOKUP -> {
        TableIdent ident = MetasrvProtocol.ident(body);
        leadership.run(forwarded, r -> r.lookup(ident))
            .ifPresent(e -> result.set("entry", MetasrvProtocol.entry(e)));
      }
      case MetasrvProtocol.CREATE_NAMESPACE -> {
        String namespace = MetasrvProtocol.text(body, "namespace");
        dev.lake.flight.auth.Grants.checkAdmin(namespace);
        leadership.run(forwarded, r -> {
          r.createNamespace(namespace);
          return null;
        });
      }
      case MetasrvProtocol.DROP_NAMESPACE -> {
        String namespace = MetasrvProtocol.text(body, "namespace");
        dev.lake.flight.auth.Grants.checkAdmin(namespace);
        boolean cascade = body.path("cascade").asBoolean(false);
        leadership.run(forwarded, r -> {
          r.dropNamespace(namespace, cascade);
          return null;
        });
      }
      case MetasrvProtocol.CREATE_TABLE -> {
        TableIdent ident = MetasrvProtocol.ident(body);
        var schema = MetasrvProtocol.schema(body);
        String engine = MetasrvProtocol.text(body, "engine");
        checkWrite(ident);
        result.set("entry", MetasrvProtocol.entry(
            leadership.run(forwarded, r -> r.create(ident, schema, engine))));
      }
      case MetasrvProtocol.REPLACE_WITH_EMPTY -> {
        TableIdent ident = MetasrvProtocol.ident(body);
        var schema = MetasrvProtocol.schema(body);
        checkWrite(ident);
        result.set("entry", MetasrvProtocol.entry(
            leadership.run(forwarded, r -> r.replaceWithEmpty(ident, schema))));
      }
      case MetasrvProtocol.DROP_TABLE -> {
        TableIdent ident = MetasrvProtocol.ident(body);
        checkWrite(ident);
        leadership.run(forwarded, r -> {
          r.drop(ident);
          return null;
        });
      }
      default -> throw new MetasrvProtocol.BadRequestException("unknown Metasrv action '"
          + action.getType() + "'; known: " + String.join(", ", MetasrvProtocol.ACTIONS));
    }
    return MetasrvProtocol.bytes(result);
  }

  static void checkWrite(TableIdent ident) {
    dev.lake.flight.auth.Grants.checkWrite(ident.namespace(), ident.name());
  }

  /** Configures a {@link MetasrvServer}; store, engines, warehouse and allocator are required. */
  public static final class Builder {
    private MetaStore store;
    private dev.lake.flight.auth.ServiceCredentials credentials =
        dev.lake.flight.auth.ServiceCredentials.NONE;
    private dev.lake.flight.auth.TlsFiles tls;
    private Map<String, TableEngine> engines;
    private Placement warehouse;
    private BufferAllocator allocator;
    private String host = "127.0.0.1";
    private int port;
    private String nodeId = "metasrv";
    private LeaseSettings lease = LeaseSettings.DEFAULT;
    private Clock clock = Clock.systemUTC();
    private boolean campaign = true;
    private int workerThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
    private int workerQueue = 1024;
    private int maxConcurrentAppends = 32;
    private long maxStreamBytes = 64L << 20;
    private long maxBufferedBytes = 512L << 20;
    private Duration shutdownGrace = Duration.ofSeconds(10);
    private Duration maintenanceInterval = Duration.ofMinutes(10);
    private dev.lake.engine.MaintenancePolicy maintenancePolicy =
        new dev.lake.engine.MaintenancePolicy(128L << 20, 8, 100, Duration.ofDays(7));
    private String metricsHost = "127.0.0.1";
    private int metricsPort = -1;
    private io.opentelemetry.api.OpenTelemetry openTelemetry =
        io.opentelemetry.api.OpenTelemetry.noop();
    private java.net.URI otlpEndpoint;

    private Builder() {}

    /**
     * The service token every call must carry (also sent on the follower→leader hop) and the CA
     * the leader's certificate is checked against; default {@link
     * dev.lake.flight.auth.ServiceCredentials#NONE} (loopback only).
     */
    public Builder credentials(dev.lake.flight.auth.ServiceCredentials credentials) {
      this.credentials = java.util.Objects.requireNonNull(credentials, "credentials");
      return this;
    }

    /** Serves TLS (mutual TLS with a client CA); default plaintext, loopback only. */
    public Builder tls(dev.lake.flight.auth.TlsFiles tls) {
      this.tls = tls;
      return this;
    }

    /** The shared metadata store; neither opened nor closed by the server. */
    public Builder store(MetaStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** The table engines by name; not closed by the server. */
    public Builder engines(Map<String, TableEngine> engines) {
      this.engines = Map.copyOf(engines);
      return this;
    }

    /** Table files under the local directory {@code warehouse}. */
    public Builder warehouse(Path warehouse) {
      return warehouse(Placement.local(Objects.requireNonNull(warehouse, "warehouse")));
    }

    /** Where table files are placed: a local directory or an S3 bucket and prefix. */
    public Builder warehouse(Placement warehouse) {
      this.warehouse = Objects.requireNonNull(warehouse, "warehouse");
      return this;
    }

    /** The parent of the server's allocator (a child, closed and leak-checked on close). */
    public Builder allocator(BufferAllocator allocator) {
      this.allocator = Objects.requireNonNull(allocator, "allocator");
      return this;
    }

    /** The address to bind and advertise to the other replicas; default 127.0.0.1. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** The port; 0 (default) picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be 0..65535, got " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * This replica's id, unique among the replicas: printable ASCII without spaces or '@'; the
     * lease holder is {@code <node-id>@<host>:<port>}.
     */
    public Builder nodeId(String nodeId) {
      if (nodeId == null || nodeId.isEmpty() || nodeId.length() > 100
          || !nodeId.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '@')) {
        throw new IllegalArgumentException("a node id is 1..100 printable ASCII characters"
            + " without spaces or '@', got '" + nodeId + "'");
      }
      this.nodeId = nodeId;
      return this;
    }

    /** Lease timing; default {@link LeaseSettings#DEFAULT}. */
    public Builder lease(LeaseSettings lease) {
      this.lease = Objects.requireNonNull(lease, "lease");
      return this;
    }

    Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Whether to campaign on a background thread (tests step the election by hand). */
    Builder campaign(boolean campaign) {
      this.campaign = campaign;
      return this;
    }

    public Builder workerThreads(int threads) {
      this.workerThreads = positive(threads, "workerThreads");
      return this;
    }

    /** Appends in progress at once; more are refused {@code RESOURCE_EXHAUSTED}. Default 32. */
    public Builder maxConcurrentAppends(int appends) {
      this.maxConcurrentAppends = positive(appends, "maxConcurrentAppends");
      return this;
    }

    /** The bound of one append stream; default 64 MiB. */
    public Builder maxStreamBytes(long bytes) {
      this.maxStreamBytes = positive(bytes, "maxStreamBytes");
      return this;
    }

    /** Control bytes all calls may hold buffered together; default 512 MiB. */
    public Builder maxBufferedBytes(long bytes) {
      this.maxBufferedBytes = positive(bytes, "maxBufferedBytes");
      return this;
    }

    /**
     * Records a server span per call with {@code openTelemetry} (the child of the caller's W3C
     * {@code traceparent}); the caller owns and closes it. Default {@link
     * io.opentelemetry.api.OpenTelemetry#noop()}.
     */
    public Builder tracing(io.opentelemetry.api.OpenTelemetry openTelemetry) {
      this.openTelemetry = java.util.Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /**
     * Exports a span per call to the OTLP/HTTP collector at {@code endpoint} as service {@code
     * lake-metasrv}; the server owns the exporter and flushes it on close. Default: none.
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
     * {@code host:port} (0 picks a free port); default: none.
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
     * How often the leader maintains every table (compaction, then expiry of versions) and
     * expires finished operation records, in pages; default every 10 minutes with: compact once 8
     * files are under 128 MiB, keep the newest 100 versions and every version younger than 7 days.
     */
    public Builder maintenance(Duration interval, dev.lake.engine.MaintenancePolicy policy) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("maintenance interval must be > 0, got " + interval);
      }
      this.maintenanceInterval = interval;
      this.maintenancePolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** How long {@link MetasrvServer#close()} lets accepted calls finish; default 10 s. */
    public Builder shutdownGrace(Duration grace) {
      this.shutdownGrace = Objects.requireNonNull(grace, "grace");
      return this;
    }

    public MetasrvServer build() {
      if (store == null || engines == null || engines.isEmpty() || warehouse == null
          || allocator == null) {
        throw new IllegalStateException("store, engines, warehouse and allocator are required");
      }
      return new MetasrvServer(this);
    }

    private static int positive(int value, String what) {
      if (value <= 0) {
        throw new IllegalArgumentException(what + " must be > 0, got " + value);
      }
      return value;
    }

    private static long positive(long value, String what) {
      if (value <= 0) {
        throw new IllegalArgumentException(what + " must be > 0, got " + value);
      }
      return value;
    }
  }
}
