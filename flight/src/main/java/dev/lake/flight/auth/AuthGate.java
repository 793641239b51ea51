package dev.lake.flight.auth;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Refuses every gRPC call without valid credentials before it reaches a handler, with a
 * trailers-only {@code UNAUTHENTICATED} answer. Open: the Flight Handshake (which checks
 * credentials itself) and the gRPC health service (load balancers probe it without credentials;
 * it tells nothing but readiness).
 */
public final class AuthGate {

  private static final String HANDSHAKE = "/arrow.flight.protocol.FlightService/Handshake";
  private static final String HEALTH = "/grpc.health.v1.Health/";

  private AuthGate() {}

  /**
   * @param check given the call's {@code authorization} header (or null), throws {@link
   *     AuthenticationException} to refuse the call; null: every call passes
   */
  public static Handler<HttpServerRequest> wrap(Consumer<String> check,
      Handler<HttpServerRequest> calls) {
    if (check == null) {
      return calls;
    }
    return request -> {
      String path = request.path();
      if (!path.equals(HANDSHAKE) && !path.startsWith(HEALTH)) {
        try {
          check.accept(request.getHeader("authorization"));
        } catch (AuthenticationException e) {
          request.response().setStatusCode(200)
              .putHeader("content-type", "application/grpc")
              .putHeader("grpc-status", "16")
              .putHeader("grpc-message",
                  URLEncoder.encode(e.getMessage(), StandardCharsets.UTF_8).replace("+", "%20"))
              .end();
          return;
        }
      }
      calls.handle(request);
    };
  }
}
