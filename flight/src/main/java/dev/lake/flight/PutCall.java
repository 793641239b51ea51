package dev.lake.flight;

import org.apache.arrow.flight.impl.Flight;

/** One {@code DoPut} call in progress, fed by the event loop; the command decides which kind. */
interface PutCall {
  /** Accepts one received message (the first one included). Event loop only. */
  void onMessage(Flight.FlightData data);

  /** The client finished sending: finish the work and answer. Event loop only. */
  void onEnd();

  /** The client went away: drop everything. Event loop only. */
  void cancel();
}
