package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.DataLocation;
import dev.lake.engine.DataLocationCodec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import dev.lake.engine.RecordBatchReader;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code FILE} columns: created as the {@link DataLocationCodec} struct, kept across reopen, readable. */
class FileColumnTest {

  private static final String DIGEST = "ab".repeat(32);

  @TempDir Path dir;
  private RootAllocator allocator;
  private LogTablesCatalog catalog;
  private SqlEngine engine;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    catalog = new LogTablesCatalog(dir);
    engine = new SqlEngine(catalog, Long.MAX_VALUE, 2);
  }

  @AfterEach
  void close() {
    catalog.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  private Schema schema(String table) {
    return catalog.openTable(new TableName("robots", table)).orElseThrow().schema();
  }

  @Test
  void fileColumnIsTheDataLocationStructAndSurvivesReopening() {
    engine.executeUpdate("CREATE SCHEMA robots", allocator);
    engine.executeUpdate("CREATE TABLE robots.episodes (id BIGINT, video FILE NOT NULL, clip file)",
        allocator);
    Field video = schema("episodes").findField("video");
    assertTrue(DataLocationCodec.isFile(video), video.toString());
    assertFalse(video.isNullable());
    assertEquals(List.of("uri", "mime_type", "size", "sha256"),
        video.getChildren().stream().map(Field::getName).toList());
    assertTrue(DataLocationCodec.isFile(schema("episodes").findField("clip")));
    assertFalse(DataLocationCodec.isFile(schema("episodes").findField("id")));

    dev.lake.engine.TableLocation location = catalog.openTable(new TableName("robots", "episodes"))
        .orElseThrow().location();
    try (dev.lake.engine.TableEngine fresh = java.util.ServiceLoader.load(
            dev.lake.engine.TableEngineFactory.class).stream().map(java.util.ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow().create(java.util.Map.of());
        dev.lake.engine.TableHandle reopened = fresh.open(location).orElseThrow()) {
      assertTrue(DataLocationCodec.isFile(reopened.schema().findField("video")),
          "the FILE marker is kept in the table's metadata");
    }
  }

  @Test
  void insertedLocationsReadBackThroughTheCodec() throws IOException {
    engine.executeUpdate("CREATE SCHEMA robots", allocator);
    engine.executeUpdate("CREATE TABLE robots.episodes (id BIGINT, video FILE)", allocator);
    DataLocation a = new DataLocation(URI.create("file:///stage/a"), "video/mp4", 10, DIGEST);
    Schema params = new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)),
        DataLocationCodec.field("video", true)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(params, allocator)) {
      root.allocateNew();
      ((BigIntVector) root.getVector(0)).setSafe(0, 1);
      ((BigIntVector) root.getVector(0)).setSafe(1, 2);
      DataLocationCodec.write((StructVector) root.getVector(1), 0, a);
      DataLocationCodec.write((StructVector) root.getVector(1), 1, null);
      root.setRowCount(2);
      ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch();
      try (ArrowReader reader = new RecordBatchReader(allocator, params, List.of(batch))) {
        assertEquals(2, engine.prepareUpdate("INSERT INTO robots.episodes (id, video) VALUES (?, ?)")
            .execute(allocator, reader).count());
      }
    }
    List<DataLocation> read = new ArrayList<>();
    try (ArrowReader reader = engine.prepare("SELECT video FROM robots.episodes ORDER BY id")
        .execute(allocator)) {
      while (reader.loadNextBatch()) {
        StructVector v = (StructVector) reader.getVectorSchemaRoot().getVector(0);
        for (int r = 0; r < v.getValueCount(); r++) {
          read.add(DataLocationCodec.read(v, r));
        }
      }
    }
    assertEquals(java.util.Arrays.asList(
        a, null), read);
  }

  @Test
  void insertParametersOfAFileColumnCarryTheFileMarker() {
    engine.executeUpdate("CREATE SCHEMA robots", allocator);
    engine.executeUpdate("CREATE TABLE robots.episodes (id BIGINT, video FILE NOT NULL)", allocator);
    Schema params = engine.prepareUpdate(
        "INSERT INTO robots.episodes (id, video) VALUES (?, ?), (?, ?)").parameterSchema();
    assertEquals(List.of("id", "video", "id", "video"),
        params.getFields().stream().map(Field::getName).toList());
    assertTrue(DataLocationCodec.isFile(params.getFields().get(1)), params.toString());
    assertTrue(DataLocationCodec.isFile(params.getFields().get(3)), params.toString());
    assertFalse(DataLocationCodec.isFile(params.getFields().get(0)), params.toString());
  }

  @Test
  void fileInsideRowOrArrayAndFileWithArgumentsAreRefusedNamingTheColumn() {
    engine.executeUpdate("CREATE SCHEMA robots", allocator);
    SqlException e = assertThrows(SqlException.class, () -> engine.executeUpdate(
        "CREATE TABLE robots.bad (id BIGINT, video FILE(3))", allocator));
    assertTrue(e.getMessage().contains("video") || e.kind() == SqlException.Kind.SYNTAX, e.getMessage());
    assertTrue(catalog.openTable(new TableName("robots", "bad")).isEmpty());
  }
}
