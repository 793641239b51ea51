package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.Version;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every ingested batch is validated completely before anything is committed: a malformed one is
 * INVALID_ARGUMENT naming the batch, column and problem, the table keeps its versions and rows,
 * a table the ingest would have created does not appear, and the server keeps answering.
 */
@SuppressWarnings("try")
class FlightIngestValidationTest {

  private static final TableIdent RUNS = TableIdent.of("lab", "runs");
  private static final TableIdent FRESH = TableIdent.of("lab", "fresh");
  private static final TableDefinitionOptions CREATE_OR_APPEND = TableDefinitionOptions.newBuilder()
      .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
      .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
      .build();
  // Buffers of an episodes batch: id (validity, data), robot (validity, offsets, data), reward.
  private static final int ROBOT_OFFSETS = 3;
  private static final int ROBOT_NODE = 1;

  @TempDir Path directory;
  private LakeServerFixture lake;
  private RawDoPut raw;

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    raw = new RawDoPut(lake.port());
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 10)) {
      lake.client().executeIngest(rows, IngestData.options("lab", "runs",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
          TableExistsOption.TABLE_EXISTS_OPTION_APPEND));
    }
  }

  @AfterEach
  void stop() throws Exception {
    raw.close();
    lake.close();
  }

  @Test
  void offsetsPastTheStringDataAreRefused() throws Exception {
    assertRefused(batch -> batch.getBuffers().get(ROBOT_OFFSETS).setInt(4L * 10, 1_000_000),
        "record batch 0 column 'robot'");
  }

  @Test
  void decreasingOffsetsAreRefused() throws Exception {
    assertRefused(batch -> batch.getBuffers().get(ROBOT_OFFSETS).setInt(4L * 10, 1),
        "record batch 0 column 'robot' is malformed");
  }

  @Test
  void aDeclaredRowCountTheBuffersDoNotHoldIsRefused() throws Exception {
    // The case: 82 rows declared as 90.
    Answer answer = sendBoth(rows -> {
      try (ArrowRecordBatch real = new VectorUnloader(rows).getRecordBatch()) {
        return new ArrowRecordBatch(90, real.getNodes(), real.getBuffers());
      }
    });
    assertInvalid(answer, "record batch 0 column 'id' has 82 values but the batch declares 90 rows");
  }

  @Test
  void aNullCountTheValidityBitmapContradictsIsRefused() throws Exception {
    Answer answer = sendBoth(rows -> {
      ((VarCharVector) rows.getVector("robot")).setNull(3);
      try (ArrowRecordBatch real = new VectorUnloader(rows).getRecordBatch()) {
        List<ArrowFieldNode> nodes = new ArrayList<>(real.getNodes());
        nodes.set(ROBOT_NODE, new ArrowFieldNode(82, 0));
        return new ArrowRecordBatch(82, nodes, real.getBuffers());
      }
    });
    assertInvalid(answer, "record batch 0 column 'robot' declares 0 NULLs but its validity bitmap"
        + " holds 1");
  }

  @Test
  void invalidUtf8IsRefusedNamingThePosition() throws Exception {
    Answer answer = sendBoth(rows -> {
      ((VarCharVector) rows.getVector("robot")).setSafe(5, new byte[] {'a', (byte) 0xC3, '('});
      return new VectorUnloader(rows).getRecordBatch();
    });
    assertInvalid(answer,
        "record batch 0 column 'robot' is malformed: Non-UTF-8 data in VarCharVector at position 5");
  }

  @Test
  void aBodyShorterThanTheHeaderAnnouncesIsRefused() throws Exception {
    Flight.FlightData good;
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 100, 82)) {
      good = RawDoPut.batchMessage(rows);
    }
    Flight.FlightData cut = good.toBuilder()
        .setDataBody(good.getDataBody().substring(0, good.getDataBody().size() / 2)).build();
    for (TableIdent target : List.of(RUNS, FRESH)) {
      assertInvalid(send(target, cut), "body bytes");
    }
  }

  @Test
  void aValidBatchAfterAMalformedOneIsNotCommittedEither() throws Exception {
    Flight.FlightData good;
    Flight.FlightData bad;
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 100, 82)) {
      good = RawDoPut.batchMessage(rows);
      ((VarCharVector) rows.getVector("robot")).setSafe(0, new byte[] {(byte) 0xFF});
      bad = RawDoPut.batchMessage(rows);
    }
    assertInvalid(send(RUNS, good, bad, good), "record batch 1 column 'robot' is malformed");
    assertUnchanged();
  }

  @Test
  void aSchemaWithATypeNoVectorHasIsRefusedNamingTheColumn() throws Exception {
    // Found by FlightIngestFuzzTest (seed 99, input 607): a flipped bit made an Int 72 bits wide.
    org.apache.arrow.vector.types.pojo.Schema odd = new org.apache.arrow.vector.types.pojo.Schema(
        List.of(org.apache.arrow.vector.types.pojo.Field.nullable("wide",
            new org.apache.arrow.vector.types.pojo.ArrowType.Int(72, true))));
    RawDoPut.Answer answer = raw.send(List.of(RawDoPut.schemaMessage(
        RawDoPut.ingest("lab", "fresh", CREATE_OR_APPEND), odd).toByteArray()));
    assertInvalid(answer, "the schema's column 'wide' has type Int(72, true)");
  }

  /** Applies {@code damage} to a valid 82-row batch and ingests it into both tables. */
  private void assertRefused(Consumer<ArrowRecordBatch> damage, String expected) throws Exception {
    Answer answer = sendBoth(rows -> {
      ArrowRecordBatch batch = new VectorUnloader(rows).getRecordBatch();
      damage.accept(batch);
      return batch;
    });
    assertInvalid(answer, expected);
  }

  private record Answer(RawDoPut.Answer existing, RawDoPut.Answer fresh) {}

  /**
   * Builds a batch from 82 valid rows with {@code make} and ingests it into the existing table
   * (append) and a missing one (create); checks both left everything as it was.
   */
  private Answer sendBoth(java.util.function.Function<VectorSchemaRoot, ArrowRecordBatch> make)
      throws Exception {
    Flight.FlightData message;
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 100, 82);
        ArrowRecordBatch batch = make.apply(rows)) {
      message = RawDoPut.batchMessage(batch);
    }
    RawDoPut.Answer existing = send(RUNS, message);
    RawDoPut.Answer fresh = send(FRESH, message);
    return new Answer(existing, fresh);
  }

  private RawDoPut.Answer send(TableIdent target, Flight.FlightData... batches) throws Exception {
    List<byte[]> messages = new ArrayList<>();
    messages.add(RawDoPut.schemaMessage(RawDoPut.ingest(target.namespace(), target.name(),
        CREATE_OR_APPEND), IngestData.EPISODES).toByteArray());
    for (Flight.FlightData batch : batches) {
      messages.add(batch.toByteArray());
    }
    return raw.send(messages);
  }

  private void assertInvalid(Answer answer, String expected) throws Exception {
    assertInvalid(answer.existing(), expected);
    assertInvalid(answer.fresh(), expected);
  }

  private void assertInvalid(RawDoPut.Answer answer, String expected) throws Exception {
    assertEquals(Status.Code.INVALID_ARGUMENT, answer.status().getCode(), answer.describe());
    assertTrue(answer.status().getDescription().contains(expected), answer.describe());
    assertUnchanged();
  }

  // The existing table keeps its one version of 10 rows (and every aggregate over it works);
  // the missing one was not created.
  private void assertUnchanged() throws Exception {
    assertEquals(Version.of(1), lake.catalog.lookup(RUNS).orElseThrow().version());
    assertTrue(lake.catalog.lookup(FRESH).isEmpty(), "no table was created");
    assertEquals(List.of(List.of(10L, 10L, 45L)), rows(lake.client(),
        "SELECT count(*), count(robot), sum(id) FROM lab.runs"));
  }

  static List<List<Object>> rows(FlightSqlClient client, String sql) throws Exception {
    FlightInfo info = client.execute(sql);
    List<List<Object>> rows = new ArrayList<>();
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (var vector : root.getFieldVectors()) {
            row.add(vector.getObject(r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }
}
