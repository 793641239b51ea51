package dev.lake.flight;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A {@code DoPut} client below Arrow's: grpc-java with a byte-array marshaller, so a test can
 * send any bytes as a {@code FlightData} message (bit-flipped or truncated IPC, or protobuf that
 * does not parse) and read the exact gRPC status the server answers.
 */
final class RawDoPut implements AutoCloseable {

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        }
      };

  private static final MethodDescriptor<byte[], byte[]> DO_PUT =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("arrow.flight.protocol.FlightService/DoPut")
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
          .build();

  /** What the server answered: its status and, on success, the ingest's record count. */
  record Answer(Status status, long recordCount) {
    String describe() {
      return status.getCode() + ": " + status.getDescription();
    }
  }

  private final ManagedChannel channel;

  RawDoPut(int port) {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext()
        .maxInboundMessageSize(64 << 20).build();
  }

  /** Sends {@code messages} (serialized {@code FlightData}) and waits for the answer. */
  Answer send(List<byte[]> messages) throws Exception {
    CompletableFuture<Answer> done = new CompletableFuture<>();
    List<byte[]> results = new ArrayList<>();
    StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(
        channel.newCall(DO_PUT, CallOptions.DEFAULT), new StreamObserver<>() {
          @Override
          public void onNext(byte[] value) {
            results.add(value);
          }

          @Override
          public void onError(Throwable t) {
            done.complete(new Answer(Status.fromThrowable(t), -1));
          }

          @Override
          public void onCompleted() {
            done.complete(new Answer(Status.OK, recordCount(results)));
          }
        });
    for (byte[] message : messages) {
      requests.onNext(message);
    }
    requests.onCompleted();
    // Only a guard against a server that never answers, which is itself the failure reported.
    return done.get(120, TimeUnit.SECONDS);
  }

  private static long recordCount(List<byte[]> results) {
    if (results.size() != 1) {
      return -1;
    }
    try {
      Flight.PutResult result = Flight.PutResult.parseFrom(results.getFirst());
      return FlightSql.DoPutUpdateResult.parseFrom(result.getAppMetadata()).getRecordCount();
    } catch (InvalidProtocolBufferException e) {
      return -1;
    }
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  /** The descriptor of an ingest into {@code schema.table} with the given options. */
  static Flight.FlightDescriptor ingest(String schema, String table,
      FlightSql.CommandStatementIngest.TableDefinitionOptions options) {
    FlightSql.CommandStatementIngest command = FlightSql.CommandStatementIngest.newBuilder()
        .setSchema(schema).setTable(table).setTableDefinitionOptions(options).build();
    return Flight.FlightDescriptor.newBuilder()
        .setType(Flight.FlightDescriptor.DescriptorType.CMD)
        .setCmd(Any.pack(command).toByteString()).build();
  }

  /** The first message of a stream: descriptor and schema. */
  static Flight.FlightData schemaMessage(Flight.FlightDescriptor descriptor, Schema schema) {
    return Flight.FlightData.newBuilder().setFlightDescriptor(descriptor)
        .setDataHeader(ByteString.copyFrom(
            MessageSerializer.serializeMetadata(schema, IpcOption.DEFAULT)))
        .build();
  }

  /** The record-batch message of {@code root}'s contents, written by Arrow's serializer. */
  static Flight.FlightData batchMessage(VectorSchemaRoot root) {
    try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
      return batchMessage(batch);
    }
  }

  /** The record-batch message of {@code batch}, whatever its header claims. */
  static Flight.FlightData batchMessage(ArrowRecordBatch batch) {
    return Flight.FlightData.newBuilder()
        .setDataHeader(ByteString.copyFrom(
            MessageSerializer.serializeMetadata(batch, IpcOption.DEFAULT)))
        .setDataBody(body(batch))
        .build();
  }

  // The body as Arrow lays it out: each buffer at the offset the header records, zero padded.
  private static ByteString body(ArrowRecordBatch batch) {
    byte[] body = new byte[(int) batch.computeBodyLength()];
    for (int i = 0; i < batch.getBuffers().size(); i++) {
      var slot = batch.getBuffersLayout().get(i);
      batch.getBuffers().get(i).getBytes(0, body, (int) slot.getOffset(), (int) slot.getSize());
    }
    return ByteString.copyFrom(body);
  }
}
