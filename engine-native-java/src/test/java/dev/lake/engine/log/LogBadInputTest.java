package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestData.ALL_TYPES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.TableExistsException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogBadInputTest {

  @TempDir Path dir;
  private LogTableFixture fixture;
  private RootAllocator allocator;
  private TableEngine engine;
  private TableHandle table;

  @BeforeEach
  void setUp() {
    fixture = new LogTableFixture(dir);
    allocator = fixture.allocator;
    engine = fixture.engine;
    table = fixture.table;
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private Schema withField(int index, Field replacement) {
    List<Field> fields = new ArrayList<>(ALL_TYPES.getFields());
    fields.set(index, replacement);
    return new Schema(fields);
  }

  private void assertMismatch(Schema schema, String expectedInMessage) throws IOException {
    try (ArrowReader reader = LogTestData.reader(schema, allocator, 0, 10)) {
      SchemaMismatchException e = assertThrows(SchemaMismatchException.class,
          () -> table.append(LogTestData.op(1), reader));
      assertTrue(e.getMessage().contains(expectedInMessage), e.getMessage());
    }
    assertEquals(Version.INITIAL, table.currentVersion());
    assertEquals(0, table.latestSnapshot().rowCount());
    assertEquals(0, dataFiles());
  }

  @Test
  void appendWithAnotherTypeIsSchemaMismatchAndWritesNothing() throws IOException {
    assertMismatch(withField(3, LogTestData.nullable("i32", new ArrowType.Int(64, true))), "'i32'");
  }

  @Test
  void appendWithAnotherNameIsSchemaMismatch() throws IOException {
    assertMismatch(withField(2, LogTestData.nullable("i16x", new ArrowType.Int(16, true))), "'i16x'");
  }

  @Test
  void appendWithMissingColumnIsSchemaMismatch() throws IOException {
    assertMismatch(new Schema(ALL_TYPES.getFields().subList(0, 5)), "lack column 'f32'");
  }

  @Test
  void nullableBatchIntoNotNullColumnIsSchemaMismatch() throws IOException {
    assertMismatch(withField(0, LogTestData.nullable("id", new ArrowType.Int(64, true))), "NOT NULL");
  }

  @Test
  void notNullBatchIntoNullableColumnIsAccepted() throws IOException {
    Schema nullableId = withField(0, LogTestData.nullable("id", new ArrowType.Int(64, true)));
    try (TableHandle other = engine.create(TableLocation.of(dir.resolve("other")), nullableId);
        ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 0, 10)) {
      assertEquals(Version.of(1), other.append(LogTestData.op(1), reader));
      assertEquals(10, other.latestSnapshot().rowCount());
    }
  }

  @Test
  void appendWithoutRowsIsRejectedAndWritesNothing() throws IOException {
    try (ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 0)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> table.append(LogTestData.op(1), reader));
      assertTrue(e.getMessage().contains("no rows"), e.getMessage());
    }
    try (ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 0, 0, 0)) {
      assertThrows(IllegalArgumentException.class, () -> table.append(LogTestData.op(1), reader));
    }
    assertEquals(Version.INITIAL, table.currentVersion());
    assertEquals(0, dataFiles());
  }

  @Test
  void createTwiceIsTableExists() {
    assertThrows(TableExistsException.class, () -> engine.create(TableLocation.of(dir), ALL_TYPES));
    assertEquals(ALL_TYPES, engine.open(TableLocation.of(dir)).orElseThrow().schema());
  }

  @Test
  void openOfAPlainDirectoryIsEmpty() throws IOException {
    Path plain = Files.createDirectories(dir.resolve("plain"));
    Files.writeString(plain.resolve("notes.txt"), "hello");
    assertEquals(Optional.empty(), engine.open(TableLocation.of(plain)));
    assertEquals(Optional.empty(), engine.open(TableLocation.of(dir.resolve("absent"))));
  }

  @Test
  void logDirectoryWithOnlyATempFileIsNoTable() throws IOException {
    Path half = Files.createDirectories(dir.resolve("half/_log"));
    Files.writeString(half.resolve(".tmp-123.json"), "{");
    assertEquals(Optional.empty(), engine.open(TableLocation.of(dir.resolve("half"))));
    engine.create(TableLocation.of(dir.resolve("half")), ALL_TYPES).close();
  }

  @Test
  void snapshotOfAFutureVersionIsVersionNotFound() {
    VersionNotFoundException e = assertThrows(VersionNotFoundException.class,
        () -> table.snapshot(Version.of(5)));
    assertEquals(Version.of(5), e.version());
  }

  @Test
  void unknownColumnInScanIsRejected() {
    assertThrows(IllegalArgumentException.class,
        () -> table.latestSnapshot().plan(dev.lake.engine.ScanRequest.of(List.of("nope"))));
  }

  private long dataFiles() throws IOException {
    if (!Files.exists(dir.resolve("data"))) {
      return 0;
    }
    try (Stream<Path> s = Files.list(dir.resolve("data"))) {
      return s.count();
    }
  }
}
