package dev.lake.engine.lance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/** Datasets cross between lake and the stock Lance library by their URI alone. */
class StockLanceInteropTest {

  static TableEngine engine;
  @TempDir Path dir;

  @BeforeAll
  static void start() {
    engine = new LanceEngineFactory().create(Map.of());
  }

  @AfterAll
  static void stop() {
    engine.close();
  }

  @Test
  void datasetWrittenThroughLakeOpensWithStockLance() throws Exception {
    TableLocation loc = TableLocation.of(dir.resolve("lake-written"));
    try (BufferAllocator allocator = new RootAllocator()) {
      try (TableHandle t = engine.create(loc, TestData.SCHEMA)) {
        for (int i = 0; i < 3; i++) {
          try (ArrowReader rows = TestData.rows(allocator, i * 100L, 100, 50)) {
            t.append(TestData.operation("p" + i), rows);
          }
        }
      }
      String uri = loc.localPath().toString();
      try (Dataset stock = Dataset.open(uri, allocator)) {
        assertEquals(List.of(1L, 2L, 3L, 4L), stock.listVersions().stream().map(v -> v.getId()).toList(),
            "lake versions 0..3 are Lance versions 1..4");
        assertEquals(300, stock.countRows());
        assertEquals(LongStream.range(0, 300).boxed().toList(), stockIds(stock, allocator));
      }
      try (Dataset v2 = Dataset.open(allocator, uri, new ReadOptions.Builder().setVersion(3).build())) {
        assertEquals(200, v2.countRows(), "Lance version 3 is lake version 2");
      }
    }
  }

  @Test
  void datasetWrittenByStockLanceIsOpenedAndScannedThroughTheEngine() throws Exception {
    Path path = dir.resolve("stock-written");
    try (BufferAllocator allocator = new RootAllocator()) {
      try (ArrowReader rows = TestData.rows(allocator, 0, 250, 100);
          Dataset written = Dataset.write().allocator(allocator).reader(rows).uri(path.toString())
              .mode(WriteParams.WriteMode.CREATE).execute()) {
        assertEquals(1, written.version());
      }
      try (TableHandle t = engine.open(TableLocation.of(path)).orElseThrow()) {
        assertEquals(Version.INITIAL, t.currentVersion());
        List<VersionInfo> versions = t.versions();
        assertEquals(1, versions.size());
        assertEquals(java.util.Optional.empty(), versions.getFirst().operation(), "no lake operation behind it");
        assertEquals(250, t.latestSnapshot().rowCount());
        assertEquals(LongStream.range(0, 250).boxed().toList(),
            TestData.ids(t.latestSnapshot(), ScanRequest.of(List.of("id", "name")), allocator));
        try (ArrowReader more = TestData.rows(allocator, 250, 50, 50)) {
          assertEquals(Version.of(1), t.append(TestData.operation("more"), more));
        }
      }
    }
  }

  private static List<Long> stockIds(Dataset ds, BufferAllocator allocator) throws Exception {
    List<Long> out = new ArrayList<>();
    try (LanceScanner scanner = ds.newScan(new ScanOptions.Builder().columns(List.of("id")).build());
        ArrowReader r = scanner.scanBatches()) {
      while (r.loadNextBatch()) {
        BigIntVector id = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < r.getVectorSchemaRoot().getRowCount(); i++) {
          out.add(id.get(i));
        }
      }
    }
    return out;
  }
}
