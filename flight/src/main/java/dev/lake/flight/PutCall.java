package dev.lake.flight;

import org.apache.arrow.flight.impl.Flight;

/** One {@code DoPut} being received: messages in arrival order, then its end. Event loop only. */
interface PutCall {

  /** Accepts one received message (the first one, carrying the descriptor, included). */
  void onMessage(Flight.FlightData data);

  /** The client finished sending: do the work and answer. */
  void onEnd();

  /** The client went away: drop everything. */
  void cancel();
}
