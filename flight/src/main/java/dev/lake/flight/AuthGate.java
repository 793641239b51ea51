package dev.lake.flight;

import dev.lake.flight.auth.AuthenticationException;
import dev.lake.flight.auth.Authenticator;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Refuses every gRPC call without valid credentials before it reaches a handler, with a
 * trailers-only {@code UNAUTHENTICATED} answer. Open: the Handshake (which checks credentials
 * itself) and the gRPC health service (load balancers probe it without credentials; it tells
 * nothing but readiness).
 */
final class AuthGate {

  private static final String HANDSHAKE = FlightSqlService.SERVICE.pathOf("Handshake");
  private static final String HEALTH = "/grpc.health.v1.Health/";

  private AuthGate() {}

  static Handler<HttpServerRequest> wrap(Authenticator authenticator,
      Handler<HttpServerRequest> calls) {
    if (authenticator == null) {
      return calls;
    }
    return request -> {
      String path = request.path();
      if (!path.equals(HANDSHAKE) && !path.startsWith(HEALTH)) {
        try {
          authenticator.authenticate(request.getHeader("authorization"));
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
