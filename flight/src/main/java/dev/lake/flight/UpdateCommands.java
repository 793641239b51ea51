package dev.lake.flight;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lake.sql.PreparedUpdate;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.UpdateResult;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Flight SQL's update commands, run by the SQL engine ({@link SqlEngine#prepareUpdate}):
 *
 * <ul>
 *   <li>{@code DoPut(CommandStatementUpdate)}: DDL or INSERT text, answered with one
 *       {@code PutResult} carrying {@code DoPutUpdateResult{record_count}} and, when it
 *       committed a table version (an INSERT of rows, a CREATE TABLE AS), the response header
 *       {@value Ingestor#VERSION_HEADER} naming it, as an ingest does;
 *   <li>{@code CreatePreparedStatement} of an update: the handle, an empty {@code dataset_schema}
 *       (how clients tell an update from a query) and the {@code parameter_schema} of its
 *       {@code ?} (the INSERT target columns' types);
 *   <li>{@code DoPut(CommandPreparedStatementUpdate)} with the parameter batches bound (one
 *       statement execution for all their rows: one table version), or with none.
 * </ul>
 *
 * Handles are stateless (the SQL travels in the handle), so any replica can execute them.
 */
final class UpdateCommands {

  private final SqlEngine sqlEngine;
  private final Executor workers;
  private final long maxBytes;

  private final dev.lake.sql.StatementLimits limits;

  UpdateCommands(SqlEngine sqlEngine, Executor workers, long maxBytes,
      dev.lake.sql.StatementLimits limits) {
    this.limits = limits;
    this.sqlEngine = sqlEngine;
    this.workers = workers;
    this.maxBytes = maxBytes;
  }

  /** Whether a DoPut of {@code command} is an update this class runs. */
  static boolean handlesPut(Any command) {
    return command.is(FlightSql.CommandStatementUpdate.class)
        || command.is(FlightSql.CommandPreparedStatementUpdate.class);
  }

  /** Whether a statement to prepare is an update (answered by {@link #prepare}). */
  boolean isUpdate(String sql) {
    return sqlEngine.isUpdate(sql);
  }

  /**
   * {@code CreatePreparedStatement} of an update, bare table names in the session's {@code
   * defaultSchema} (null: none). Worker thread.
   */
  FlightSql.ActionCreatePreparedStatementResult prepare(
      FlightSql.ActionCreatePreparedStatementRequest create, String defaultSchema) {
    PreparedUpdate update = sqlEngine.prepareUpdate(create.getQuery(), defaultSchema);
    // TIMESTAMP parameters in milliseconds, as for queries: what the stock JDBC driver writes.
    Schema parameters = PreparedStatements.declared(update.parameterSchema());
    return FlightSql.ActionCreatePreparedStatementResult.newBuilder()
            .setPreparedStatementHandle(ByteString.copyFrom(TicketCodec.encodeHandle(create.getQuery())))
            .setDatasetSchema(ByteString.EMPTY)
            .setParameterSchema(parameters.getFields().isEmpty()
                ? ByteString.EMPTY : FlightIpc.schemaBytes(parameters))
            .build();
  }

  /**
   * Starts a DoPut of an update command, bare table names in the session's {@code
   * defaultSchema} (null: none). Event loop.
   *
   * @param allocator a fresh allocator the call takes over and closes when finished
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT for a command that does not
   *     parse or asks for a transaction
   */
  PutCall startPut(Context context, GrpcServerRequest<Flight.FlightData, Flight.PutResult> request,
      Any command, String defaultSchema, BufferAllocator allocator) {
    String sql;
    try {
      if (command.is(FlightSql.CommandStatementUpdate.class)) {
        FlightSql.CommandStatementUpdate update = command.unpack(FlightSql.CommandStatementUpdate.class);
        if (update.hasTransactionId()) {
          throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "transactions are not supported");
        }
        sql = update.getQuery();
      } else {
        sql = TicketCodec.decodeHandle(command.unpack(FlightSql.CommandPreparedStatementUpdate.class)
            .getPreparedStatementHandle().toByteArray());
      }
    } catch (InvalidProtocolBufferException e) {
      allocator.close();
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "the update command cannot be parsed");
    } catch (RuntimeException e) {
      allocator.close();
      throw e;
    }
    return new Call(context, request, sql, command.is(FlightSql.CommandPreparedStatementUpdate.class),
        defaultSchema, allocator);
  }

  /**
   * One update DoPut. The event loop keeps the received messages (bounded by {@code maxBytes});
   * at the end a worker decodes them, runs the statement and the answer goes back on the loop.
   */
  private final class Call implements PutCall {
    private final Context context;
    private final GrpcServerRequest<Flight.FlightData, Flight.PutResult> request;
    private final String sql;
    private final boolean bound;
    private final String defaultSchema;
    private final BufferAllocator allocator;
    private final List<Flight.FlightData> messages = new ArrayList<>();
    private long received;
    private boolean done;

    Call(Context context, GrpcServerRequest<Flight.FlightData, Flight.PutResult> request,
        String sql, boolean bound, String defaultSchema, BufferAllocator allocator) {
      this.context = context;
      this.defaultSchema = defaultSchema;
      this.request = request;
      this.sql = sql;
      this.bound = bound;
      this.allocator = allocator;
    }

    @Override
    public void onMessage(Flight.FlightData data) {
      if (done) {
        return;
      }
      received += data.getDataHeader().size() + data.getDataBody().size();
      if (received > maxBytes) {
        fail(ErrorMapper.status(GrpcStatus.RESOURCE_EXHAUSTED, "the bound parameters exceed"
            + " the limit of " + maxBytes + " bytes; execute the statement in several calls"));
        return;
      }
      if (!bound) {
        // FlightSqlClient.executeUpdate waits for the result before it ends its stream: the
        // statement carries no data, so it runs as soon as its command arrives.
        onEnd();
        return;
      }
      if (!data.getDataHeader().isEmpty()) {
        messages.add(data);
      }
    }

    @Override
    public void onEnd() {
      if (done) {
        return;
      }
      done = true;
      try {
        workers.execute(() -> {
          UpdateResult outcome;
          try {
            outcome = run();
          } catch (Throwable e) {
            var status = ErrorMapper.toStatus(e);
            context.runOnContext(v -> request.response().fail(status));
            return;
          } finally {
            allocator.close();
          }
          FlightSql.DoPutUpdateResult result =
              FlightSql.DoPutUpdateResult.newBuilder().setRecordCount(outcome.count()).build();
          context.runOnContext(v -> {
            outcome.version().ifPresent(version -> request.response().headers()
                .set(Ingestor.VERSION_HEADER, version.toString()));
            request.response().end(
                Flight.PutResult.newBuilder().setAppMetadata(result.toByteString()).build());
          });
        });
      } catch (RejectedExecutionException e) {
        allocator.close();
        request.response().fail(ErrorMapper.toStatus(e));
      }
    }

    @Override
    public void cancel() {
      if (!done) {
        done = true;
        messages.clear();
        allocator.close();
      }
    }

    private void fail(Throwable error) {
      done = true;
      messages.clear();
      allocator.close();
      request.response().fail(ErrorMapper.toStatus(error));
    }

    /** Worker thread. */
    private UpdateResult run() throws java.io.IOException {
      limits.check(sql);
      PreparedUpdate update = sqlEngine.prepareUpdate(sql, defaultSchema);
      if (messages.isEmpty()) {
        return update.execute(allocator);
      }
      Schema schema = null;
      List<ArrowRecordBatch> batches = new ArrayList<>();
      try {
        for (Flight.FlightData data : messages) {
          Message message = FlightIpc.header(data.getDataHeader());
          if (schema == null) {
            schema = FlightIpc.schema(message);
          } else if (message.headerType() == MessageHeader.Schema) {
            throw new FlightIpc.IpcException("the parameter stream carries a second schema message");
          } else {
            batches.add(FlightIpc.recordBatch(message, data.getDataBody(), allocator));
          }
        }
      } catch (RuntimeException e) {
        batches.forEach(ArrowRecordBatch::close);
        throw e;
      }
      messages.clear();
      try (BatchListReader reader = new BatchListReader(allocator, schema, batches)) {
        return update.execute(allocator, reader);
      }
    }
  }
}
