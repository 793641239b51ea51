package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.Any;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.util.Optional;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged commit log entry or checkpoint of a {@code log} table reaches Flight clients as
 * {@code DATA_LOSS} naming the table, the kind of file and its version (never a path root or a
 * stack trace); the server still starts, other tables still read, and nothing is changed.
 */
class FlightCorruptMetadataTest {

  private static final TableIdent T = TableIdent.of("demo", "t");
  private static final TableIdent OTHER = TableIdent.of("demo", "other");

  @TempDir Path directory;
  private LakeServerFixture lake;

  @AfterEach
  void stop() throws Exception {
    if (lake != null) {
      lake.close();
    }
  }

  @Test
  void aCommitLogEntryFailingItsChecksumIsDataLossNamingTableAndVersion() throws Exception {
    Path table = tablesWith(3);
    flipByte(table.resolve("_log").resolve("00000000000000000002.json"), 40);
    lake = new LakeServerFixture(directory);
    Status status = planningFails("SELECT count(*) FROM demo.t");
    assertEquals(Status.Code.DATA_LOSS, status.getCode(), status.toString());
    assertEquals("corrupt data in table lake.demo.t: commit log entry of version 2"
        + " _log/00000000000000000002.json fails its checksum", status.getDescription());
    assertNoServerDetail(status.getDescription());
    assertOtherTableStillReads();
    // An append is refused the same way and writes nothing.
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 1, 5)) {
      dev.lake.engine.CorruptMetadataException append = assertThrows(
          dev.lake.engine.CorruptMetadataException.class,
          () -> lake.registry.append(T, Optional.empty(), operation(), rows));
      assertEquals("lake.demo.t", append.table());
      assertEquals(Status.Code.DATA_LOSS.value(),
          ErrorMapper.toStatus(append).status().code);
    }
    assertFalse(Files.exists(table.resolve("_log").resolve("00000000000000000004.json")),
        "nothing was committed");
  }

  @Test
  void aTruncatedCommitLogEntryIsDataLoss() throws Exception {
    Path table = tablesWith(2);
    Path entry = table.resolve("_log").resolve("00000000000000000001.json");
    Files.write(entry, java.util.Arrays.copyOf(Files.readAllBytes(entry), 20));
    lake = new LakeServerFixture(directory);
    Status status = planningFails("SELECT * FROM demo.t");
    assertEquals(Status.Code.DATA_LOSS, status.getCode(), status.toString());
    assertEquals("corrupt data in table lake.demo.t: commit log entry of version 1"
        + " _log/00000000000000000001.json is truncated or not a commit log entry",
        status.getDescription());
    assertOtherTableStillReads();
  }

  @Test
  void aMissingEntryBetweenOthersIsDataLossNamingTheGap() throws Exception {
    Path table = tablesWith(3);
    Files.delete(table.resolve("_log").resolve("00000000000000000002.json"));
    lake = new LakeServerFixture(directory);
    Status status = planningFails("SELECT count(*) FROM t");
    assertEquals(Status.Code.DATA_LOSS, status.getCode(), status.toString());
    assertEquals("corrupt data in table lake.demo.t: commit log entry of version 2"
        + " _log/00000000000000000002.json is missing but _log/00000000000000000003.json exists"
        + " (the commit log has a gap)", status.getDescription());
    assertOtherTableStillReads();
  }

  @Test
  void aDamagedCheckpointIsDataLossNamingItsVersion() throws Exception {
    // The engine writes a checkpoint every 100 versions by default.
    Path table = tablesWith(100);
    Path checkpoint = table.resolve("_checkpoints").resolve("00000000000000000100.json");
    flipByte(checkpoint, Files.size(checkpoint) / 2);
    lake = new LakeServerFixture(directory);
    Status status = planningFails("SELECT count(*) FROM demo.t");
    assertEquals(Status.Code.DATA_LOSS, status.getCode(), status.toString());
    assertEquals("corrupt data in table lake.demo.t: checkpoint of version 100"
        + " _checkpoints/00000000000000000100.json fails its checksum", status.getDescription());
    assertNoServerDetail(status.getDescription());
    assertOtherTableStillReads();
  }

  /** demo.t with {@code appends} one-row versions and demo.other with one; the server stopped. */
  private Path tablesWith(int appends) throws Exception {
    try (LakeServerFixture writer = new LakeServerFixture(directory)) {
      writer.registry.create(T, IngestData.EPISODES, "log");
      writer.registry.create(OTHER, IngestData.EPISODES, "log");
      for (int i = 0; i < appends; i++) {
        try (ArrowStreamReader rows = IngestData.stream(writer.clientAllocator(), i, 1, 1)) {
          writer.registry.append(T, Optional.empty(), operation(), rows);
        }
      }
      try (ArrowStreamReader rows = IngestData.stream(writer.clientAllocator(), 0, 1, 3)) {
        writer.registry.append(OTHER, Optional.empty(), operation(), rows);
      }
      return Path.of(writer.catalog.lookup(T).orElseThrow().location().uri());
    }
  }

  private void assertOtherTableStillReads() throws Exception {
    assertEquals(List.of(List.of(3L)),
        FlightIngestValidationTest.rows(lake.client(), "SELECT count(*) FROM demo.other"));
  }

  /** The status GetFlightInfo of {@code sql} ends with, as sent (through the raw gRPC stub). */
  private Status planningFails(String sql) throws Exception {
    Flight.FlightDescriptor descriptor = Flight.FlightDescriptor.newBuilder()
        .setType(Flight.FlightDescriptor.DescriptorType.CMD)
        .setCmd(Any.pack(FlightSql.CommandStatementQuery.newBuilder().setQuery(sql).build())
            .toByteString())
        .build();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", lake.port())
        .usePlaintext().build();
    try {
      StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
          () -> FlightServiceGrpc.newBlockingStub(channel).getFlightInfo(descriptor));
      return e.getStatus();
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private void assertNoServerDetail(String message) {
    assertFalse(message.contains(directory.toString()), message);
    assertFalse(message.contains("file:"), message);
    assertFalse(message.contains("\tat "), message);
    assertFalse(message.contains("Exception"), message);
  }

  private static AppendOperation operation() {
    return new AppendOperation("default", "demo.t", UUID.randomUUID(), "0".repeat(64));
  }

  private static void flipByte(Path file, long position) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(position);
      int b = f.read();
      f.seek(position);
      f.write(b ^ 0x10);
    }
  }
}
