package dev.lake.flight;

import java.security.SecureRandom;
import java.util.UUID;

/** UUID version 7 (RFC 9562): a millisecond timestamp then random bits, so ids sort by time. */
final class Uuids {

  private static final SecureRandom RANDOM = new SecureRandom();

  private Uuids() {}

  static UUID v7() {
    long millis = System.currentTimeMillis();
    long high = (millis << 16) | 0x7000L | (RANDOM.nextInt() & 0x0fffL);
    long low = (RANDOM.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
    return new UUID(high, low);
  }
}
