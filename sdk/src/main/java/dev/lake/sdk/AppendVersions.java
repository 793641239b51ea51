package dev.lake.sdk;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClientMiddleware;

/**
 * Collects the version each append committed, from the response headers {@code
 * lake-operation-id} and {@code lake-table-version} a lake server sends on an ingest, for the
 * caller that waits on that operation to {@link #take}.
 */
final class AppendVersions implements FlightClientMiddleware.Factory {

  static final String OPERATION_HEADER = "lake-operation-id";
  static final String VERSION_HEADER = "lake-table-version";

  private final Map<UUID, Long> versions = new ConcurrentHashMap<>();

  @Override
  public FlightClientMiddleware onCallStarted(CallInfo info) {
    return new FlightClientMiddleware() {
      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoing) {}

      @Override
      public void onHeadersReceived(CallHeaders incoming) {
        String operation = incoming.get(OPERATION_HEADER);
        String version = incoming.get(VERSION_HEADER);
        if (operation != null && version != null) {
          try {
            versions.put(UUID.fromString(operation), Long.parseLong(version));
          } catch (IllegalArgumentException malformed) {
            // Not a lake server's header: the append reports no version.
          }
        }
      }

      @Override
      public void onCallCompleted(CallStatus status) {}
    };
  }

  /** The version the server reported for {@code operationId}, removed; null if none came. */
  Long take(UUID operationId) {
    return versions.remove(operationId);
  }
}
