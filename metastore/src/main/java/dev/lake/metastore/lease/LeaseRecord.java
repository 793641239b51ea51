package dev.lake.metastore.lease;

import dev.lake.metastore.MetaStoreException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The lease as stored in the metastore: who holds it, under which epoch, and until when (wall
 * clock of the holder, milliseconds since the epoch). Epochs only grow: each new holder takes the
 * previous epoch plus one, by compare-and-set on the previous record's exact bytes, so no two
 * holders ever get the same epoch. A resigned lease keeps its epoch with an expiry of 0.
 */
public record LeaseRecord(String holder, long epoch, long expiresAtMillis) {

  private static final String MAGIC = "lease-v1";

  public LeaseRecord {
    LeaseElection.checkHolderId(holder);
    if (epoch < 1) {
      throw new IllegalArgumentException("a lease epoch is positive, got " + epoch);
    }
  }

  /** Whether the lease has run out at {@code nowMillis} (by the observer's clock). */
  public boolean expiredAt(long nowMillis) {
    return nowMillis >= expiresAtMillis;
  }

  public Instant expiresAt() {
    return Instant.ofEpochMilli(expiresAtMillis);
  }

  byte[] encode() {
    return (MAGIC + " " + holder + " " + epoch + " " + expiresAtMillis)
        .getBytes(StandardCharsets.US_ASCII);
  }

  static LeaseRecord decode(String key, byte[] bytes) {
    String text = new String(bytes, StandardCharsets.US_ASCII);
    String[] parts = text.split(" ", -1);
    try {
      if (parts.length != 4 || !parts[0].equals(MAGIC)) {
        throw new IllegalArgumentException("expected '" + MAGIC + " <holder> <epoch> <expiry>'");
      }
      return new LeaseRecord(parts[1], Long.parseLong(parts[2]), Long.parseLong(parts[3]));
    } catch (IllegalArgumentException e) {
      throw new MetaStoreException("the lease record at '" + key + "' is malformed ("
          + e.getMessage() + "): " + (text.length() > 200 ? text.substring(0, 200) : text), e);
    }
  }
}
