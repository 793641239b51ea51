package dev.lake.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {

  @Test
  void carriesVersionSevenTheRfcVariantAndTheMillisecondTimestamp() {
    Instant at = Instant.parse("2026-11-29T08:00:00.123Z");
    UUID id = UuidV7.generate(Clock.fixed(at, ZoneOffset.UTC));
    assertEquals(7, id.version());
    assertEquals(2, id.variant());
    assertEquals(at.toEpochMilli(), id.getMostSignificantBits() >>> 16);
  }

  @Test
  void idsFromLaterMillisecondsSortLater() {
    UUID first = UuidV7.generate(Clock.fixed(Instant.ofEpochMilli(1_000), ZoneOffset.UTC));
    UUID second = UuidV7.generate(Clock.fixed(Instant.ofEpochMilli(1_001), ZoneOffset.UTC));
    assertNotEquals(first, second);
    assertTrue(Long.compareUnsigned(first.getMostSignificantBits(),
        second.getMostSignificantBits()) < 0);
  }
}
