package dev.lake.sdk;

import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.HeaderCallOption;

/**
 * Collects the table version a call committed, from the response header {@code
 * lake-table-version} a lake server sends on an ingest or an update that committed one, for the
 * caller that waits on that call to {@link #take}. Calls are told apart by a request header
 * {@code lake-client-call} this client adds ({@link #tagged}) and the server ignores.
 */
final class TableVersions implements FlightClientMiddleware.Factory {

  static final String VERSION_HEADER = "lake-table-version";
  static final String CALL_HEADER = "lake-client-call";

  private final Map<String, Long> versions = new ConcurrentHashMap<>();

  /** {@code options} and a header naming a new call, whose version {@link #take} returns. */
  static Tagged tagged(CallOption[] options) {
    String call = UUID.randomUUID().toString();
    CallHeaders header = new FlightCallHeaders();
    header.insert(CALL_HEADER, call);
    CallOption[] tagged = Arrays.copyOf(options, options.length + 1);
    tagged[options.length] = new HeaderCallOption(header);
    return new Tagged(call, tagged);
  }

  /** A call's name and the options that send it. */
  record Tagged(String call, CallOption[] options) {}

  @Override
  public FlightClientMiddleware onCallStarted(CallInfo info) {
    return new FlightClientMiddleware() {
      private String call;

      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoing) {
        call = outgoing.get(CALL_HEADER);
      }

      @Override
      public void onHeadersReceived(CallHeaders incoming) {
        String version = incoming.get(VERSION_HEADER);
        if (call != null && version != null) {
          try {
            versions.put(call, Long.parseLong(version));
          } catch (NumberFormatException malformed) {
            // Not a lake server's header: the call reports no version.
          }
        }
      }

      @Override
      public void onCallCompleted(CallStatus status) {}
    };
  }

  /** The version the server reported for {@code call}, removed; null if none came. */
  Long take(String call) {
    return versions.remove(call);
  }
}
