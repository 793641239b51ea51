package dev.lake.engine.lance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.ReadOptions;

/** The lance engine on S3: S3Proxy on loopback, Lance's object store pointed at it. */
class LanceS3Test {

  @TempDir static Path blobs;
  static S3ProxyServer s3;
  static TableEngine engine;

  @BeforeAll
  static void start() throws Exception {
    s3 = new S3ProxyServer(blobs);
    engine = new LanceEngineFactory().create(s3.engineProperties());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      engine.close();
    } finally {
      s3.close();
    }
  }

  static TableLocation location(String name) {
    return new TableLocation(URI.create("s3://" + S3ProxyServer.BUCKET + "/tables/" + name));
  }

  @Test
  void createAppendScanTakeAndDropOnS3() throws Exception {
    TableLocation loc = location("basic");
    try (BufferAllocator allocator = new RootAllocator()) {
      try (TableHandle t = engine.create(loc, TestData.SCHEMA)) {
        try (ArrowReader rows = TestData.rows(allocator, 0, 300, 100)) {
          assertEquals(Version.of(1), t.append(TestData.operation("a"), rows));
        }
        assertEquals(LongStream.range(0, 300).boxed().toList(),
            TestData.ids(t.latestSnapshot(), ScanRequest.of(List.of("id")), allocator));
        try (ArrowReader r = t.latestSnapshot().take(new long[] {299, 0}, List.of("id"), allocator)) {
          assertTrue(r.loadNextBatch());
          assertEquals(2, r.getVectorSchemaRoot().getRowCount());
        }
      }
      // a stock Lance reader opens the same S3 URI and sees the same rows and versions (shifted by one)
      try (Dataset stock = Dataset.open(allocator, LanceStore.uri(loc),
          new ReadOptions.Builder().setStorageOptions(s3.storageOptions()).build())) {
        assertEquals(2, stock.version());
        assertEquals(300, stock.countRows());
      }
      assertTrue(engine.open(location("absent")).isEmpty());
      engine.drop(loc);
      assertTrue(engine.open(loc).isEmpty());
      engine.drop(loc);
    }
  }

  @Test
  void concurrentAppendersOnS3LoseNoCommit() throws Exception {
    TableLocation loc = location("race");
    engine.create(loc, TestData.SCHEMA).close();
    int writers = 8;
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    Set<Version> versions = ConcurrentHashMap.newKeySet();
    CountDownLatch go = new CountDownLatch(1);
    try (BufferAllocator allocator = new RootAllocator()) {
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        threads.add(Thread.ofPlatform().start(() -> {
          try (TableHandle t = engine.open(loc).orElseThrow()) {
            go.await();
            for (int i = 0; i < 2; i++) {
              try (ArrowReader rows = TestData.rows(allocator, (writer * 2L + i) * 10, 10, 10)) {
                versions.add(t.append(TestData.operation("w" + writer + "i" + i), rows));
              }
            }
          } catch (Throwable e) {
            failures.add(e);
          }
        }));
      }
      go.countDown();
      for (Thread th : threads) {
        th.join(120_000);
      }
      assertEquals(List.of(), failures);
      assertEquals(writers * 2, versions.size());
      try (TableHandle t = engine.open(loc).orElseThrow()) {
        assertEquals(Version.of(writers * 2), t.currentVersion());
        assertEquals(LongStream.range(0, writers * 20L).boxed().toList(),
            TestData.ids(t.latestSnapshot(), ScanRequest.of(List.of("id")), allocator).stream().sorted().toList());
      }
    }
  }
}
