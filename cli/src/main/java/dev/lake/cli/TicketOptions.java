package dev.lake.cli;

import dev.lake.flight.ticket.KeyRing;
import dev.lake.flight.ticket.KeyRingFile;
import dev.lake.flight.ticket.TicketSealer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The options that decide how a Query replica seals tickets and handles. */
final class TicketOptions {

  /** How often a replica looks whether its key ring file changed. */
  static final Duration KEY_RING_CHECK = Duration.ofSeconds(2);

  @Option(names = "--key-ring",
      description = "Key ring file (JSON, owner-only) shared by the replicas that redeem each"
          + " other's tickets; reloaded when it changes. Default: a key generated at start"
          + " (tickets redeem on this process only).")
  Path keyRing;

  @Option(names = "--audience", defaultValue = "lake",
      description = "The cluster id tickets are bound to; replicas sharing a key ring share it"
          + " (default: ${DEFAULT-VALUE}).")
  String audience;

  @Option(names = "--ticket-ttl", defaultValue = "PT1H",
      description = "How long a ticket redeems, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration ticketTtl;

  @Option(names = "--handle-ttl", defaultValue = "PT24H",
      description = "How long a prepared-statement handle lives, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration handleTtl;

  /**
   * @throws IOException if the key ring file cannot be read
   * @throws IllegalArgumentException if it is not a private key ring, or an option is invalid
   */
  TicketSealer sealer() throws IOException {
    java.util.function.Supplier<KeyRing> ring;
    if (keyRing == null) {
      KeyRing ephemeral = KeyRing.generate("ephemeral");
      ring = () -> ephemeral;
    } else {
      ring = KeyRingFile.open(keyRing, KEY_RING_CHECK);
    }
    return new TicketSealer(ring, audience, java.time.Clock.systemUTC(), ticketTtl, handleTtl);
  }
}
