package dev.lake.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TtlCacheTest {
  final AtomicLong now = new AtomicLong();
  final AtomicInteger loads = new AtomicInteger();
  final TtlCache<String, Integer> cache = new TtlCache<>(Duration.ofSeconds(10), 2, now::get);

  Integer load() {
    return loads.incrementAndGet();
  }

  @Test
  void reusesAnAnswerUntilItExpires() {
    assertEquals(1, cache.get("a", this::load));
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    assertEquals(1, cache.get("a", this::load));
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertEquals(2, cache.get("a", this::load));
  }

  @Test
  void holdsAtMostItsCapacityEvictingTheLeastRecentlyUsed() {
    cache.get("a", this::load);
    cache.get("b", this::load);
    cache.get("a", this::load);
    cache.get("c", this::load);
    assertEquals(2, cache.size());
    assertEquals(1, cache.get("a", this::load));
    assertEquals(4, cache.get("b", this::load));
  }
}
