package dev.lake.flight.ops;

import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.BooleanSupplier;

/**
 * A server's health in the standard gRPC health protocol ({@code grpc.health.v1.Health}, as
 * load balancers and {@code grpc_health_probe} ask it) and for the HTTP probes of
 * {@link OpsEndpoint}.
 *
 * <p>Live means the process answers. Ready means it should be sent work: its readiness condition
 * holds (a Query replica has its first catalog snapshot; a Metasrv has a usable lease or a leader
 * to forward to) and it is not draining. {@link #drain()} turns readiness off for good, first
 * thing on shutdown, so balancers stop routing new calls while accepted ones finish. Thread-safe.
 */
public final class Health {

  /** The health service's gRPC name. */
  static final ServiceName SERVICE = ServiceName.create("grpc.health.v1.Health");

  private final BooleanSupplier condition;
  private final Set<String> services;
  private final Set<GrpcServerResponse<HealthCheckRequest, HealthCheckResponse>> watchers =
      new CopyOnWriteArraySet<>();
  private volatile boolean draining;

  private Health(BooleanSupplier condition, Set<String> services) {
    this.condition = condition;
    this.services = Set.copyOf(services);
  }

  /**
   * @param condition whether the server can do its work now; asked on every check, so it must be
   *     cheap and must not block
   * @param services the gRPC service names the server hosts, answerable by name besides the
   *     whole server ({@code ""}); any other name is {@code NOT_FOUND}
   */
  public static Health of(BooleanSupplier condition, Set<String> services) {
    return new Health(Objects.requireNonNull(condition, "condition"), services);
  }

  /** Whether the server should be sent work: its condition holds and it is not draining. */
  public boolean ready() {
    return !draining && condition.getAsBoolean();
  }

  /** Stops being ready, for good: the server is shutting down. Watchers are told at once. */
  public void drain() {
    draining = true;
    for (GrpcServerResponse<HealthCheckRequest, HealthCheckResponse> watcher : watchers) {
      watcher.write(response());
    }
  }

  /** Serves {@code grpc.health.v1.Health/Check} and {@code Watch} on {@code server}. */
  public void register(GrpcServer server) {
    server.callHandler(method("Check"), this::check);
    server.callHandler(method("Watch"), this::watch);
  }

  private static ServiceMethod<HealthCheckRequest, HealthCheckResponse> method(String name) {
    return ServiceMethod.server(SERVICE, name, GrpcMessageEncoder.encoder(),
        GrpcMessageDecoder.decoder(HealthCheckRequest.getDefaultInstance()));
  }

  private void check(GrpcServerRequest<HealthCheckRequest, HealthCheckResponse> request) {
    request.last().onComplete(ar -> {
      GrpcServerResponse<HealthCheckRequest, HealthCheckResponse> response = request.response();
      if (ar.failed()) {
        return; // the client went away or sent garbage; Vert.x has answered it
      }
      if (!known(ar.result().getService())) {
        response.status(GrpcStatus.NOT_FOUND)
            .statusMessage("unknown service '" + excerpt(ar.result().getService())
                + "'; this server hosts " + services)
            .end();
        return;
      }
      response.end(response());
    });
  }

  /**
   * The current status, then one more whenever draining begins. (Readiness that comes and goes
   * with its condition is seen by polling {@code Check}; watchers learn of the drain.)
   */
  private void watch(GrpcServerRequest<HealthCheckRequest, HealthCheckResponse> request) {
    request.last().onComplete(ar -> {
      GrpcServerResponse<HealthCheckRequest, HealthCheckResponse> response = request.response();
      if (ar.failed()) {
        return;
      }
      if (!known(ar.result().getService())) {
        response.write(HealthCheckResponse.newBuilder()
            .setStatus(ServingStatus.SERVICE_UNKNOWN).build());
        return;
      }
      watchers.add(response);
      response.exceptionHandler(error -> watchers.remove(response));
      request.connection().closeHandler(v -> watchers.remove(response));
      response.write(response());
    });
  }

  private boolean known(String service) {
    return service.isEmpty() || services.contains(service);
  }

  private HealthCheckResponse response() {
    return HealthCheckResponse.newBuilder()
        .setStatus(ready() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING)
        .build();
  }

  private static String excerpt(String text) {
    return text.length() <= 100 ? text : text.substring(0, 100) + "...";
  }
}
