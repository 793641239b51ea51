package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestData.ALL_TYPES;
import static dev.lake.engine.log.LogTestFiles.flipByte;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.EngineException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code log.compression}: segments of every setting read back alike in one table, and damage
 * to an encoded or compressed segment is a CorruptTableException naming segment, block and column.
 */
class LogCompressionTest {

  @TempDir Path dir;
  private RootAllocator allocator;
  private TableLocation location;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    location = TableLocation.of(dir);
  }

  @AfterEach
  void tearDown() {
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  private static TableEngine engine(String compression) {
    Map<String, String> p = new HashMap<>(Map.of("log.block.rows", "100", "log.segment.bytes", "1048576"));
    if (compression != null) {
      p.put("log.compression", compression);
    }
    return new LogEngineFactory().create(p);
  }

  @Test
  void segmentsOfEveryFormatReadBackTogetherInOneTable() throws IOException {
    // Default (none: formats 1/2), then fast and small, appended to the same table.
    List<String> settings = new ArrayList<>();
    settings.add(null);
    settings.addAll(List.of("fast", "small", "none"));
    long first = 0;
    for (int i = 0; i < settings.size(); i++) {
      try (TableEngine engine = engine(settings.get(i));
          TableHandle table = i == 0 ? engine.create(location, ALL_TYPES) : engine.open(location).orElseThrow();
          ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, first, 250, 1, 99)) {
        table.append(LogTestData.op(i + 1), reader);
      }
      first += 350;
    }
    List<String> formats = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir.resolve("data"))) {
      for (Path f : files.toList()) {
        String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        formats.add(text.contains("\"format\":3") ? "3" : "1");
      }
    }
    assertEquals(2, formats.stream().filter("3"::equals).count(), formats.toString());
    List<String> columns = LogTestData.columnNames(ALL_TYPES);
    try (TableEngine engine = engine("small"); TableHandle table = engine.open(location).orElseThrow()) {
      List<List<Object>> rows = LogTestData.readAll(table.latestSnapshot(), ScanRequest.of(columns), allocator);
      rows.sort((a, b) -> Long.compare((Long) a.get(0), (Long) b.get(0)));
      assertEquals(first, rows.size());
      for (int id = 0; id < first; id++) {
        assertEquals(LogTestData.expectedRow(columns, id), rows.get(id), "row " + id);
      }
    }
  }

  @Test
  void everyFlippedByteOfACompressedSegmentIsCorruptionNamingSegmentBlockAndColumn() throws IOException {
    for (String compression : List.of("fast", "small")) {
      Path table = dir.resolve(compression);
      TableLocation at = TableLocation.of(table);
      try (TableEngine engine = engine(compression); TableHandle handle = engine.create(at, ALL_TYPES);
          ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 0, 500)) {
        handle.append(LogTestData.op(1), reader);
      }
      Path segment;
      try (Stream<Path> files = Files.list(table.resolve("data"))) {
        segment = files.findFirst().orElseThrow();
      }
      long size = Files.size(segment);
      int namedColumns = 0;
      for (long pos = 0; pos < size; pos += Math.max(1, size / 89)) {
        flipByte(segment, pos);
        CorruptTableException e = assertThrows(CorruptTableException.class, () -> {
          try (TableEngine engine = engine(compression); TableHandle handle = engine.open(at).orElseThrow()) {
            LogTestData.readAll(handle.latestSnapshot(), ScanRequest.of(LogTestData.columnNames(ALL_TYPES)),
                allocator);
          }
        }, compression + " byte " + pos);
        assertTrue(e.getMessage().contains("data/" + segment.getFileName()), e.getMessage());
        if (e.getMessage().contains("block") && e.getMessage().contains("column")) {
          namedColumns++;
        }
        flipByte(segment, pos);
      }
      assertTrue(namedColumns > 40, compression + ": most flips land in chunks, " + namedColumns);
    }
  }

  @Test
  void anUnknownCompressionIsRefusedNamingTheProperty() {
    EngineException e = assertThrows(EngineException.class,
        () -> new LogEngineFactory().create(Map.of("log.compression", "tiny")));
    assertTrue(e.getMessage().contains("log.compression") && e.getMessage().contains("'tiny'"), e.getMessage());
  }

}
