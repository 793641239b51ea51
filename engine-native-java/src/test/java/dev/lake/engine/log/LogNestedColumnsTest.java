package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestFiles.flipByte;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.MaintenancePolicy;
import dev.lake.engine.NestedRows;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Struct, list, large-list and fixed-size-list columns in the {@code log} format: every value,
 * NULL and empty list comes back as written (compared with the model in {@link NestedRows} and,
 * vector for vector, with Arrow's own equality), across block boundaries, through compaction;
 * damaged chunks are never data; types the format cannot store are refused at create.
 */
class LogNestedColumnsTest {

  private static final Schema SCHEMA = NestedRows.SCHEMA;
  private static final List<String> COLUMNS = LogTestData.columnNames(SCHEMA);

  @TempDir Path dir;
  private RootAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  private ArrowReader rows(long first, int... sizes) {
    return LogTestData.reader(SCHEMA, allocator, NestedRows::batch, first, sizes);
  }

  @Test
  void nestedColumnsRoundTripAcrossBlockBoundariesWithNullsAtEveryLevel() throws IOException {
    // Block 1 is staged from two batches; block 2 is cut straight from the second batch at row
    // 65,533 (not on a byte of the bitmaps); block 3 is staged from three batches.
    int[] sizes = {3, 65_533 + 65_536 + 10, 1, 4_000};
    long total = 3 + 65_533 + 65_536 + 10 + 1 + 4_000;
    try (TableEngine engine = LogTestData.engine(65_536, 256L << 20);
        TableHandle table = engine.create(TableLocation.of(dir), SCHEMA);
        ArrowReader reader = rows(0, sizes)) {
      table.append(LogTestData.op(1), reader);
      Snapshot snapshot = table.latestSnapshot();
      assertEquals(total, snapshot.rowCount());
      ScanRequest all = ScanRequest.of(COLUMNS);
      assertEquals(3, snapshot.plan(all).blocksTotal());
      assertEquals(total, readChecked(snapshot, all));
    }
  }

  @Test
  void projectionOfSomeNestedColumnsReadsThemExactly() throws IOException {
    try (TableEngine engine = LogTestData.engine(1_000, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir), SCHEMA);
        ArrowReader reader = rows(0, 2_500, 1_234)) {
      table.append(LogTestData.op(1), reader);
      assertEquals(3_734, readChecked(table.latestSnapshot(), ScanRequest.of(List.of("meta", "id", "samples"))));
      assertEquals(3_734, readChecked(table.latestSnapshot(), ScanRequest.of(List.of("id", "events"))));
    }
  }

  @Test
  void compactionRewritesNestedSegmentsWithTheSameValues() throws IOException {
    TableLocation location = TableLocation.of(dir);
    try (TableEngine engine = LogTestData.engine(1_000, 1 << 20);
        TableHandle table = engine.create(location, SCHEMA)) {
      for (int i = 0; i < 3; i++) {
        try (ArrowReader reader = rows(i * 700L, 700)) {
          table.append(LogTestData.op(i + 1), reader);
        }
      }
      assertEquals(Optional.of(Version.of(4)),
          engine.maintain(location, MaintenancePolicy.compactOnly(64L << 20, 2)));
      Snapshot compacted = table.snapshot(Version.of(4));
      assertEquals(3, compacted.plan(ScanRequest.of(COLUMNS)).blocksTotal());
      assertEquals(2_100, readChecked(compacted, ScanRequest.of(COLUMNS)));
    }
  }

  @Test
  void flippedByteInANestedChunkIsCorruptionNeverData() throws IOException {
    TableLocation location = TableLocation.of(dir);
    try (TableEngine engine = LogTestData.engine(100, 1 << 20);
        TableHandle table = engine.create(location, SCHEMA);
        ArrowReader reader = rows(0, 300)) {
      table.append(LogTestData.op(1), reader);
    }
    Path segment = onlySegment();
    long dataEnd = Files.size(segment) - 16 - footer(segment).length;
    for (long at = 8; at < dataEnd; at += Math.max(1, dataEnd / 41)) {
      flipByte(segment, at);
      CorruptTableException e = assertThrows(CorruptTableException.class, () -> {
        try (TableEngine engine = LogTestData.engine(100, 1 << 20);
            TableHandle table = engine.open(location).orElseThrow()) {
          readChecked(table.latestSnapshot(), ScanRequest.of(COLUMNS));
        }
      });
      // A chunk's bytes fail its checksum; the zeros aligning the next chunk must stay zeros.
      assertTrue(e.getMessage().contains("checksum") || e.getMessage().contains("alignment padding"),
          e.getMessage());
      flipByte(segment, at);
    }
  }

  @Test
  void segmentsWithNestedColumnsHaveFooterFormatTwoAndFlatOnesKeepOne() throws IOException {
    try (TableEngine engine = LogTestData.engine(100, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir.resolve("nested")), SCHEMA);
        ArrowReader reader = rows(0, 10)) {
      table.append(LogTestData.op(1), reader);
    }
    try (TableEngine engine = LogTestData.engine(100, 1 << 20);
        TableHandle table = engine.create(TableLocation.of(dir.resolve("flat")), LogTestData.ALL_TYPES);
        ArrowReader reader = LogTestData.reader(LogTestData.ALL_TYPES, allocator, 0, 10)) {
      table.append(LogTestData.op(1), reader);
    }
    ObjectMapper json = new ObjectMapper();
    assertEquals(2, json.readTree(footer(onlySegment(dir.resolve("nested")))).get("format").asInt());
    assertEquals(1, json.readTree(footer(onlySegment(dir.resolve("flat")))).get("format").asInt());
  }

  @Test
  void mapUnionAndDictionaryColumnsAreRefusedAtCreateNamingTheColumnAndWritingNothing() {
    ArrowType.Int int32 = new ArrowType.Int(32, true);
    Field map = new Field("attrs", FieldType.nullable(new ArrowType.Map(false)), List.of(
        new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
            new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
            NestedRows.nullable("value", int32)))));
    Field union = NestedRows.nullable("video", ArrowType.Struct.INSTANCE,
        NestedRows.nullable("uri", ArrowType.Utf8.INSTANCE),
        NestedRows.nullable("codec", new ArrowType.Union(UnionMode.Sparse, new int[] {0, 1}),
            NestedRows.nullable("name", ArrowType.Utf8.INSTANCE), NestedRows.nullable("id", int32)));
    Field dictionary = new Field("robot", new FieldType(true, ArrowType.Utf8.INSTANCE,
        new DictionaryEncoding(0, false, int32)), null);
    Field listOfMaps = NestedRows.nullable("tags", ArrowType.List.INSTANCE, map);
    record Case(Field field, String column, String part) {}
    List<Case> cases = List.of(
        new Case(map, "'attrs'", "Map"),
        new Case(union, "'video'", "'video.codec' has type Union"),
        new Case(dictionary, "'robot'", "dictionary-encoded"),
        new Case(listOfMaps, "'tags'", "'tags[]' has type Map"));
    try (TableEngine engine = LogTestData.engine(100, 1 << 20)) {
      for (Case c : cases) {
        TableLocation location = TableLocation.of(dir.resolve(c.field().getName()));
        Schema schema = new Schema(List.of(SCHEMA.findField("id"), c.field()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> engine.create(location, schema));
        assertTrue(e.getMessage().contains("column " + c.column()), e.getMessage());
        assertTrue(e.getMessage().contains(c.part()), e.getMessage());
        assertTrue(engine.open(location).isEmpty());
        assertTrue(!Files.exists(location.localPath()), "nothing was written for " + c.column());
      }
    }
  }

  /**
   * Reads {@code request} (whose columns include {@code id}), checking each batch vector for
   * vector against the same rows built afresh (Arrow's range equality: nulls at every level,
   * offsets, values) and every value against the model. Returns the rows read; the ids must
   * come in order, each once.
   */
  private long readChecked(Snapshot snapshot, ScanRequest request) throws IOException {
    Schema schema = NestedRows.columns(request.columns().toArray(String[]::new));
    long next = 0;
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        assertEquals(schema, root.getSchema());
        while (reader.loadNextBatch()) {
          int n = root.getRowCount();
          assertEquals(next, ((BigIntVector) root.getVector("id")).get(0), "ids in order");
          try (VectorSchemaRoot expected = NestedRows.batch(schema, allocator, next, n)) {
            for (int c = 0; c < schema.getFields().size(); c++) {
              assertTrue(new RangeEqualsVisitor(expected.getVector(c), root.getVector(c))
                  .rangeEquals(new Range(0, 0, n)), "column " + schema.getFields().get(c).getName()
                  + " of the batch from row " + next);
            }
          }
          NestedRows.assertRows(root);
          next += n;
        }
      }
    }
    return next;
  }

  private Path onlySegment() throws IOException {
    return onlySegment(dir);
  }

  private static Path onlySegment(Path table) throws IOException {
    try (Stream<Path> files = Files.list(table.resolve("data"))) {
      List<Path> all = files.toList();
      assertEquals(1, all.size());
      return all.getFirst();
    }
  }

  /** The footer JSON of a segment: the bytes before its 16-byte tail. */
  private static byte[] footer(Path segment) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "r")) {
      byte[] tail = new byte[16];
      f.seek(f.length() - 16);
      f.readFully(tail);
      int length = ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
      byte[] footer = new byte[length];
      f.seek(f.length() - 16 - length);
      f.readFully(footer);
      return footer;
    }
  }

}
