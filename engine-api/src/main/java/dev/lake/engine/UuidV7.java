package dev.lake.engine;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;

/**
 * UUID version 7 (RFC 9562): a millisecond timestamp, then random bits, so ids sort by creation
 * time. lake uses them for operation ids and table incarnations.
 */
public final class UuidV7 {

  private static final SecureRandom RANDOM = new SecureRandom();

  private UuidV7() {}

  public static UUID generate() {
    return generate(Clock.systemUTC());
  }

  public static UUID generate(Clock clock) {
    long millis = clock.millis();
    long high = (millis << 16) | 0x7000L | (RANDOM.nextInt() & 0x0fffL);
    long low = (RANDOM.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
    return new UUID(high, low);
  }
}
