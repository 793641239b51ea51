package dev.lake.flight.ops;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * One server process's metrics, exposed in Prometheus' text format by {@link OpsEndpoint}. Every
 * meter carries the tag {@code role} ({@code query}, {@code metasrv} or {@code dev}). Labels are
 * bounded: gRPC methods outside the served set are counted as {@code other}, statuses by their
 * canonical names.
 *
 * <p>Servers add their own meters through {@link #registry()} (names start with {@code lake_}).
 * Thread-safe.
 */
public final class ServerMetrics {

  private static final String[] STATUS_NAMES = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"
  };

  private final PrometheusMeterRegistry registry;
  private final Set<String> methods;

  private ServerMetrics(String role, Set<String> methods) {
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.registry.config().commonTags("role", role);
    this.methods = Set.copyOf(methods);
  }

  /**
   * @param role the process's role, a tag on every meter
   * @param methods the gRPC methods (full paths, {@code /package.Service/Method}) counted by name
   */
  public static ServerMetrics create(String role, Set<String> methods) {
    return new ServerMetrics(Objects.requireNonNull(role, "role"), methods);
  }

  /** The registry to add a server's own meters to. */
  public MeterRegistry registry() {
    return registry;
  }

  /** Every meter now, in Prometheus' text exposition format. */
  public String scrape() {
    return registry.scrape();
  }

  /**
   * Wraps a server's request handler (a Vert.x gRPC server) so that every call is counted by
   * method and final gRPC status ({@code lake_grpc_calls_total}) and timed from its first byte to
   * its trailers ({@code lake_grpc_call_seconds}).
   */
  public Handler<HttpServerRequest> instrument(Handler<HttpServerRequest> calls) {
    return instrument(calls, null);
  }

  /**
   * As {@link #instrument(Handler)}, each call also a server span of {@code tracing} (null:
   * none). One end handler serves both: a response has only one.
   */
  public Handler<HttpServerRequest> instrument(Handler<HttpServerRequest> calls,
      CallTracing tracing) {
    Objects.requireNonNull(calls, "calls");
    return request -> {
      long start = System.nanoTime();
      String method = methods.contains(request.path()) ? request.path() : "other";
      HttpServerResponse response = request.response();
      Runnable traced = tracing == null ? null : tracing.start(request);
      response.endHandler(v -> {
        record(method, status(response), System.nanoTime() - start);
        if (traced != null) {
          traced.run();
        }
      });
      calls.handle(request);
    };
  }

  private void record(String method, String status, long nanos) {
    Counter.builder("lake_grpc_calls")
        .description("gRPC calls by method and final status")
        .tags("method", method, "status", status)
        .register(registry)
        .increment();
    Timer.builder("lake_grpc_call")
        .description("gRPC call duration, first request byte to trailers")
        .tags("method", method)
        .register(registry)
        .record(Duration.ofNanos(nanos));
  }

  /** The call's gRPC status name: in the trailers, or in the headers of a trailers-only answer. */
  private static String status(HttpServerResponse response) {
    int code = statusCode(response);
    return code < 0 ? (code == -1 ? "none" : "UNKNOWN") : statusName(code);
  }

  /** The call's gRPC status code; -1 if it has none (yet), -2 if it is not a number. */
  static int statusCode(HttpServerResponse response) {
    String code = response.trailers().get("grpc-status");
    if (code == null) {
      code = response.headers().get("grpc-status");
    }
    if (code == null) {
      return -1;
    }
    try {
      return Integer.parseInt(code.trim());
    } catch (NumberFormatException e) {
      return -2;
    }
  }

  /** The name of gRPC status {@code code} (UNKNOWN for one outside the standard range). */
  static String statusName(int code) {
    return code >= 0 && code < STATUS_NAMES.length ? STATUS_NAMES[code] : "UNKNOWN";
  }
}
