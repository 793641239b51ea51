package dev.lake.flight;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * Hands a {@code DoGet} call's HTTP/2 response to the service, so {@link ResultStream} can write
 * the messages' frames itself (the Arrow buffers without a copy) while the gRPC response still
 * sends the headers and the status. Vert.x's gRPC server calls the method's handler from within
 * {@code handle(request)} on the same thread: the response is published there, for that call
 * only; a handler called later finds none and writes through the gRPC response.
 */
final class DoGetResponses {

  static final String DO_GET_PATH = "/arrow.flight.protocol.FlightService/DoGet";
  private static final ThreadLocal<HttpServerResponse> CURRENT = new ThreadLocal<>();

  private DoGetResponses() {}

  /** Runs {@code calls} on {@code request}, publishing the response of a DoGet while it does. */
  static void handle(HttpServerRequest request, Handler<HttpServerRequest> calls) {
    if (!DO_GET_PATH.equals(request.path())) {
      calls.handle(request);
      return;
    }
    CURRENT.set(request.response());
    try {
      calls.handle(request);
    } finally {
      CURRENT.remove();
    }
  }

  /** The HTTP/2 response of the DoGet call being dispatched on this thread, taken once; or null. */
  static HttpServerResponse take() {
    HttpServerResponse response = CURRENT.get();
    CURRENT.remove();
    return response;
  }
}
