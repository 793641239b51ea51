package dev.lake.flight;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;

/**
 * A Flight SQL client of a test server that keeps the response header {@code
 * lake-table-version} of its last call (null: the call had none).
 */
final class VersionHeaderClient implements AutoCloseable {

  private final AtomicReference<String> version = new AtomicReference<>();
  private final FlightClient flight;
  final FlightSqlClient sql;

  VersionHeaderClient(LakeServerFixture lake) {
    FlightClientMiddleware.Factory headers = info -> new FlightClientMiddleware() {
      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoing) {
        version.set(null);
      }

      @Override
      public void onHeadersReceived(CallHeaders incoming) {
        version.set(incoming.get(Ingestor.VERSION_HEADER));
      }

      @Override
      public void onCallCompleted(CallStatus status) {}
    };
    flight = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).intercept(headers).build();
    sql = new FlightSqlClient(flight);
  }

  /** The version header of the last call, or null. */
  String version() {
    return version.get();
  }

  @Override
  public void close() throws InterruptedException {
    flight.close();
  }
}
