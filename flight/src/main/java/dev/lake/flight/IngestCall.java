package dev.lake.flight;

import com.google.protobuf.ByteString;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.UuidV7;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code DoPut} of {@code CommandStatementIngest}: receives the stream, decodes it into
 * record batches, validates each completely ({@link IngestValidator}) and digests it, then writes
 * it through the {@link Ingestor} and answers one {@code PutResult} carrying {@code
 * DoPutUpdateResult{record_count}}. Malformed IPC anywhere in the stream is answered {@code
 * INVALID_ARGUMENT} naming the batch, column and problem, and nothing is written: the write
 * starts only after the last message was validated.
 *
 * <p>The event loop only counts bytes and queues messages; decoding, digesting and the write run
 * as a serial chain of worker tasks (never two at once, in arrival order). The payload is bounded
 * ({@code RESOURCE_EXHAUSTED} beyond {@code maxBytes}), and the request is paused while too many
 * messages wait to be decoded so a fast client cannot outrun the workers.
 */
final class IngestCall implements PutCall {

  private static final Logger LOG = LoggerFactory.getLogger(IngestCall.class);
  private static final int MAX_PENDING = 16;

  private final Context context;
  private final Executor workers;
  private final GrpcServerRequest<Flight.FlightData, Flight.PutResult> request;
  private final BufferAllocator allocator;
  private final Ingestor ingestor;
  private final FlightSql.CommandStatementIngest command;
  private final TableIdent target;
  private final long maxBytes;
  private final String tenant;
  private final java.util.UUID operationId;

  // Event loop only.
  private long received;
  private int pending;
  private boolean paused;
  private boolean done;
  private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

  // Worker chain only (one task at a time, ordered by the chain).
  private final MessageDigest digest;
  private final List<ArrowRecordBatch> batches = new ArrayList<>();
  private Schema schema;
  private long rows;

  private volatile boolean abandoned;
  private final AtomicBoolean released = new AtomicBoolean();

  /**
   * @param allocator a fresh allocator the call takes over and closes when finished
   * @param tenant the caller's tenant and {@code operationId} the append's id (the client's, or
   *     one generated for the call): together with the payload's digest they identify the append
   */
  IngestCall(Context context, Executor workers,
      GrpcServerRequest<Flight.FlightData, Flight.PutResult> request, BufferAllocator allocator,
      Ingestor ingestor, FlightSql.CommandStatementIngest command, TableIdent target,
      long maxBytes, String tenant, java.util.UUID operationId) {
    this.context = context;
    this.workers = workers;
    this.request = request;
    this.allocator = allocator;
    this.ingestor = ingestor;
    this.command = command;
    this.target = target;
    this.maxBytes = maxBytes;
    this.tenant = java.util.Objects.requireNonNull(tenant, "tenant");
    this.operationId = java.util.Objects.requireNonNull(operationId, "operationId");
    try {
      this.digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Accepts one received message (the first one included). Event loop only. */
  @Override
  public void onMessage(Flight.FlightData data) {
    if (done) {
      return;
    }
    if (data == FlightIpc.UNREADABLE) {
      reject(FlightIpc.unreadable());
      return;
    }
    received += data.getDataHeader().size() + data.getDataBody().size();
    if (received > maxBytes) {
      reject(ErrorMapper.status(GrpcStatus.RESOURCE_EXHAUSTED, "the ingest payload exceeds the"
          + " limit of " + maxBytes + " bytes; split it into several ingests"));
      return;
    }
    pending++;
    if (pending >= MAX_PENDING && !paused) {
      paused = true;
      request.pause();
    }
    tail = tail.thenRunAsync(() -> decode(data), workers);
    tail.whenComplete((v, error) -> context.runOnContext(x -> {
      pending--;
      if (paused && pending <= MAX_PENDING / 2) {
        paused = false;
        request.resume();
      }
      if (error != null) {
        reject(error);
      }
    }));
  }

  /** The client finished sending: write the payload and answer. Event loop only. */
  @Override
  public void onEnd() {
    if (done) {
      return;
    }
    CompletableFuture<Written> written = tail.thenApplyAsync(v -> write(), workers);
    tail = written.thenApply(count -> null);
    written.whenComplete((outcome, error) -> context.runOnContext(x -> {
      if (error != null) {
        reject(error);
      } else if (!done) {
        done = true;
        releaseWhenIdle();
        FlightSql.DoPutUpdateResult result =
            FlightSql.DoPutUpdateResult.newBuilder().setRecordCount(outcome.rows()).build();
        if (outcome.version() != null) {
          request.response().headers().set(Ingestor.VERSION_HEADER,
              Long.toString(outcome.version()));
          request.response().headers().set(Ingestor.OPERATION_HEADER, operationId.toString());
        }
        request.response().end(Flight.PutResult.newBuilder()
            .setAppMetadata(result.toByteString()).build());
      }
    }));
  }

  /** The client went away: drop everything. Event loop only. */
  @Override
  public void cancel() {
    if (!done) {
      done = true;
      abandoned = true;
      releaseWhenIdle();
    }
  }

  /** Answers with the error (once) and drops the payload. Event loop only. */
  void reject(Throwable error) {
    if (done) {
      return;
    }
    done = true;
    abandoned = true;
    if (paused) {
      paused = false;
      request.resume();
    }
    releaseWhenIdle();
    request.response().fail(ErrorMapper.toStatus(error));
  }

  private void decode(Flight.FlightData data) {
    if (abandoned) {
      return;
    }
    ByteString header = data.getDataHeader();
    ByteString body = data.getDataBody();
    if (header.isEmpty()) {
      // The descriptor may come alone, and app_metadata-only messages carry no data.
      return;
    }
    digest.update(header.asReadOnlyByteBuffer());
    digest.update(body.asReadOnlyByteBuffer());
    Message message = FlightIpc.header(header);
    if (schema == null) {
      schema = FlightIpc.schema(message);
      return;
    }
    if (message.headerType() == MessageHeader.Schema) {
      throw new FlightIpc.IpcException("the ingest stream carries a second schema message");
    }
    ArrowRecordBatch batch = FlightIpc.recordBatch(message, body, allocator);
    try {
      IngestValidator.validate(schema, batch, batches.size(), allocator);
    } catch (RuntimeException e) {
      batch.close();
      throw e;
    }
    batches.add(batch);
    rows += batch.getLength();
  }

  private Written write() {
    if (abandoned) {
      return new Written(0, null);
    }
    if (schema == null) {
      throw new FlightIpc.IpcException("the ingest stream carried no schema message");
    }
    AppendOperation operation = AppendOperation.of(tenant, "lake." + target, operationId,
        digest.digest());
    List<ArrowRecordBatch> payload = new ArrayList<>(batches);
    batches.clear();
    Long version;
    try (BatchListReader reader = new BatchListReader(allocator, schema, payload)) {
      // No rows (no batches, or only empty ones): the table is created if the mode asks for it,
      // and no version is added.
      version = ingestor.ingest(command, target, schema, operation, rows == 0 ? null : () -> reader)
          .map(entry -> entry.version().number()).orElse(null);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    LOG.info("ingested {} rows into lake.{} (operation {}, sha256 {})", rows, target,
        operation.operationId(), operation.sha256());
    return new Written(rows, version);
  }

  /** What the write did: the rows it carried and the version it committed (null: none). */
  private record Written(long rows, Long version) {}

  // Buffers are freed only after the last queued task has finished with them.
  private void releaseWhenIdle() {
    tail.whenComplete((v, error) -> release());
  }

  private void release() {
    if (released.compareAndSet(false, true)) {
      batches.forEach(ArrowRecordBatch::close);
      batches.clear();
      allocator.close();
    }
  }
}
