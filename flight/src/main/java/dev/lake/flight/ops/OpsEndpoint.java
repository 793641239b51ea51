package dev.lake.flight.ops;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The operator's HTTP endpoint of a server process, on a loopback address only (metrics may
 * name tables; nothing here is authenticated): {@code GET /metrics} (Prometheus text format),
 * {@code GET /health/live} (200 while the process answers) and {@code GET /health/ready} (200
 * when {@link Health#ready()}, else 503). Any other path is 404, any other method 405.
 */
public final class OpsEndpoint implements AutoCloseable {

  private final HttpServer server;

  private OpsEndpoint(HttpServer server) {
    this.server = server;
  }

  /**
   * Listens on {@code host:port} (port 0 picks a free one; see {@link #port()}).
   *
   * @throws IllegalArgumentException if {@code host} is not a loopback address
   * @throws IllegalStateException if the address cannot be bound, naming it
   */
  public static OpsEndpoint start(Vertx vertx, String host, int port, ServerMetrics metrics,
      Health health) {
    Objects.requireNonNull(metrics, "metrics");
    Objects.requireNonNull(health, "health");
    requireLoopback(host);
    HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port))
        .requestHandler(request -> answer(request, metrics, health));
    try {
      server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IllegalStateException("cannot serve metrics on " + host + ":" + port + ": "
          + cause.getMessage(), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while binding the metrics port", e);
    }
    return new OpsEndpoint(server);
  }

  /** The port it listens on. */
  public int port() {
    return server.actualPort();
  }

  @Override
  public void close() {
    try {
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // closing a listener fails only if it is already gone
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void answer(HttpServerRequest request, ServerMetrics metrics, Health health) {
    String path = request.path();
    boolean known = path.equals("/metrics") || path.equals("/health/live")
        || path.equals("/health/ready");
    if (!known) {
      request.response().setStatusCode(404).end("not found; try /metrics, /health/live or"
          + " /health/ready\n");
      return;
    }
    if (request.method() != HttpMethod.GET && request.method() != HttpMethod.HEAD) {
      request.response().setStatusCode(405).putHeader("Allow", "GET, HEAD")
          .end("only GET is served\n");
      return;
    }
    switch (path) {
      case "/metrics" -> request.response()
          .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
          .end(metrics.scrape());
      case "/health/live" -> request.response().end("live\n");
      default -> {
        boolean ready = health.ready();
        request.response().setStatusCode(ready ? 200 : 503).end(ready ? "ready\n" : "not ready\n");
      }
    }
  }

  private static void requireLoopback(String host) {
    Objects.requireNonNull(host, "host");
    try {
      if (!InetAddress.getByName(host).isLoopbackAddress()) {
        throw new IllegalArgumentException("the metrics endpoint serves only a loopback address,"
            + " not " + host);
      }
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("unknown metrics host " + host, e);
    }
  }
}
