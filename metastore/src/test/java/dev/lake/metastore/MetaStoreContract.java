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

  /** CAS attempts per thread in the 16-thread linearizability smoke test. */
  protected int casAttemptsPerThread() {
    return 200;
  }

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
    int attemptsPerThread = casAttemptsPerThread();
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
    assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
    assertTrue(successes > 0);
    assertEquals(Integer.toString(successes), new String(store.get("counter").orElseThrow(), UTF_8));
  }

  @Test
  void emptyAndMaximumSizeValuesRoundTripAndCanBeReplaced() {
    assertTrue(store.compareAndSet("k/empty", Optional.empty(), new byte[0]));
    assertArrayEquals(new byte[0], store.get("k/empty").orElseThrow());
    assertTrue(store.compareAndSet("k/empty", Optional.of(new byte[0]), bytes("x")));
    byte[] big = new byte[Keys.MAX_VALUE_BYTES];
    java.util.Arrays.fill(big, (byte) 7);
    big[0] = 1;
    String longKey = "k/" + "y".repeat(Keys.MAX_KEY_BYTES - 2);
    assertTrue(store.compareAndSet(longKey, Optional.empty(), big));
    byte[] bigger = big.clone();
    bigger[1] = 2;
    assertTrue(store.compareAndSet(longKey, Optional.of(big), bigger));
    assertArrayEquals(bigger, store.get(longKey).orElseThrow());
    assertTrue(store.deleteIfEquals(longKey, bigger));
    assertTrue(store.get(longKey).isEmpty());
  }

  @Test
  void scanOfAnyPrefixListsExactlyTheMatchingKeysInByteOrder() {
    List<String> all = List.of("a", "a-b/x", "a/", "a/b", "a/b/c", "a/b/c/d", "a/b0", "a/c/e",
        "ab", "ab/c/d", "b/a/a", "tbl/ns1/t1", "tbl/ns1/t2", "tbl/ns2/t1", "tbl/ns10/t1");
    List<String> shuffled = new ArrayList<>(all);
    java.util.Collections.shuffle(shuffled, new java.util.Random(7));
    for (String key : shuffled) {
      assertTrue(store.compareAndSet(key, Optional.empty(), bytes("v:" + key)));
    }
    for (String prefix : List.of("", "a", "a/", "a/b", "a/b/", "a/b/c/", "a-", "ab", "b", "c",
        "tbl/", "tbl/ns1", "tbl/ns1/", "tbl/ns1/t", "tbl/ns2/")) {
      List<String> expected = all.stream().filter(k -> k.startsWith(prefix)).sorted().toList();
      for (int limit : new int[] {1, 3, 1000}) {
        List<String> keys = new ArrayList<>();
        Optional<String> continuation = Optional.empty();
        do {
          ScanPage page = store.scan(prefix, continuation, limit);
          assertTrue(page.entries().size() <= limit);
          for (ScanPage.Entry e : page.entries()) {
            keys.add(e.key());
            assertArrayEquals(bytes("v:" + e.key()), e.value());
          }
          continuation = page.continuation();
        } while (continuation.isPresent());
        assertEquals(expected, keys, "prefix '" + prefix + "' limit " + limit);
      }
    }
  }

  @Test
  void fencedWriteIsRefusedWhenTheKeyWasWrittenUnderANewerEpoch() {
    assertTrue(store.compareAndSet("tbl/n/t", Optional.empty(), bytes("1"), Fence.of(3)));
    assertTrue(store.compareAndSet("tbl/n/t", Optional.of(bytes("1")), bytes("2"), Fence.of(3)));
    FencedException older = assertThrows(FencedException.class,
        () -> store.compareAndSet("tbl/n/t", Optional.of(bytes("2")), bytes("old"), Fence.of(2)));
    assertEquals("tbl/n/t", older.key());
    assertEquals(2, older.writerEpoch());
    assertEquals(3, older.itemEpoch());
    assertThrows(FencedException.class,
        () -> store.compareAndSet("tbl/n/t", Optional.of(bytes("2")), bytes("dev"), Fence.NONE));
    assertThrows(FencedException.class, () -> store.deleteIfEquals("tbl/n/t", bytes("2"), Fence.of(1)));
    // Fenced even when the expected value is wrong: the writer learns it is superseded.
    assertThrows(FencedException.class,
        () -> store.compareAndSet("tbl/n/t", Optional.of(bytes("zz")), bytes("old"), Fence.of(2)));
    assertArrayEquals(bytes("2"), store.get("tbl/n/t").orElseThrow());
    // A newer epoch takes the key over; the epoch it wrote under now guards it.
    assertTrue(store.compareAndSet("tbl/n/t", Optional.of(bytes("2")), bytes("3"), Fence.of(5)));
    assertThrows(FencedException.class,
        () -> store.compareAndSet("tbl/n/t", Optional.of(bytes("3")), bytes("x"), Fence.of(4)));
    assertFalse(store.compareAndSet("tbl/n/t", Optional.of(bytes("2")), bytes("x"), Fence.of(5)));
    assertArrayEquals(bytes("3"), store.get("tbl/n/t").orElseThrow());
  }

  @Test
  void unfencedWritesWorkOnKeysNeverWrittenUnderALease() {
    assertTrue(store.compareAndSet("gen/directory", Optional.empty(), bytes("1"), Fence.NONE));
    assertTrue(store.compareAndSet("gen/directory", Optional.of(bytes("1")), bytes("2")));
    assertTrue(store.deleteIfEquals("gen/directory", bytes("2")));
    assertTrue(store.compareAndSet("gen/directory", Optional.empty(), bytes("again")));
    // The first fenced write lifts the key out of reach of unfenced writers.
    assertTrue(store.compareAndSet("gen/directory", Optional.of(bytes("again")), bytes("f"),
        Fence.of(1)));
    assertThrows(FencedException.class,
        () -> store.compareAndSet("gen/directory", Optional.of(bytes("f")), bytes("u")));
  }

  @Test
  void fencedDeleteCannotBeUndoneByAnOlderEpoch() {
    store.compareAndSet("drop/n/t", Optional.empty(), bytes("tomb"), Fence.of(1));
    assertTrue(store.deleteIfEquals("drop/n/t", bytes("tomb"), Fence.of(2)));
    assertTrue(store.get("drop/n/t").isEmpty());
    assertTrue(store.scan("drop/", Optional.empty(), 10).entries().isEmpty());
    assertFalse(store.deleteIfEquals("drop/n/t", bytes("tomb"), Fence.of(2)));
    FencedException e = assertThrows(FencedException.class,
        () -> store.compareAndSet("drop/n/t", Optional.empty(), bytes("back"), Fence.of(1)));
    assertEquals(2, e.itemEpoch());
    assertTrue(store.get("drop/n/t").isEmpty());
    // The deleting epoch (or a newer one) may create the key again.
    assertTrue(store.compareAndSet("drop/n/t", Optional.empty(), bytes("new"), Fence.of(2)));
    assertArrayEquals(bytes("new"), store.get("drop/n/t").orElseThrow());
  }

  @Test
  void scansSkipTombstonesAcrossPageBoundaries() {
    for (int i = 0; i < 12; i++) {
      store.compareAndSet(String.format("op/t/n/x/%02d", i), Optional.empty(), bytes("v" + i),
          Fence.of(1));
    }
    for (int i = 0; i < 12; i++) {
      if (i % 3 != 0) {
        assertTrue(store.deleteIfEquals(String.format("op/t/n/x/%02d", i), bytes("v" + i),
            Fence.of(1)));
      }
    }
    for (String prefix : List.of("op/t/n/x/", "op/", "")) {
      List<String> keys = new ArrayList<>();
      Optional<String> continuation = Optional.empty();
      int pages = 0;
      do {
        ScanPage page = store.scan(prefix, continuation, 2);
        page.entries().forEach(e -> keys.add(e.key()));
        continuation = page.continuation();
        pages++;
      } while (continuation.isPresent());
      assertEquals(List.of("op/t/n/x/00", "op/t/n/x/03", "op/t/n/x/06", "op/t/n/x/09"), keys);
      assertEquals(2, pages, prefix);
    }
  }

  @Test
  void refusedWritesChangeNothing() {
    store.compareAndSet("k/a", Optional.empty(), bytes("1"), Fence.of(2));
    assertThrows(ValueTooLargeException.class, () -> store.compareAndSet("k/a",
        Optional.of(bytes("1")), new byte[Keys.MAX_VALUE_BYTES + 1], Fence.of(2)));
    assertThrows(InvalidKeyException.class,
        () -> store.deleteIfEquals("k/\tbad", bytes("1"), Fence.of(2)));
    assertThrows(InvalidKeyException.class,
        () -> store.scan("k/ a", Optional.empty(), 10));
    assertThrows(IllegalArgumentException.class, () -> Fence.of(-1));
    assertArrayEquals(bytes("1"), store.get("k/a").orElseThrow());
    assertEquals(1, store.scan("", Optional.empty(), 10).entries().size());
  }

  protected static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
