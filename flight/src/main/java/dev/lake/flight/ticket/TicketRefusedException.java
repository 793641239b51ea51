package dev.lake.flight.ticket;

import java.util.Objects;

/**
 * A ticket or prepared-statement handle this server will not redeem. The {@link Reason} decides
 * the status at the edge; the message names what is wrong and what to do, and never echoes key
 * material or the envelope's contents.
 */
public final class TicketRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why; each maps to one gRPC status (docs/query-tier.md lists them). */
  public enum Reason {
    /** Not an envelope lake writes: wrong magic or format, truncated header. INVALID_ARGUMENT. */
    MALFORMED,
    /** Its authentication tag does not verify: altered or cut bytes. UNAUTHENTICATED. */
    FORGED,
    /** Sealed with a key this server's ring does not hold (another cluster, a retired key). UNAUTHENTICATED. */
    UNKNOWN_KEY,
    /** Past its expiry. UNAUTHENTICATED. */
    EXPIRED,
    /** Issued by a cluster of another audience. PERMISSION_DENIED. */
    OTHER_AUDIENCE,
    /** Issued to another principal. PERMISSION_DENIED. */
    OTHER_PRINCIPAL,
    /** A ticket where a handle is expected, or the other way round. INVALID_ARGUMENT. */
    WRONG_KIND
  }

  private final Reason reason;

  public TicketRefusedException(Reason reason, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public Reason reason() {
    return reason;
  }
}
