package dev.lake.cli.sql;

import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClientMiddleware;

/** Sends {@code authorization: Bearer <token>} on every call of the client it is installed in. */
final class BearerToken implements FlightClientMiddleware.Factory {

  private final String header;

  BearerToken(String token) {
    if (token.isBlank() || token.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw new IllegalArgumentException("a token must be non-blank and hold no control characters");
    }
    this.header = "Bearer " + token.strip();
  }

  @Override
  public FlightClientMiddleware onCallStarted(CallInfo info) {
    return new FlightClientMiddleware() {
      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoing) {
        outgoing.insert("authorization", header);
      }

      @Override
      public void onHeadersReceived(CallHeaders incoming) {}

      @Override
      public void onCallCompleted(CallStatus status) {}
    };
  }
}
