package dev.lake.metastore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link MetaStore} backend must have. Subclasses supply a fresh, empty store. */
public abstract class MetaStoreContract {

  protected MetaStore store;

  protected abstract MetaStore newStore() throws Exception;

  @BeforeEach
  void openStore() throws Exception {
    store = newStore();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void getOfMissingKeyIsEmpty() {
    assertTrue(store.get("tbl/none").isEmpty());
  }

  @Test
  void casCreatesOnlyWhenAbsent() {
    assertTrue(store.compareAndSet("k/a", Optional.empty(), bytes("1")));
    assertFalse(store.compareAndSet("k/a", Optional.empty(), bytes("2")));
    assertArrayEquals(bytes("1"), store.get("k/a").orElseThrow());
  }

  @Test
  void casReplacesOnlyExactPreviousBytes() {
    store.compareAndSet("k/a", Optional.empty(), bytes("1"));
    assertFalse(store.compareAndSet("k/a", Optional.of(bytes("9")), bytes("2")));
    assertFalse(store.compareAndSet("k/missing", Optional.of(bytes("1")), bytes("2")));
    assertTrue(store.compareAndSet("k/a", Optional.of(bytes("1")), bytes("2")));
    assertArrayEquals(bytes("2"), store.get("k/a").orElseThrow());
    assertTrue(store.get("k/missing").isEmpty());
  }

  @Test
  void deleteIfEqualsDeletesOnlyMatchingValue() {
    store.compareAndSet("k/a", Optional.empty(), bytes("1"));
    assertFalse(store.deleteIfEquals("k/a", bytes("2")));
    assertFalse(store.deleteIfEquals("k/none", bytes("1")));
    assertTrue(store.deleteIfEquals("k/a", bytes("1")));
    assertTrue(store.get("k/a").isEmpty());
  }

  @Test
  void prefixScanPagesThroughEveryKeyInOrderAndNothingElse() {
    for (int i = 0; i < 25; i++) {
      store.compareAndSet(String.format("p/a/%03d", i), Optional.empty(), bytes("v" + i));
    }
    store.compareAndSet("p/b/000", Optional.empty(), bytes("other"));
    store.compareAndSet("p/", Optional.empty(), bytes("shorter"));
    List<String> keys = new ArrayList<>();
    Optional<String> continuation = Optional.empty();
    int pages = 0;
    do {
      ScanPage page = store.scan("p/a/", continuation, 10);
      page.entries().forEach(e -> keys.add(e.key()));
      continuation = page.continuation();
      pages++;
    } while (continuation.isPresent());
    assertEquals(3, pages);
    assertEquals(25, keys.size());
    for (int i = 0; i < 25; i++) {
      assertEquals(String.format("p/a/%03d", i), keys.get(i));
    }
  }

  @Test
  void tamperedOrForeignContinuationIsRefused() {
    for (int i = 0; i < 5; i++) {
      store.compareAndSet("t/x/" + i, Optional.empty(), bytes("v"));
    }
    String token = store.scan("t/x/", Optional.empty(), 2).continuation().orElseThrow();
    assertThrows(InvalidContinuationException.class,
        () -> store.scan("t/y/", Optional.of(token), 2));
    String tampered = (token.charAt(0) == 'A' ? 'B' : 'A') + token.substring(1);
    assertThrows(InvalidContinuationException.class,
        () -> store.scan("t/x/", Optional.of(tampered), 2));
    assertThrows(InvalidContinuationException.class,
        () -> store.scan("t/x/", Optional.of("garbage"), 2));
  }

  @Test
  void badKeysValuesAndPageSizesAreRefusedAndWriteNothing() {
    assertThrows(InvalidKeyException.class, () -> store.get(""));
    assertThrows(InvalidKeyException.class,
        () -> store.compareAndSet("has space", Optional.empty(), bytes("v")));
    assertThrows(InvalidKeyException.class,
        () -> store.compareAndSet("k/\u00e9", Optional.empty(), bytes("v")));
    assertThrows(InvalidKeyException.class,
        () -> store.compareAndSet("k/" + "x".repeat(Keys.MAX_KEY_BYTES), Optional.empty(), bytes("v")));
    assertThrows(ValueTooLargeException.class,
        () -> store.compareAndSet("k/big", Optional.empty(), new byte[Keys.MAX_VALUE_BYTES + 1]));
    assertTrue(store.get("k/big").isEmpty());
    assertThrows(IllegalArgumentException.class, () -> store.scan("k/", Optional.empty(), 0));
    assertThrows(IllegalArgumentException.class,
        () -> store.scan("k/", Optional.empty(), Keys.MAX_PAGE_SIZE + 1));
    assertTrue(store.scan("", Optional.empty(), 10).entries().isEmpty());
  }

  @Test
  void concurrentCasIncrementsAreLinearizable() throws Exception {
    store.compareAndSet("counter", Optional.empty(), bytes("0"));
    int threads = 16;
    int attemptsPerThread = 200;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      results.add(pool.submit(() -> {
        int won = 0;
        for (int i = 0; i < attemptsPerThread; i++) {
          byte[] current = store.get("counter").orElseThrow();
          long next = Long.parseLong(new String(current, UTF_8)) + 1;
          if (store.compareAndSet("counter", Optional.of(current), bytes(Long.toString(next)))) {
            won++;
          }
        }
        return won;
      }));
    }
    int successes = 0;
    for (Future<Integer> r : results) {
      successes += r.get();
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    assertTrue(successes > 0);
    assertEquals(Integer.toString(successes), new String(store.get("counter").orElseThrow(), UTF_8));
  }

  protected static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
