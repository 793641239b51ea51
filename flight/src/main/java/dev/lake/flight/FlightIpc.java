package dev.lake.flight;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.vertx.grpc.common.CodecException;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcMessageDecoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Arrow IPC in Flight's framing: a {@code FlightData} carries one IPC message, its flatbuffer
 * header in {@code data_header} and its body buffers, laid out at the offsets the header
 * announces, in {@code data_body}.
 *
 * <p>{@code DoGet}'s batches go out as {@link OutgoingMessage}s over the Arrow buffers themselves;
 * {@link #encodedBatch} (one heap copy) serves the messages built up front.
 *
 * <p>Public only for lake's own Flight servers (the Metasrv package); not an API.
 */
public final class FlightIpc {

  private static final IpcOption OPTION = IpcOption.DEFAULT;

  private FlightIpc() {}

  /** The IPC-encapsulated schema message, as {@code FlightInfo.schema} and {@code dataset_schema} hold it. */
  static ByteString schemaBytes(Schema schema) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      MessageSerializer.serialize(new WriteChannel(Channels.newChannel(out)), schema, OPTION);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteString.copyFrom(out.toByteArray());
  }

  /** The first message of a stream: the schema, no body. */
  static Flight.FlightData schemaMessage(Schema schema) {
    return Flight.FlightData.newBuilder()
        .setDataHeader(ByteString.copyFrom(MessageSerializer.serializeMetadata(schema, OPTION)))
        .build();
  }

  /** The current contents of {@code root} as one record-batch message (copied). */
  static Flight.FlightData batchMessage(VectorSchemaRoot root) {
    try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
      return batchMessage(batch);
    }
  }

  static Flight.FlightData batchMessage(ArrowRecordBatch batch) {
    try {
      return Flight.FlightData.parseFrom(encodedBatch(batch));
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalStateException("lake wrote a FlightData it cannot read", e);
    }
  }

  /**
   * The current contents of {@code root} as one serialized record-batch {@code FlightData},
   * ready for the wire: the Arrow buffers are copied once, straight into the message bytes.
   */
  static byte[] encodedBatch(VectorSchemaRoot root) {
    try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
      return encodedBatch(batch);
    }
  }

  /**
   * The current contents of {@code root} as one record-batch message over its own buffers (no
   * copy of the body); the caller closes it once written.
   */
  static OutgoingMessage outgoingBatch(VectorSchemaRoot root) {
    return OutgoingMessage.batch(root, OPTION);
  }

  /**
   * The size of a record-batch {@code FlightData} with a flatbuffer header of {@code
   * headerBytes} and a body of {@code bodyLength}.
   *
   * @throws IllegalStateException if it exceeds what one message can carry
   */
  static int flightDataSize(int headerBytes, long bodyLength) {
    long size = CodedOutputStream.computeTagSize(Flight.FlightData.DATA_HEADER_FIELD_NUMBER)
        + CodedOutputStream.computeUInt32SizeNoTag(headerBytes) + headerBytes
        + CodedOutputStream.computeTagSize(Flight.FlightData.DATA_BODY_FIELD_NUMBER)
        + CodedOutputStream.computeUInt64SizeNoTag(bodyLength)
        + bodyLength;
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("record batch of " + bodyLength
          + " body bytes exceeds the 2 GiB Flight message limit; use smaller batches");
    }
    return (int) size;
  }

  static byte[] encodedBatch(ArrowRecordBatch batch) {
    ByteString header = ByteString.copyFrom(MessageSerializer.serializeMetadata(batch, OPTION));
    long bodyLength = batch.computeBodyLength();
    byte[] message = new byte[flightDataSize(header.size(), bodyLength)];
    CodedOutputStream out = CodedOutputStream.newInstance(message);
    try {
      out.writeBytes(Flight.FlightData.DATA_HEADER_FIELD_NUMBER, header);
      out.writeTag(Flight.FlightData.DATA_BODY_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt64NoTag(bodyLength);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // The header records an offset for every buffer (8-byte aligned); the body must match it.
    // Padding stays zero, as the array starts zeroed.
    int bodyStart = out.getTotalBytesWritten();
    List<ArrowBuf> buffers = batch.getBuffers();
    List<ArrowBuffer> layout = batch.getBuffersLayout();
    for (int i = 0; i < buffers.size(); i++) {
      ArrowBuffer slot = layout.get(i);
      buffers.get(i).getBytes(0, message, bodyStart + (int) slot.getOffset(), (int) slot.getSize());
    }
    return message;
  }

  /**
   * What {@link #putDecoder()} hands on for a message whose bytes are not a {@code FlightData}
   * protobuf; compared by identity (parsing never returns this instance).
   */
  public static final Flight.FlightData UNREADABLE = Flight.FlightData.newBuilder()
      .setAppMetadata(ByteString.copyFromUtf8("lake: unreadable FlightData")).build();

  /** The refusal of an {@link #UNREADABLE} message. */
  public static IpcException unreadable() {
    return new IpcException("a DoPut message is not a valid FlightData protobuf message");
  }

  /**
   * Decodes {@code DoPut}'s messages. Vert.x answers a message its decoder cannot parse by
   * resetting the stream (the client sees CANCELLED); this decoder hands on {@link #UNREADABLE}
   * instead, so the call can answer INVALID_ARGUMENT.
   */
  public static GrpcMessageDecoder<Flight.FlightData> putDecoder() {
    GrpcMessageDecoder<Flight.FlightData> strict =
        GrpcMessageDecoder.decoder(Flight.FlightData.getDefaultInstance());
    return new GrpcMessageDecoder<>() {
      @Override
      public Flight.FlightData decode(GrpcMessage message) {
        try {
          return strict.decode(message);
        } catch (CodecException e) {
          return UNREADABLE;
        }
      }

      @Override
      public boolean accepts(io.vertx.grpc.common.WireFormat format) {
        return strict.accepts(format);
      }
    };
  }

  /** Parses the flatbuffer header of a received message. */
  public static Message header(ByteString dataHeader) {
    if (dataHeader.isEmpty()) {
      throw new IpcException("a FlightData message has no data_header");
    }
    ByteBuffer buffer = dataHeader.asReadOnlyByteBuffer();
    try {
      Message message = Message.getRootAsMessage(buffer);
      // Touch the fields read later so a garbage buffer fails here, not deep in a loader.
      message.headerType();
      message.bodyLength();
      return message;
    } catch (RuntimeException e) {
      throw new IpcException("a FlightData message has an unreadable data_header");
    }
  }

  /** The schema of a received schema message. */
  public static Schema schema(Message message) {
    if (message.headerType() != MessageHeader.Schema) {
      throw new IpcException("the first FlightData message must carry the schema");
    }
    try {
      Schema schema = MessageSerializer.deserializeSchema(message);
      schema.getFields().forEach(FlightIpc::checkLayout);
      return schema;
    } catch (IpcException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      // A damaged flatbuffer can point a table at itself: the recursion through children ends
      // in a stack overflow, which is this message's fault, not the server's.
      throw new IpcException("the schema message cannot be read: " + bounded(e.getMessage()));
    }
  }

  // A schema can name a type no vector has (an Int of 72 bits): refuse it with the column.
  private static void checkLayout(Field field) {
    try {
      TypeLayout.getTypeLayout(field.getType());
    } catch (RuntimeException e) {
      throw new IpcException("the schema's column '" + field.getName() + "' has type "
          + field.getType() + ", which Arrow cannot lay out: " + bounded(e.getMessage()));
    }
    field.getChildren().forEach(FlightIpc::checkLayout);
  }

  /**
   * The record batch of a received message, its body copied into {@code allocator}. The caller
   * owns (and must close) the returned batch.
   */
  public static ArrowRecordBatch recordBatch(Message message, ByteString dataBody,
      BufferAllocator allocator) {
    if (message.headerType() == MessageHeader.DictionaryBatch) {
      throw new IpcException("dictionary-encoded columns are not supported");
    }
    if (message.headerType() != MessageHeader.RecordBatch) {
      throw new IpcException("expected a record batch message, got header type "
          + headerName(message.headerType()));
    }
    if (message.bodyLength() != dataBody.size()) {
      throw new IpcException("a record batch announces " + message.bodyLength()
          + " body bytes but carries " + dataBody.size());
    }
    RecordBatch header;
    boolean compressed;
    try {
      header = (RecordBatch) message.header(new RecordBatch());
      compressed = header.compression() != null;
    } catch (RuntimeException e) {
      // The header's offsets point outside the flatbuffer.
      throw new IpcException("a record batch's data_header is malformed: "
          + bounded(e.getMessage()));
    }
    if (compressed) {
      throw new IpcException("compressed record batches are not supported");
    }
    ArrowBuf body = allocator.buffer(dataBody.size());
    try {
      body.setBytes(0, dataBody.asReadOnlyByteBuffer());
      // deserializeRecordBatch slices the body, and the batch retains the slices, then releases
      // the body's own reference: on success the batch is the only owner.
      return MessageSerializer.deserializeRecordBatch(header, body);
    } catch (IOException | RuntimeException e) {
      if (body.getReferenceManager().getRefCount() > 0) {
        body.close();
      }
      throw new IpcException("a record batch cannot be read: " + bounded(e.getMessage()));
    }
  }

  private static String headerName(byte type) {
    return type >= 0 && type < MessageHeader.names.length
        ? MessageHeader.name(type) : Byte.toString(type);
  }

  // Arrow's messages may quote the damaged input; the client sees a bounded excerpt.
  private static String bounded(String message) {
    if (message == null) {
      return "no detail";
    }
    return message.length() <= 200 ? message : message.substring(0, 200) + "...";
  }

  /** A received stream that is not valid Arrow IPC. Nothing was changed. */
  public static final class IpcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    IpcException(String message) {
      super(message);
    }
  }
}
