package dev.lake.flight.auth;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
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

  /** Checks one call's credentials. */
  @FunctionalInterface
  public interface Check {
    /**
     * @param authorization the call's {@code authorization} header, or null
     * @param cookies the values of its {@code cookie} headers
     * @return a {@code set-cookie} value to answer with, or null
     * @throws AuthenticationException to refuse the call
     */
    String check(String authorization, List<String> cookies);
  }

  private AuthGate() {}

  /** A gate for calls authenticated by the principals file: header or {@code lake_auth} cookie. */
  public static Handler<HttpServerRequest> wrap(Authenticator authenticator,
      Handler<HttpServerRequest> calls) {
    return wrap(authenticator == null ? null : (Check) (authorization, cookies) ->
        authenticator.sessionCookie(authenticator.authenticate(authorization, cookies),
            authorization, cookies), calls);
  }

  /** A gate for calls authenticated by their {@code authorization} header alone. */
  public static Handler<HttpServerRequest> wrap(Consumer<String> check,
      Handler<HttpServerRequest> calls) {
    return wrap(check == null ? null : (Check) (authorization, cookies) -> {
      check.accept(authorization);
      return null;
    }, calls);
  }

  /**
   * @param check refuses calls; null: every call passes
   */
  public static Handler<HttpServerRequest> wrap(Check check, Handler<HttpServerRequest> calls) {
    if (check == null) {
      return calls;
    }
    return request -> {
      String path = request.path();
      if (!path.equals(HANDSHAKE) && !path.startsWith(HEALTH)) {
        String setCookie;
        try {
          setCookie = check.check(request.getHeader("authorization"),
              request.headers().getAll("cookie"));
        } catch (AuthenticationException e) {
          request.response().setStatusCode(200)
              .putHeader("content-type", "application/grpc")
              .putHeader("grpc-status", "16")
              .putHeader("grpc-message",
                  URLEncoder.encode(e.getMessage(), StandardCharsets.UTF_8).replace("+", "%20"))
              .end();
          return;
        }
        if (setCookie != null) {
          request.response().headers().add("set-cookie", setCookie);
        }
      }
      calls.handle(request);
    };
  }
}
