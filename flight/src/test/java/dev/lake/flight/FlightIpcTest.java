package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class FlightIpcTest {

  private static final Schema SCHEMA = new Schema(List.of(
      Field.nullable("id", new ArrowType.Int(64, true)),
      Field.nullable("name", ArrowType.Utf8.INSTANCE)));

  @Test
  void batchMessageDecodesToTheSameRowsWithoutLeaking() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot source = VectorSchemaRoot.create(SCHEMA, allocator)) {
      BigIntVector ids = (BigIntVector) source.getVector("id");
      VarCharVector names = (VarCharVector) source.getVector("name");
      for (int i = 0; i < 3; i++) {
        ids.setSafe(i, 10L + i);
        names.setSafe(i, ("row" + i).getBytes(StandardCharsets.UTF_8));
      }
      names.setNull(1);
      source.setRowCount(3);

      Flight.FlightData schemaMessage = FlightIpc.schemaMessage(SCHEMA);
      assertEquals(SCHEMA, FlightIpc.schema(FlightIpc.header(schemaMessage.getDataHeader())));

      Flight.FlightData data = FlightIpc.batchMessage(source);
      Message header = FlightIpc.header(data.getDataHeader());
      try (ArrowRecordBatch batch = FlightIpc.recordBatch(header, data.getDataBody(), allocator);
          VectorSchemaRoot copy = VectorSchemaRoot.create(SCHEMA, allocator)) {
        new VectorLoader(copy).load(batch);
        assertEquals(source.contentToTSVString(), copy.contentToTSVString());
      }
    }
  }

  @Test
  void bodyOfTheWrongLengthIsRefused() {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot source = VectorSchemaRoot.create(SCHEMA, allocator)) {
      source.setRowCount(0);
      Flight.FlightData data = FlightIpc.batchMessage(source);
      Message header = FlightIpc.header(data.getDataHeader());
      assertThrows(FlightIpc.IpcException.class, () -> FlightIpc.recordBatch(header,
          data.getDataBody().concat(ByteString.copyFrom(new byte[8])), allocator));
    }
  }

  @Test
  void aSchemaMessageIsNotABatchAndABatchIsNotASchema() {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot source = VectorSchemaRoot.create(SCHEMA, allocator)) {
      Message schema = FlightIpc.header(FlightIpc.schemaMessage(SCHEMA).getDataHeader());
      assertThrows(FlightIpc.IpcException.class,
          () -> FlightIpc.recordBatch(schema, ByteString.EMPTY, allocator));
      Message batch = FlightIpc.header(FlightIpc.batchMessage(source).getDataHeader());
      assertThrows(FlightIpc.IpcException.class, () -> FlightIpc.schema(batch));
      assertThrows(FlightIpc.IpcException.class, () -> FlightIpc.header(ByteString.EMPTY));
    }
  }

  @Test
  void anOutgoingBatchIsTheEncodedMessageOverTheArrowBuffersAndReleasesThemOnce() {
    try (BufferAllocator allocator = new RootAllocator()) {
      BufferAllocator query = allocator.newChildAllocator("query", 0, Long.MAX_VALUE);
      VectorSchemaRoot source = VectorSchemaRoot.create(SCHEMA, query);
      BigIntVector ids = (BigIntVector) source.getVector("id");
      VarCharVector names = (VarCharVector) source.getVector("name");
      for (int i = 0; i < 5; i++) {
        ids.setSafe(i, 7L * i);
        names.setSafe(i, ("n" + i).getBytes(StandardCharsets.UTF_8));
      }
      names.setNull(3);
      source.setRowCount(5);
      byte[] encoded = FlightIpc.encodedBatch(source);
      OutgoingMessage message = FlightIpc.outgoingBatch(source);
      // The message holds the buffers: the root lets go of its own and they stay readable.
      source.close();
      assertEquals(encoded.length, message.size());
      io.vertx.core.buffer.Buffer framed = message.framed();
      assertEquals(OutgoingMessage.PREFIX_BYTES + encoded.length, framed.length());
      assertEquals(0, framed.getByte(0), "not compressed");
      assertEquals(encoded.length, framed.getInt(1));
      assertArrayEquals(encoded, framed.getBytes(OutgoingMessage.PREFIX_BYTES, framed.length()));
      assertArrayEquals(encoded, message.copiedPayload().getBytes());
      message.close();
      message.close();
      assertEquals(0, query.getAllocatedMemory(), "released once, at close");
      query.close();
    }
  }
}
