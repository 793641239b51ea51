package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestData.ALL_TYPES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AllValidBitmap;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.util.Text;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local segments are read through a memory mapping: vectors wrap the mapped bytes. The mapping
 * lives as long as any buffer of it (not only the reader), survives the file's deletion by
 * expiry, and a file shorter than its footer says is corruption, not a fault.
 */
class LogMappedReadTest {

  @TempDir Path dir;
  private LogTableFixture fixture;
  private RootAllocator allocator;
  private TableHandle table;
  private Path segment;

  @BeforeEach
  void createTable() throws IOException {
    fixture = new LogTableFixture(dir);
    allocator = fixture.allocator;
    table = fixture.table;
    try (ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 0, 250, 250)) {
      table.append(LogTestData.op(1), reader);
    }
    try (Stream<Path> files = Files.list(dir.resolve("data"))) {
      segment = files.findFirst().orElseThrow();
    }
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  /**
   * A flat chunk whose statistics count no NULLs is read with the shared {@link AllValidBitmap}
   * (consumers learn it is NULL-free without reading a bitmap); a chunk with NULLs keeps its own.
   * That the values and NULLs read back are the ones written is checked by the engine's tests.
   */
  @Test
  void aNullFreeChunkIsReadWithTheSharedAllValidBitmapAndOneWithNullsWithItsOwn() throws IOException {
    ScanRequest request = ScanRequest.of(LogTestData.columnNames(ALL_TYPES));
    Snapshot snapshot = table.latestSnapshot();
    int shared = 0;
    int own = 0;
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          for (FieldVector v : reader.getVectorSchemaRoot().getFieldVectors()) {
            if (!v.getChildrenFromFields().isEmpty()) {
              assertFalse(AllValidBitmap.covers(v.getValidityBuffer()), v.getField().getName());
            } else if (AllValidBitmap.covers(v.getValidityBuffer())) {
              assertEquals(0, v.getNullCount(), v.getField().getName());
              shared++;
            } else {
              assertTrue(v.getNullCount() > 0, v.getField().getName() + " has no NULLs but its own bitmap");
              own++;
            }
          }
        }
      }
    }
    assertTrue(shared > 0 && own > 0, shared + " chunks read with the shared bitmap, " + own + " with their own");
  }

  @Test
  void everyChunkStartsOnACacheLineOfTheMapping() throws IOException {
    List<String> columns = LogTestData.columnNames(ALL_TYPES);
    ScanRequest request = ScanRequest.of(columns);
    Snapshot snapshot = table.latestSnapshot();
    int chunks = 0;
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          for (FieldVector v : reader.getVectorSchemaRoot().getFieldVectors()) {
            // A chunk's first buffer is its validity bitmap.
            assertEquals(0, v.getValidityBufferAddress() % 64, v.getField().getName());
            chunks++;
          }
        }
      }
    }
    assertEquals(5 * ALL_TYPES.getFields().size(), chunks, "five blocks of 100 rows");
  }

  @Test
  void vectorsOutliveTheReaderAndTheFilesDeletion() throws IOException {
    List<String> columns = LogTestData.columnNames(ALL_TYPES);
    ScanRequest request = ScanRequest.of(columns);
    Snapshot snapshot = table.latestSnapshot();
    List<VectorSchemaRoot> kept = new ArrayList<>();
    try {
      for (ScanUnit unit : snapshot.plan(request).units()) {
        try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
          while (reader.loadNextBatch()) {
            List<FieldVector> moved = new ArrayList<>();
            for (FieldVector v : reader.getVectorSchemaRoot().getFieldVectors()) {
              TransferPair pair = v.getTransferPair(allocator);
              pair.transfer();
              moved.add((FieldVector) pair.getTo());
            }
            kept.add(new VectorSchemaRoot(moved));
          }
        }
      }
      // Expiry unlinks segments; buffers already handed out stay readable.
      Files.delete(segment);
      long id = 0;
      for (VectorSchemaRoot root : kept) {
        for (int r = 0; r < root.getRowCount(); r++, id++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            Object o = v.getObject(r);
            row.add(o instanceof Text t ? t.toString() : o);
          }
          assertEquals(LogTestData.expectedRow(columns, id), row, "row " + id);
        }
      }
      assertEquals(500, id);
      assertTrue(allocator.getAllocatedMemory() > 0, "the kept vectors hold the mapped buffers");
    } finally {
      kept.forEach(VectorSchemaRoot::close);
    }
  }

  @Test
  void fileTruncatedAfterItsFooterWasReadIsCorruptionNotAFault() throws IOException {
    ScanRequest request = ScanRequest.of(LogTestData.columnNames(ALL_TYPES));
    Snapshot snapshot = table.latestSnapshot();
    ScanUnit unit = snapshot.plan(request).units().getFirst();
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.setLength(f.length() / 2);
    }
    CorruptTableException e = assertThrows(CorruptTableException.class, () -> {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          reader.getVectorSchemaRoot().getRowCount();
        }
      }
    });
    assertTrue(e.getMessage().contains("data/" + segment.getFileName()), e.getMessage());
  }

  @Test
  void fileTruncatedWhileMappedIsCorruptionNotAFault() throws IOException {
    // Truncated under the mapping, it must not be touched.
    String message = nextScanAfterMappingFails(file -> {
      try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
        f.setLength(f.length() / 2);
      }
    });
    assertTrue(message.contains("changed size"), message);
  }

  @Test
  void aMappedSegmentDeletedBeforeTheNextScanReadsAsMissing() throws IOException {
    // The next reader only looks the file up; it must not read the mapping of a deleted file.
    String message = nextScanAfterMappingFails(Files::delete);
    assertTrue(message.contains("data/" + segment.getFileName()) && message.contains("is missing"), message);
  }

  /** Scans once (leaving the segment mapped), applies {@code change}, and returns the next scan's failure. */
  private String nextScanAfterMappingFails(PathChange change) throws IOException {
    ScanRequest request = ScanRequest.of(LogTestData.columnNames(ALL_TYPES));
    Snapshot snapshot = table.latestSnapshot();
    assertEquals(500, LogTestData.readAll(snapshot, request, allocator).size());
    change.apply(segment);
    return assertThrows(CorruptTableException.class, () -> LogTestData.readAll(snapshot, request, allocator))
        .getMessage();
  }

  private interface PathChange {
    void apply(Path file) throws IOException;
  }

  @Test
  void repeatedScansOfTheMappedSegmentReturnTheSameRows() {
    List<String> columns = LogTestData.columnNames(ALL_TYPES);
    ScanRequest request = ScanRequest.of(columns);
    for (int scan = 0; scan < 3; scan++) {
      List<List<Object>> rows = LogTestData.readAll(table.latestSnapshot(), request, allocator);
      assertEquals(500, rows.size());
      for (int id = 0; id < rows.size(); id++) {
        assertEquals(LogTestData.expectedRow(columns, id), rows.get(id), "scan " + scan + " row " + id);
      }
    }
  }

  @Test
  void byteFlippedAfterPlanningIsCaughtInTheMappedBytes() throws IOException {
    ScanRequest request = ScanRequest.of(LogTestData.columnNames(ALL_TYPES));
    Snapshot snapshot = table.latestSnapshot();
    ScanUnit unit = snapshot.plan(request).units().getFirst();
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.seek(100);
      int b = f.read();
      f.seek(100);
      f.write(b ^ 0x01);
    }
    CorruptTableException e = assertThrows(CorruptTableException.class, () -> {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          reader.getVectorSchemaRoot().getRowCount();
        }
      }
    });
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
  }

  @Test
  void chunksAreVerifiedOncePerMappingAndAFreshMappingVerifiesAgain() throws IOException {
    ScanRequest request = ScanRequest.of(LogTestData.columnNames(ALL_TYPES));
    assertEquals(500, scanRows(table, request), "first scan verifies every chunk");
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.seek(100);
      int b = f.read();
      f.seek(100);
      f.write(b ^ 0x01);
    }
    // Another engine has its own mappings: the bytes entering it are checked again.
    try (TableEngine other = LogTestData.engine(100, 1 << 20);
        TableHandle reopened = other.open(TableLocation.of(dir)).orElseThrow()) {
      CorruptTableException e = assertThrows(CorruptTableException.class, () -> scanRows(reopened, request));
      assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    }
  }

  private long scanRows(TableHandle handle, ScanRequest request) throws IOException {
    Snapshot snapshot = handle.latestSnapshot();
    long rows = 0;
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          rows += reader.getVectorSchemaRoot().getRowCount();
        }
      }
    }
    return rows;
  }
}
