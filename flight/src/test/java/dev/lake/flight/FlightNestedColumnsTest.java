package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.NestedRows;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Robot episodes with a struct video column, a fixed-size-list embedding and further list and
 * struct columns ({@link NestedRows}) ingested with the stock FlightSqlClient and read back with
 * it and with the stock JDBC driver: whole nested columns come back unchanged, fields and
 * elements as ordinary columns; types the format cannot store are refused at ingest.
 */
@SuppressWarnings("try")
class FlightNestedColumnsTest {

  private static final TableIdent EPISODES = TableIdent.of("lab", "episodes");
  private static final int BATCHES = 3;
  private static final int PER_BATCH = 3_000;

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() {
    lake = new LakeServerFixture(directory);
  }

  @AfterEach
  void stop() throws Exception {
    lake.close();
  }

  private long ingest(Schema schema) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, lake.clientAllocator());
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
      writer.start();
      for (int b = 0; b < BATCHES; b++) {
        try (VectorSchemaRoot batch = NestedRows.batch(schema, lake.clientAllocator(), (long) b * PER_BATCH, PER_BATCH);
            ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
          new VectorLoader(root).load(record);
        }
        writer.writeBatch();
      }
      writer.end();
    }
    try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()),
        lake.clientAllocator())) {
      return lake.client().executeIngest(reader, IngestData.options("lab", "episodes",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
    }
  }

  /** Runs {@code sql} with the FlightSqlClient, checks every row against the model, returns the ids. */
  private List<Long> checkedIds(String sql, Schema expected) throws Exception {
    FlightSqlClient client = lake.client();
    FlightInfo info = client.execute(sql);
    assertEquals(expected, FlightMetadataTest.withoutColumnMetadata(info.getSchemaOptional().orElseThrow()));
    List<Long> ids = new ArrayList<>();
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket())) {
      VectorSchemaRoot root = stream.getRoot();
      assertEquals(expected, FlightMetadataTest.withoutColumnMetadata(root.getSchema()));
      while (stream.next()) {
        ids.addAll(NestedRows.assertRows(root));
      }
    }
    return ids;
  }

  @Test
  void ingestedStructAndEmbeddingColumnsReadBackUnchanged() throws Exception {
    assertEquals(BATCHES * PER_BATCH, ingest(NestedRows.SCHEMA));
    assertEquals(NestedRows.SCHEMA, lake.catalog.lookup(EPISODES).orElseThrow().schema());

    assertEquals(LongStream.range(0, BATCHES * PER_BATCH).boxed().toList(),
        checkedIds("SELECT * FROM lab.episodes", NestedRows.SCHEMA).stream().sorted().toList());
    assertEquals(LongStream.rangeClosed(4_000, 4_099).boxed().toList(),
        checkedIds("SELECT id, video, embedding FROM lab.episodes WHERE id BETWEEN 4000 AND 4099 ORDER BY id",
            NestedRows.columns("id", "video", "embedding")));
  }

  @Test
  void jdbcReadsFieldsElementsAndWholeStructs() throws Exception {
    ingest(NestedRows.columns("id", "video", "embedding", "tags"));
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT id, video.uri, video.frames, embedding[1],"
            + " cardinality(tags), video FROM lab.episodes WHERE id < 50 ORDER BY id")) {
      for (long id = 0; id < 50; id++) {
        assertTrue(rs.next());
        assertEquals(id, rs.getLong(1));
        NestedRows.Video video = NestedRows.video(id);
        assertEquals(video == null ? null : video.uri(), rs.getString(2));
        assertEquals(video == null ? null : video.frames(), rs.getObject(3));
        List<Float> embedding = NestedRows.embedding(id);
        Float first = embedding == null ? null : embedding.getFirst();
        float read = rs.getFloat(4);
        assertEquals(first, rs.wasNull() ? null : read);
        List<String> tags = NestedRows.tags(id);
        assertEquals(tags == null ? null : tags.size(), rs.getObject(5));
        Object whole = rs.getObject(6);
        if (video == null) {
          assertEquals(null, whole);
        } else {
          assertEquals(video.uri(), String.valueOf(assertInstanceOf(Map.class, whole).get("uri")));
        }
      }
      assertFalse(rs.next());
    }
  }

  @Test
  void mapAndUnionColumnsAreRefusedAtIngestNamingTheColumnAndCreateNothing() throws Exception {
    ArrowType.Int int32 = new ArrowType.Int(32, true);
    Field map = new Field("attrs", FieldType.nullable(new ArrowType.Map(false)), List.of(
        new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
            new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
            NestedRows.nullable("value", int32)))));
    Field union = NestedRows.nullable("codec", new ArrowType.Union(UnionMode.Sparse, new int[] {0, 1}),
        NestedRows.nullable("name", ArrowType.Utf8.INSTANCE), NestedRows.nullable("id", int32));
    for (Field bad : List.of(map, union)) {
      Schema schema = new Schema(List.of(NestedRows.SCHEMA.findField("id"), bad));
      try (VectorSchemaRoot rows = VectorSchemaRoot.create(schema, lake.clientAllocator())) {
        rows.allocateNew(); // the map or union stays all NULL
        for (int i = 0; i < 3; i++) {
          ((BigIntVector) rows.getVector("id")).setSafe(i, i);
        }
        rows.setRowCount(3);
        FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
            () -> lake.client().executeIngest(rows, IngestData.options("lab", "episodes",
                TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, TableExistsOption.TABLE_EXISTS_OPTION_FAIL)));
        assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
        assertTrue(e.getMessage().contains("column '" + bad.getName() + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("lab.episodes"), e.getMessage());
      }
      assertTrue(lake.catalog.lookup(EPISODES).isEmpty(), "nothing created for " + bad.getName());
    }
    assertEquals(BATCHES * PER_BATCH, ingest(NestedRows.columns("id", "video")), "the server still ingests");
  }
}
