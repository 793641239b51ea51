package dev.lake.flight.metasrv;

import com.google.protobuf.ByteString;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableRegistry;
import dev.lake.flight.BatchListReader;
import dev.lake.flight.FlightIpc;
import dev.lake.flight.IngestValidator;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One {@code DoPut} append stream. The event loop only counts and keeps the received messages
 * (bounded per stream, and against the process's budget of buffered control bytes); at the end of
 * the stream a worker recomputes the payload digest, decodes and validates every batch, and only
 * then writes through the registry. A refusal before that point changes nothing.
 */
final class AppendCall {

  private final Context context;
  private final Executor workers;
  private final GrpcServerRequest<Flight.FlightData, Flight.PutResult> request;
  private final Admission admission;
  private final Leadership leadership;
  private final BufferAllocator allocator;
  private final long maxStreamBytes;
  private final boolean forwarded;
  private final List<Flight.FlightData> messages = new ArrayList<>();
  private MetasrvProtocol.PutCommand command;
  private long received;
  private long reserved;
  private boolean holdsSlot;
  private boolean done;

  AppendCall(Context context, Executor workers,
      GrpcServerRequest<Flight.FlightData, Flight.PutResult> request, Admission admission,
      Leadership leadership, BufferAllocator allocator, long maxStreamBytes) {
    this.context = context;
    this.workers = workers;
    this.request = request;
    this.admission = admission;
    this.leadership = leadership;
    this.allocator = allocator;
    this.maxStreamBytes = maxStreamBytes;
    this.forwarded = request.headers().contains(MetasrvProtocol.FORWARDED_HEADER);
  }

  void start() {
    request.handler(this::onMessage);
    request.endHandler(v -> onEnd());
    request.exceptionHandler(e -> abandon());
    request.errorHandler(e -> abandon());
  }

  private void onMessage(Flight.FlightData data) {
    if (done) {
      return;
    }
    try {
      if (data == FlightIpc.UNREADABLE) {
        throw FlightIpc.unreadable();
      }
      if (command == null) {
        if (!data.hasFlightDescriptor()) {
          throw new MetasrvProtocol.BadRequestException(
              "the first DoPut message must carry the flight descriptor");
        }
        command = MetasrvProtocol.decodePut(data.getFlightDescriptor().getCmd().toByteArray());
        if (!admission.tryStartAppend()) {
          throw new MetasrvStatus.RefusedException(GrpcStatus.RESOURCE_EXHAUSTED, "busy",
              "too many appends in progress at this Metasrv; retry later");
        }
        holdsSlot = true;
      }
      long size = data.getSerializedSize();
      received += size;
      if (received > maxStreamBytes) {
        throw new MetasrvStatus.RefusedException(GrpcStatus.RESOURCE_EXHAUSTED, "too_large",
            "the append stream exceeds " + maxStreamBytes + " bytes; an append carries"
                + " metadata rows only, split it into several appends");
      }
      if (!admission.tryReserve(size)) {
        throw new MetasrvStatus.RefusedException(GrpcStatus.RESOURCE_EXHAUSTED, "busy",
            "this Metasrv holds too many buffered bytes of appends; retry later");
      }
      reserved += size;
      messages.add(data);
    } catch (RuntimeException e) {
      fail(e);
    }
  }

  private void onEnd() {
    if (done) {
      return;
    }
    if (command == null) {
      fail(new MetasrvProtocol.BadRequestException("the DoPut carried no messages"));
      return;
    }
    List<Flight.FlightData> payload = List.copyOf(messages);
    messages.clear();
    try {
      workers.execute(() -> {
        try {
          TableEntry entry = write(payload);
          context.runOnContext(v -> succeed(entry));
        } catch (Throwable e) {
          context.runOnContext(v -> fail(e));
        }
      });
    } catch (RejectedExecutionException e) {
      fail(e);
    }
  }

  private TableEntry write(List<Flight.FlightData> payload) {
    PayloadDigest digest = new PayloadDigest();
    for (Flight.FlightData data : payload) {
      if (!data.getDataHeader().isEmpty()) {
        digest.update(data.getDataHeader().asReadOnlyByteBuffer(),
            data.getDataBody().asReadOnlyByteBuffer());
      }
    }
    String actual = digest.hex();
    if (!actual.equals(command.payloadSha256())) {
      throw new MetasrvProtocol.BadRequestException("the payload's SHA-256 is " + actual
          + " but the descriptor announces " + command.payloadSha256() + "; nothing was changed");
    }
    Schema schema = null;
    List<ArrowRecordBatch> batches = new ArrayList<>();
    try (BufferAllocator call = allocator.newChildAllocator("append", 0, Long.MAX_VALUE)) {
      try {
        for (Flight.FlightData data : payload) {
          ByteString header = data.getDataHeader();
          if (header.isEmpty()) {
            continue;
          }
          Message message = FlightIpc.header(header);
          if (schema == null) {
            schema = FlightIpc.schema(message);
            continue;
          }
          if (message.headerType() == MessageHeader.Schema) {
            throw new MetasrvProtocol.BadRequestException("the append stream carries a second schema");
          }
          ArrowRecordBatch batch = FlightIpc.recordBatch(message, data.getDataBody(), call);
          batches.add(batch);
          IngestValidator.validate(schema, batch, batches.size() - 1, call);
        }
        if (schema == null) {
          throw new MetasrvProtocol.BadRequestException("the append stream carried no schema message");
        }
        Schema streamed = schema;
        List<ArrowRecordBatch> owned = new ArrayList<>(batches);
        batches.clear();
        try (BatchListReader reader = new BatchListReader(call, streamed, owned)) {
          return leadership.run(forwarded, registry -> apply(registry, reader));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      } finally {
        batches.forEach(ArrowRecordBatch::close);
      }
    }
  }

  private TableEntry apply(TableRegistry registry, BatchListReader reader) {
    MetasrvProtocol.PutCommand c = command;
    MetasrvServer.checkWrite(c.ident());
    return switch (c.kind()) {
      case APPEND -> registry.append(c.ident(), c.incarnation(), c.operation(), reader);
      case CREATE_WITH -> registry.createWith(c.ident(), c.schema().orElseThrow(),
          c.engine().orElseThrow(), c.operation(), reader);
      case REPLACE -> registry.replace(c.ident(), c.schema().orElseThrow(), c.operation(), reader);
    };
  }

  private void succeed(TableEntry entry) {
    if (done) {
      return;
    }
    finish();
    request.response().end(Flight.PutResult.newBuilder()
        .setAppMetadata(ByteString.copyFrom(MetasrvProtocol.bytes(MetasrvProtocol.entry(entry))))
        .build());
  }

  private void fail(Throwable error) {
    if (done) {
      return;
    }
    finish();
    MetasrvStatus.toStatus(error).answer(request.response());
  }

  private void abandon() {
    if (!done) {
      finish();
    }
  }

  private void finish() {
    done = true;
    messages.clear();
    admission.release(reserved);
    reserved = 0;
    if (holdsSlot) {
      holdsSlot = false;
      admission.endAppend();
    }
  }
}
