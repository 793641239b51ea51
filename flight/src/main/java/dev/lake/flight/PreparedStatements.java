package dev.lake.flight;

import com.google.protobuf.ByteString;
import dev.lake.exec.QueryControl;
import dev.lake.sql.PreparedQuery;
import dev.lake.sql.SqlEngine;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.StatusException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ValueVectorUtility;

/**
 * Prepared queries with parameters over Flight SQL, without server state:
 * <ol>
 *   <li>{@code CreatePreparedStatement} plans the query once for its result schema and its
 *       {@code parameter_schema} (one field per {@code ?}, typed by the validator) and returns a
 *       handle holding only the SQL;
 *   <li>{@code DoPut(CommandPreparedStatementQuery)} receives the parameter rows, checks every
 *       value against its parameter (count, type: INVALID_ARGUMENT naming the position and the
 *       type, nothing runs) and answers {@code DoPutPreparedStatementResult} with a new handle
 *       that carries the SQL and the rows ({@link ParameterValues});
 *   <li>{@code GetFlightInfo} with that handle plans the first row for the schema and the pins
 *       and returns a ticket carrying SQL, pins and rows; {@code DoGet} runs the query once per
 *       row, in order, as one stream (Flight SQL: "all of the bound parameter sets are executed
 *       as a single execution").
 * </ol>
 * The stock Flight SQL clients (Arrow's {@code FlightSqlClient.PreparedStatement}, which the JDBC
 * driver 18.3.0 shades and ADBC 0.20.0 uses) send the parameters with the handle of the prepare
 * before every execution and use the returned handle for that execution's {@code GetFlightInfo}
 * only, so re-executing with new values never prepares again, and any replica can serve any step.
 */
final class PreparedStatements {

  /** The most bytes of Arrow IPC one parameter DoPut may send. */
  static final long MAX_PUT_BYTES = 4L << 20;

  private final SqlEngine sqlEngine;
  private final dev.lake.sql.StatementLimits limits;
  private final ExecutorService workers;
  private final BufferAllocator allocator;
  private final AtomicLong ids = new AtomicLong();

  PreparedStatements(SqlEngine sqlEngine, ExecutorService workers, BufferAllocator allocator,
      dev.lake.sql.StatementLimits limits) {
    this.limits = limits;
    this.sqlEngine = sqlEngine;
    this.workers = workers;
    this.allocator = allocator;
  }

  /**
   * {@code CreatePreparedStatement} of a query, bare table names looked up in the session's
   * {@code defaultSchema} (null: none) first. Worker thread.
   */
  FlightSql.ActionCreatePreparedStatementResult create(String sql, String defaultSchema) {
    PreparedQuery planned = sqlEngine.prepare(sql, Map.of(), defaultSchema);
    Schema parameters = declared(planned.parameterSchema());
    // dataset_schema must be non-empty: the JDBC driver takes an empty one for an update.
    return FlightSql.ActionCreatePreparedStatementResult.newBuilder()
        .setPreparedStatementHandle(ByteString.copyFrom(TicketCodec.encodeHandle(sql)))
        .setDatasetSchema(FlightIpc.schemaBytes(ColumnMetadata.of(planned)))
        .setParameterSchema(parameters.getFields().isEmpty()
            ? ByteString.EMPTY : FlightIpc.schemaBytes(parameters))
        .build();
  }

  /**
   * The parameter schema as clients are told it: TIMESTAMP parameters are declared in
   * milliseconds, because the stock JDBC driver 18.3.0's {@code setTimestamp} writes the
   * millisecond value into whatever timestamp vector the schema names (into a microsecond one it
   * would be 1000 times too small). Values of any unit are accepted, so other clients may still
   * bind microseconds.
   */
  static Schema declared(Schema parameters) {
    List<org.apache.arrow.vector.types.pojo.Field> fields = new ArrayList<>();
    for (org.apache.arrow.vector.types.pojo.Field f : parameters.getFields()) {
      fields.add(f.getType() instanceof ArrowType.Timestamp t
          ? new org.apache.arrow.vector.types.pojo.Field(f.getName(),
              org.apache.arrow.vector.types.pojo.FieldType.nullable(new ArrowType.Timestamp(
                  org.apache.arrow.vector.types.TimeUnit.MILLISECOND, t.getTimezone())), null)
          : f);
    }
    return new Schema(fields);
  }

  /** What {@code GetFlightInfo} answers: the result schema and the ticket. */
  record Planned(Schema schema, byte[] ticket,
      Map<dev.lake.sql.TableName, dev.lake.engine.Version> pins) {}

  /** {@code GetFlightInfo(CommandPreparedStatementQuery)}. Worker thread. */
  Planned flightInfo(FlightSql.CommandPreparedStatementQuery command, String defaultSchema) {
    TicketCodec.Handle handle = TicketCodec.decodePreparedHandle(
        command.getPreparedStatementHandle().toByteArray());
    // Handles are not sealed yet: one could carry any text, so it meets the limits again.
    limits.check(handle.sql());
    if (handle.parameters().isEmpty()) {
      // Planned again here so the ticket pins the versions current at execution, not at prepare.
      PreparedQuery planned = sqlEngine.prepare(handle.sql(), Map.of(), defaultSchema);
      requireNoParameters(planned);
      return new Planned(ColumnMetadata.of(planned),
          TicketCodec.encodeQuery(handle.sql(), planned.pins(), defaultSchema), planned.pins());
    }
    List<List<Object>> rows = ParameterValues.decode(handle.parameters());
    if (rows.isEmpty()) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "the handle binds no parameter rows");
    }
    PreparedQuery first = sqlEngine.prepare(handle.sql(), Map.of(), defaultSchema, rows.getFirst());
    return new Planned(ColumnMetadata.of(first),
        TicketCodec.encodeQuery(handle.sql(), first.pins(), handle.parameters(), defaultSchema),
        first.pins());
  }

  /**
   * Refuses to run a statement with parameters that has no values (a plain {@code
   * CommandStatementQuery} with {@code ?}, or a prepared one executed before any DoPut).
   */
  static void requireNoParameters(PreparedQuery planned) {
    int count = planned.parameterSchema().getFields().size();
    if (count > 0) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "the statement has " + count
          + (count == 1 ? " parameter" : " parameters") + " and no values were bound: prepare it"
          + " (CreatePreparedStatement) and bind values with DoPut before executing");
    }
  }

  /** The {@code DoGet} of a ticket with bound rows: the query once per row, one stream. */
  ResultStream.Source open(TicketCodec.QueryTicket ticket, QueryControl control) {
    return new RowsSource(ticket.sql(), ticket.pins(), ticket.defaultSchema(),
        ParameterValues.decode(ticket.parameters()), control);
  }

  /** {@code DoPut(CommandPreparedStatementQuery)}: binds parameter rows. Event loop. */
  PutCall bind(Context context, GrpcServerRequest<Flight.FlightData, Flight.PutResult> request,
      FlightSql.CommandPreparedStatementQuery command, String defaultSchema,
      java.util.function.UnaryOperator<byte[]> sealHandle) {
    TicketCodec.Handle handle = TicketCodec.decodePreparedHandle(
        command.getPreparedStatementHandle().toByteArray());
    // Handles are not sealed yet: one could carry any text, so it meets the limits again.
    limits.check(handle.sql());
    return new BindCall(context, request, handle.sql(), defaultSchema, sealHandle);
  }

  private final class BindCall implements PutCall {
    private final Context context;
    private final GrpcServerRequest<Flight.FlightData, Flight.PutResult> request;
    private final String sql;
    private final List<Flight.FlightData> messages = new ArrayList<>();
    private long received;
    private boolean done;

    private final String defaultSchema;
    private final java.util.function.UnaryOperator<byte[]> sealHandle;

    BindCall(Context context, GrpcServerRequest<Flight.FlightData, Flight.PutResult> request, String sql,
        String defaultSchema, java.util.function.UnaryOperator<byte[]> sealHandle) {
      this.sealHandle = sealHandle;
      this.context = context;
      this.request = request;
      this.sql = sql;
      this.defaultSchema = defaultSchema;
    }

    @Override
    public void onMessage(Flight.FlightData data) {
      if (done) {
        return;
      }
      received += data.getDataHeader().size() + data.getDataBody().size();
      if (received > MAX_PUT_BYTES) {
        fail(ErrorMapper.status(GrpcStatus.RESOURCE_EXHAUSTED, "the bound parameters exceed the"
            + " limit of " + MAX_PUT_BYTES + " bytes of Arrow IPC; bind fewer rows or smaller values"));
        return;
      }
      messages.add(data);
    }

    @Override
    public void onEnd() {
      if (done) {
        return;
      }
      List<Flight.FlightData> payload = List.copyOf(messages);
      messages.clear();
      try {
        workers.execute(() -> {
          Flight.PutResult result;
          try {
            result = bound(payload);
          } catch (Throwable e) {
            StatusException status = ErrorMapper.toStatus(e);
            context.runOnContext(v -> fail(status));
            return;
          }
          context.runOnContext(v -> {
            if (!done) {
              done = true;
              request.response().end(result);
            }
          });
        });
      } catch (RejectedExecutionException e) {
        fail(ErrorMapper.toStatus(e));
      }
    }

    @Override
    public void cancel() {
      done = true;
      messages.clear();
    }

    private void fail(StatusException status) {
      if (!done) {
        done = true;
        messages.clear();
        request.response().fail(status);
      }
    }

    /** Decodes and checks the rows, and answers the handle that carries them. Worker thread. */
    private Flight.PutResult bound(List<Flight.FlightData> payload) {
      List<List<Object>> rows = decode(payload);
      ByteString values;
      if (rows.isEmpty()) {
        int parameters = sqlEngine.prepare(sql, Map.of(), defaultSchema).parameterSchema()
            .getFields().size();
        if (parameters > 0) {
          throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "the DoPut bound no rows of values"
              + " to the statement's " + parameters + (parameters == 1 ? " parameter" : " parameters"));
        }
        values = ByteString.EMPTY;
      } else {
        for (int i = 0; i < rows.size(); i++) {
          try {
            sqlEngine.prepare(sql, Map.of(), defaultSchema, rows.get(i));
          } catch (dev.lake.sql.SqlException e) {
            throw rows.size() == 1 ? e : new dev.lake.sql.SqlException(e.kind(),
                "row " + (i + 1) + " of the bound parameters: " + e.getMessage(), e.line(), e.column(), e);
          }
        }
        values = ParameterValues.encode(rows);
        if (values.size() > ParameterValues.MAX_BYTES) {
          throw ErrorMapper.status(GrpcStatus.RESOURCE_EXHAUSTED, "the bound parameter values take "
              + values.size() + " bytes; the limit is " + ParameterValues.MAX_BYTES
              + " (they travel in the statement handle): bind fewer rows or smaller values");
        }
      }
      FlightSql.DoPutPreparedStatementResult result = FlightSql.DoPutPreparedStatementResult.newBuilder()
          .setPreparedStatementHandle(ByteString.copyFrom(
              sealHandle.apply(TicketCodec.encodeHandle(sql, values))))
          .build();
      return Flight.PutResult.newBuilder().setAppMetadata(result.toByteString()).build();
    }

    private List<List<Object>> decode(List<Flight.FlightData> payload) {
      List<List<Object>> rows = new ArrayList<>();
      Schema schema = null;
      try (BufferAllocator scratch = allocator.newChildAllocator("bind-" + ids.incrementAndGet(),
          0, 4 * MAX_PUT_BYTES)) {
        for (Flight.FlightData data : payload) {
          if (data.getDataHeader().isEmpty()) {
            continue;
          }
          Message message = FlightIpc.header(data.getDataHeader());
          if (schema == null) {
            schema = FlightIpc.schema(message);
            continue;
          }
          if (message.headerType() == MessageHeader.Schema) {
            throw new FlightIpc.IpcException("the parameter stream carries a second schema message");
          }
          try (ArrowRecordBatch batch = FlightIpc.recordBatch(message, data.getDataBody(), scratch);
              VectorSchemaRoot root = VectorSchemaRoot.create(schema, scratch)) {
            try {
              new VectorLoader(root).load(batch);
              ValueVectorUtility.validateFull(root);
            } catch (RuntimeException e) {
              throw new FlightIpc.IpcException("the bound parameter batch is malformed: "
                  + excerpt(String.valueOf(e.getMessage())));
            }
            if (rows.size() + root.getRowCount() > ParameterValues.MAX_ROWS) {
              throw ErrorMapper.status(GrpcStatus.RESOURCE_EXHAUSTED, "more than "
                  + ParameterValues.MAX_ROWS + " rows of parameter values were bound; each row is"
                  + " one execution of the query: bind fewer");
            }
            rows.addAll(rows(root));
          }
        }
      }
      return rows;
    }
  }

  private static String excerpt(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }

  /** The rows of a parameter batch as Java values the engine binds. */
  static List<List<Object>> rows(VectorSchemaRoot root) {
    List<FieldVector> vectors = root.getFieldVectors();
    List<List<Object>> rows = new ArrayList<>(root.getRowCount());
    for (int r = 0; r < root.getRowCount(); r++) {
      Object[] row = new Object[vectors.size()];
      for (int c = 0; c < vectors.size(); c++) {
        row[c] = value(vectors.get(c), r, c);
      }
      rows.add(java.util.Arrays.asList(row));
    }
    return rows;
  }

  private static Object value(FieldVector vector, int row, int column) {
    if (vector instanceof NullVector || vector.isNull(row)) {
      return null;
    }
    return switch (vector) {
      case BitVector v -> v.get(row) != 0;
      case TinyIntVector v -> v.get(row);
      case SmallIntVector v -> v.get(row);
      case IntVector v -> v.get(row);
      case BigIntVector v -> v.get(row);
      case UInt1Vector v -> (short) Byte.toUnsignedInt(v.get(row));
      case UInt2Vector v -> (int) v.get(row);
      case UInt4Vector v -> Integer.toUnsignedLong(v.get(row));
      case UInt8Vector v -> {
        long bits = v.get(row);
        yield bits >= 0 ? (Object) bits : new BigInteger(Long.toUnsignedString(bits));
      }
      case Float4Vector v -> v.get(row);
      case Float8Vector v -> v.get(row);
      case DecimalVector v -> v.getObject(row);
      case Decimal256Vector v -> v.getObject(row);
      case VarCharVector v -> utf8(v.get(row), column);
      case LargeVarCharVector v -> utf8(v.get(row), column);
      case VarBinaryVector v -> v.get(row);
      case LargeVarBinaryVector v -> v.get(row);
      case FixedSizeBinaryVector v -> v.get(row);
      case DateDayVector v -> LocalDate.ofEpochDay(v.get(row));
      case DateMilliVector v -> {
        long millis = v.get(row);
        yield millis % 86_400_000L == 0 ? (Object) LocalDate.ofEpochDay(millis / 86_400_000L)
            : Instant.ofEpochMilli(millis);
      }
      case TimeStampVector v -> instant(v.get(row), ((ArrowType.Timestamp) v.getField().getType()).getUnit());
      default -> throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "parameter " + (column + 1)
          + " is bound as Arrow type " + vector.getField().getType() + ", which lake cannot bind");
    };
  }

  private static Instant instant(long value, org.apache.arrow.vector.types.TimeUnit unit) {
    return switch (unit) {
      case SECOND -> Instant.ofEpochSecond(value);
      case MILLISECOND -> Instant.ofEpochMilli(value);
      case MICROSECOND -> Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L),
          Math.floorMod(value, 1_000_000L) * 1000L);
      case NANOSECOND -> Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000_000L),
          Math.floorMod(value, 1_000_000_000L));
    };
  }

  private static String utf8(byte[] bytes, int column) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "parameter " + (column + 1) + " is not valid UTF-8");
    }
  }

  /** The query once per bound row, in row order, as one stream: one schema, then every batch. */
  private final class RowsSource implements ResultStream.Source {
    private final String sql;
    private final Map<dev.lake.sql.TableName, dev.lake.engine.Version> pins;
    private final String defaultSchema;
    private final List<List<Object>> rows;
    private final QueryControl control;
    private final long id = ids.incrementAndGet();
    private int next;
    private Schema schema;
    private QueryResultSource current;
    // Closed with the stream: their last messages may still be in flight.
    private final List<QueryResultSource> ended = new java.util.ArrayList<>();

    RowsSource(String sql, Map<dev.lake.sql.TableName, dev.lake.engine.Version> pins,
        String defaultSchema, List<List<Object>> rows, QueryControl control) {
      if (rows.isEmpty()) {
        throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "the ticket binds no parameter rows");
      }
      this.sql = sql;
      this.pins = pins;
      this.defaultSchema = defaultSchema;
      this.rows = rows;
      this.control = control;
    }

    @Override
    public OutgoingMessage next() throws Exception {
      while (true) {
        if (current == null) {
          if (next == rows.size()) {
            return null;
          }
          PreparedQuery query = sqlEngine.prepare(sql, pins, defaultSchema, rows.get(next));
          next++;
          if (schema != null && !schema.equals(query.schema())) {
            throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "row " + next + " of the bound"
                + " parameters gives a result of another schema than row 1 (FOR VERSION AS OF ?"
                + " versions of different schemas): execute them apart");
          }
          current = new QueryResultSource(query, allocator.newChildAllocator(
              "doget-bound-" + id + "-" + next, 0, Long.MAX_VALUE), control);
          OutgoingMessage schemaMessage = current.next();
          if (schema == null) {
            schema = query.schema();
            return schemaMessage;
          }
          schemaMessage.close();
        }
        OutgoingMessage message = current.next();
        if (message != null) {
          return message;
        }
        ended.add(current);
        current = null;
      }
    }

    @Override
    public void close() {
      if (current != null) {
        ended.add(current);
        current = null;
      }
      RuntimeException failure = null;
      for (QueryResultSource source : ended) {
        try {
          source.close();
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      ended.clear();
      if (failure != null) {
        throw failure;
      }
    }
  }
}
