package dev.lake.cli.sql;

import org.apache.arrow.flight.FlightStream;

/**
 * Lets Ctrl-C stop the statement that runs, not the program. The running statement registers
 * its thread and, once results stream, its {@link FlightStream}; {@link #cancel} (called from a
 * signal handler on another thread) cancels the stream, which ends the call on the server, or,
 * before a stream exists, interrupts the thread, which makes gRPC cancel the blocking call.
 */
final class Cancellation {

  private Thread running;
  private FlightStream stream;
  private boolean requested;

  /** The calling thread starts a statement. */
  synchronized void begin() {
    running = Thread.currentThread();
    stream = null;
    requested = false;
  }

  /** Called by the running thread: its results now stream through {@code results}. */
  synchronized void streaming(FlightStream results) {
    stream = results;
    if (requested) {
      // a cancel that came before the stream existed interrupted this thread; the stream's
      // own cancel ends it cleanly instead
      Thread.interrupted();
      results.cancel("cancelled by the user", null);
    }
  }

  /** The statement ended; clears an interrupt that a late cancel may have left. */
  synchronized void end() {
    running = null;
    stream = null;
    Thread.interrupted();
  }

  /** Whether a cancel arrived for the statement now or last running. */
  synchronized boolean requested() {
    return requested;
  }

  /** Cancels the running statement, if any; safe from any thread, at any moment. */
  synchronized void cancel() {
    if (running == null) {
      return;
    }
    requested = true;
    if (stream != null) {
      stream.cancel("cancelled by the user", null);
    } else {
      running.interrupt();
    }
  }
}
