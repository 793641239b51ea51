package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestData.ALL_TYPES;
import static dev.lake.engine.log.LogTestFiles.flipByte;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damaged files are reported as CorruptTableException naming the file, never read as data. */
class LogIntegrityTest {

  @TempDir Path dir;
  private RootAllocator allocator;
  private TableLocation location;
  private Path segment;

  @BeforeEach
  void createTableWithOneSegment() throws IOException {
    allocator = new RootAllocator();
    location = TableLocation.of(dir);
    try (TableEngine engine = LogTestData.engine(100, 1 << 20);
        TableHandle table = engine.create(location, ALL_TYPES);
        ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 0, 500)) {
      table.append(LogTestData.op(1), reader);
    }
    try (Stream<Path> files = Files.list(dir.resolve("data"))) {
      segment = files.findFirst().orElseThrow();
    }
  }

  @AfterEach
  void tearDown() {
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  /** Opens the table with a fresh engine and scans everything. */
  private CorruptTableException scanFails() {
    CorruptTableException e = assertThrows(CorruptTableException.class, () -> {
      try (TableEngine engine = LogTestData.engine(100, 1 << 20);
          TableHandle table = engine.open(location).orElseThrow()) {
        LogTestData.readAll(table.latestSnapshot(),
            ScanRequest.of(LogTestData.columnNames(ALL_TYPES)), allocator);
      }
    });
    return e;
  }

  private void assertNamesSegment(CorruptTableException e) {
    assertTrue(e.getMessage().contains("data/" + segment.getFileName()), e.getMessage());
    assertTrue(e.getMessage().contains("version 1"), e.getMessage());
  }


  @Test
  void flippedByteInColumnDataIsCorruption() throws IOException {
    flipByte(segment, 200);
    CorruptTableException e = scanFails();
    assertNamesSegment(e);
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
  }

  @Test
  void flippedByteInTheZerosAligningAChunkIsCorruption() throws IOException {
    // The magic is 8 bytes; the first chunk starts at byte 64.
    flipByte(segment, 20);
    CorruptTableException e = scanFails();
    assertNamesSegment(e);
    assertTrue(e.getMessage().contains("alignment padding"), e.getMessage());
  }

  @Test
  void flippedByteInFooterIsCorruption() throws IOException {
    flipByte(segment, Files.size(segment) - 40);
    assertNamesSegment(scanFails());
  }

  @Test
  void flippedByteAnywhereIsNeverReturnedAsData() throws IOException {
    long size = Files.size(segment);
    for (long pos = 0; pos < size; pos += Math.max(1, size / 97)) {
      flipByte(segment, pos);
      assertNamesSegment(scanFails());
      flipByte(segment, pos);
    }
  }

  /**
   * Readers hand out one shared all-valid bitmap for a chunk whose statistics count no NULLs, so a
   * footer that says "no NULLs" over a bitmap with NULLs (checksums intact) must be caught, not
   * turn those NULLs into values.
   */
  @Test
  void nullsInAChunkWhoseStatisticsCountNoneAreCorruption() throws IOException {
    byte[] file = Files.readAllBytes(segment);
    ByteBuffer tail = ByteBuffer.wrap(file, file.length - 16, 16).order(ByteOrder.LITTLE_ENDIAN);
    int footerLength = tail.getInt();
    int footerStart = file.length - 16 - footerLength;
    String footer = new String(file, footerStart, footerLength, StandardCharsets.UTF_8);
    // The first flat chunk with NULLs: no "nodes" between its "buffers" and its "nulls".
    Matcher nulls = Pattern.compile("\"buffers\":\\[[0-9,]*\\],\"nulls\":([1-9][0-9]*)").matcher(footer);
    assertTrue(nulls.find(), footer);
    // The same length, so the commit log's recorded size still holds.
    String rewritten = footer.substring(0, nulls.start(1)) + "0" + " ".repeat(nulls.group(1).length() - 1)
        + footer.substring(nulls.end(1));
    byte[] bytes = rewritten.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(bytes, 0, file, footerStart, footerLength);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    ByteBuffer.wrap(file, file.length - 12, 4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue());
    Files.write(segment, file);
    CorruptTableException e = scanFails();
    assertNamesSegment(e);
    assertTrue(e.getMessage().contains("has NULLs its statistics say it has not"), e.getMessage());
  }

  @Test
  void truncatedSegmentIsCorruption() throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.setLength(f.length() / 2);
    }
    assertNamesSegment(scanFails());
  }

  @Test
  void missingSegmentIsCorruption() throws IOException {
    Files.delete(segment);
    CorruptTableException e = scanFails();
    assertNamesSegment(e);
    assertTrue(e.getMessage().contains("missing"), e.getMessage());
  }

  @Test
  void segmentDeletedAfterPlanningIsCorruptionOnRead() throws IOException {
    try (TableEngine engine = LogTestData.engine(100, 1 << 20);
        TableHandle table = engine.open(location).orElseThrow()) {
      var snapshot = table.latestSnapshot();
      ScanRequest request = ScanRequest.of(List.of("id"));
      var unit = snapshot.plan(request).units().getFirst();
      Files.delete(segment);
      CorruptTableException e = assertThrows(CorruptTableException.class, () -> {
        try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
          reader.loadNextBatch();
        }
      });
      assertNamesSegment(e);
    }
  }

  @Test
  void garbageCommitEntryIsCorruption() throws IOException {
    Path entry = dir.resolve("_log/00000000000000000001.json");
    Files.writeString(entry, "{ this is not a commit", StandardCharsets.UTF_8);
    try (TableEngine engine = LogTestData.engine(100, 1 << 20)) {
      CorruptTableException e = assertThrows(CorruptTableException.class, () -> engine.open(location));
      assertTrue(e.getMessage().contains("00000000000000000001.json"), e.getMessage());
    }
  }

  @Test
  void flippedByteInCommitEntryIsCorruption() throws IOException {
    Path entry = dir.resolve("_log/00000000000000000001.json");
    byte[] bytes = Files.readAllBytes(entry);
    String text = new String(bytes, StandardCharsets.UTF_8);
    int at = text.indexOf("\"rows\":500") + 8;
    bytes[at] = '6';
    Files.write(entry, bytes);
    try (TableEngine engine = LogTestData.engine(100, 1 << 20)) {
      CorruptTableException e = assertThrows(CorruptTableException.class, () -> engine.open(location));
      assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    }
  }

  @Test
  void gapInTheCommitLogIsCorruption() throws IOException {
    Files.move(dir.resolve("_log/00000000000000000001.json"), dir.resolve("_log/00000000000000000002.json"));
    try (TableEngine engine = LogTestData.engine(100, 1 << 20)) {
      assertThrows(CorruptTableException.class, () -> engine.open(location));
    }
  }

  @Test
  void corruptEntryWrittenAfterOpenIsCorruptionOnRefresh() throws IOException {
    try (TableEngine engine = LogTestData.engine(100, 1 << 20);
        TableHandle table = engine.open(location).orElseThrow()) {
      Files.writeString(dir.resolve("_log/00000000000000000002.json"), "garbage");
      assertThrows(CorruptTableException.class, table::currentVersion);
    }
  }
}
