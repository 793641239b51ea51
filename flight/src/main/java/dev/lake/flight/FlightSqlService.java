package dev.lake.flight;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.MessageOrBuilder;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.UuidV7;
import dev.lake.exec.QueryControl;
import dev.lake.flight.auth.AccessDeniedException;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.ops.TraceParent;
import dev.lake.flight.auth.Grants;
import dev.lake.flight.auth.Principal;
import dev.lake.sql.PreparedQuery;
import dev.lake.sql.PlanningControl;
import dev.lake.sql.SqlEngine;
import dev.lake.sql.StatementLimits;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import io.vertx.grpc.server.StatusException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code arrow.flight.protocol.FlightService} with the Flight SQL commands lake serves, on a
 * Vert.x gRPC server. Handlers run on the event loop and only decode, dispatch and write; every
 * step that plans, executes, reads the registry or writes a table runs on the worker pool, and
 * results come back to the event loop with {@link Context#runOnContext}. Errors become statuses
 * in {@link ErrorMapper}, nowhere else.
 */
final class FlightSqlService {

  static final ServiceName SERVICE = ServiceName.create("arrow.flight.protocol", "FlightService");
  /** The paths of the Flight methods served, and of the health service beside them. */
  static final java.util.Set<String> METHOD_PATHS = java.util.stream.Stream.concat(
      java.util.stream.Stream.of("Handshake", "ListActions", "GetFlightInfo", "GetSchema", "DoGet",
          "DoPut", "DoAction", "ListFlights", "PollFlightInfo", "DoExchange").map(SERVICE::pathOf),
      java.util.stream.Stream.of("/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"))
      .collect(java.util.stream.Collectors.toUnmodifiableSet());
  static final String CREATE_PREPARED_STATEMENT = "CreatePreparedStatement";
  static final String CLOSE_PREPARED_STATEMENT = "ClosePreparedStatement";
  /** What a Flight SQL command or action body may carry beyond its statement's text. */
  static final int COMMAND_OVERHEAD_BYTES = 65_536;

  private final SqlEngine sqlEngine;
  private final MetadataCommands metadata;
  private final SessionOptions sessions;
  private final Ingestor ingestor;
  private final UpdateCommands updates;
  private final ExecutorService workers;
  /** The same threads; a DoGet's later tasks are queued as its tenant's by name. */
  private final FairWorkers fairWorkers;
  private final BufferAllocator allocator;
  private final long maxIngestBytes;
  private final long maxBytesInFlight;
  private final Duration queryTimeout;
  private final StatementLimits limits;
  private final AtomicLong callIds = new AtomicLong();
  private final PreparedStatements preparedStatements;
  private final Tickets tickets;
  private final Authenticator authenticator;
  /** Answers {@code lake.stage}; null: no managed stage configured. */
  private StageAction stage;
  /** Answers {@code lake.presign}; null: no managed stage configured. */
  private PresignAction presign;
  private final QueryAdmission admission;
  private final QueryMeters meters;

  /**
   * @param authenticator resolves each call's credentials; null: every caller is {@link
   *     Principal#ANONYMOUS} (loopback dev mode)
   * @param queryTimeout the server's bound on a query's DoGet, or null for the client's deadline only
   * @param admission gates every query call (planning: GetFlightInfo, GetSchema,
   *     CreatePreparedStatement; and each DoGet until its stream ends) by the caller's tenant */
  FlightSqlService(SqlEngine sqlEngine, MetadataCommands metadata, Ingestor ingestor,
      FairWorkers workers, BufferAllocator allocator, long maxIngestBytes,
      long maxBytesInFlight, Duration queryTimeout, StatementLimits limits, Tickets tickets,
      Authenticator authenticator, QueryAdmission admission, QueryMeters meters) {
    this.admission = admission;
    this.meters = meters;
    this.tickets = tickets;
    this.fairWorkers = workers;
    // Work handed to the pool runs as the principal of the call that handed it over.
    ExecutorService propagating = Grants.propagating(workers);
    this.authenticator = authenticator;
    this.sqlEngine = sqlEngine;
    this.metadata = metadata;
    this.sessions = new SessionOptions(metadata.catalog());
    this.ingestor = ingestor;
    this.workers = propagating;
    this.allocator = allocator;
    this.maxIngestBytes = maxIngestBytes;
    this.maxBytesInFlight = maxBytesInFlight;
    this.queryTimeout = queryTimeout;
    this.limits = limits;
    this.updates = new UpdateCommands(sqlEngine, propagating, maxIngestBytes, limits);
    this.preparedStatements = new PreparedStatements(sqlEngine, propagating, allocator, limits);
  }

  /** Serves action {@code lake.stage} from {@code stage}; called before {@link #register}. */
  void stage(StageAction stage, PresignAction presign) {
    this.stage = stage;
    this.presign = presign;
  }

  void register(GrpcServer server) {
    server.callHandler(FlightSqlService.<Flight.HandshakeRequest, Flight.HandshakeResponse>method("Handshake", Flight.HandshakeRequest.getDefaultInstance()),
        this::handshake);
    server.callHandler(FlightSqlService.<Flight.Empty, Flight.ActionType>method("ListActions", Flight.Empty.getDefaultInstance()), this::listActions);
    server.callHandler(FlightSqlService.<Flight.FlightDescriptor, Flight.FlightInfo>method("GetFlightInfo", Flight.FlightDescriptor.getDefaultInstance()),
        request -> {
          SessionOptions.CallHeaders cookies = cookies(request);
          Principal principal = principal(request);
          unary(request, d -> flightInfo(d, cookies, principal));
        });
    server.callHandler(FlightSqlService.<Flight.FlightDescriptor, Flight.SchemaResult>method("GetSchema", Flight.FlightDescriptor.getDefaultInstance()),
        request -> {
          SessionOptions.CallHeaders cookies = cookies(request);
          Principal principal = principal(request);
          unary(request, d -> schemaResult(d, cookies, principal));
        });
    server.callHandler(FlightSqlService.<Flight.Ticket, Flight.FlightData>method("DoGet", Flight.Ticket.getDefaultInstance()), this::doGet);
    server.callHandler(ServiceMethod.server(SERVICE, "DoPut", GrpcMessageEncoder.<Flight.PutResult>encoder(),
        FlightIpc.putDecoder()), this::doPut);
    server.callHandler(FlightSqlService.<Flight.Action, Flight.Result>method("DoAction", Flight.Action.getDefaultInstance()), this::doAction);
    server.callHandler(FlightSqlService.<Flight.Criteria, Flight.FlightInfo>method("ListFlights", Flight.Criteria.getDefaultInstance()),
        request -> unimplemented(request, "ListFlights"));
    server.callHandler(FlightSqlService.<Flight.FlightDescriptor, Flight.PollInfo>method("PollFlightInfo", Flight.FlightDescriptor.getDefaultInstance()),
        request -> unimplemented(request, "PollFlightInfo"));
    server.callHandler(FlightSqlService.<Flight.FlightData, Flight.FlightData>method("DoExchange", Flight.FlightData.getDefaultInstance()),
        request -> unimplemented(request, "DoExchange"));
  }

  private static <Req extends MessageOrBuilder, Resp extends MessageLite>
      ServiceMethod<Req, Resp> method(String name, Req requestPrototype) {
    return ServiceMethod.server(SERVICE, name, GrpcMessageEncoder.encoder(),
        GrpcMessageDecoder.decoder(requestPrototype));
  }

  // ---- Handshake, ListActions ------------------------------------------------------------

  /**
   * Without an authenticator every handshake message is answered with an empty payload. With one,
   * the credentials are an {@code authorization: Basic} header (Arrow's {@code
   * authenticateBasicToken}, the JDBC driver's user and password), a {@code BasicAuth} payload
   * (the older {@code authenticateBasic}) or a bearer token; the answer carries a bearer token in
   * the {@code authorization} response header and as the payload. Passwords are checked on a
   * worker (PBKDF2 is slow on purpose).
   */
  private void handshake(
      GrpcServerRequest<Flight.HandshakeRequest, Flight.HandshakeResponse> request) {
    GrpcServerResponse<Flight.HandshakeRequest, Flight.HandshakeResponse> response =
        request.response();
    if (authenticator == null) {
      request.handler(message -> response.write(Flight.HandshakeResponse.newBuilder()
          .setProtocolVersion(message.getProtocolVersion()).build()));
      request.endHandler(v -> response.end());
      return;
    }
    Context context = Vertx.currentContext();
    String header = request.headers().get("authorization");
    Flight.HandshakeRequest[] first = new Flight.HandshakeRequest[1];
    request.handler(message -> {
      if (first[0] == null) {
        first[0] = message;
      }
    });
    request.endHandler(v -> offload(context, response,
        () -> Handshakes.answer(authenticator, header, first[0]), token -> {
          response.headers().set("authorization", "Bearer " + token);
          response.end(Flight.HandshakeResponse.newBuilder()
              .setProtocolVersion(first[0] == null ? 0 : first[0].getProtocolVersion())
              .setPayload(ByteString.copyFromUtf8(token)).build());
        }));
  }

  private void listActions(GrpcServerRequest<Flight.Empty, Flight.ActionType> request) {
    request.last().onComplete(ar -> {
      GrpcServerResponse<Flight.Empty, Flight.ActionType> response = request.response();
      if (ar.failed()) {
        return;
      }
      response.write(Flight.ActionType.newBuilder().setType(CREATE_PREPARED_STATEMENT)
          .setDescription("Plans a query and returns a handle and the result schema").build());
      response.write(Flight.ActionType.newBuilder().setType(CLOSE_PREPARED_STATEMENT)
          .setDescription("Releases a prepared statement handle (no-op: handles are stateless)")
          .build());
      response.write(Flight.ActionType.newBuilder().setType(SessionOptions.SET)
          .setDescription("Sets session options (catalog, schema), carried in the session cookie")
          .build());
      response.write(Flight.ActionType.newBuilder().setType(SessionOptions.GET)
          .setDescription("Lists the session options of the session cookie").build());
      response.end(Flight.ActionType.newBuilder().setType(SessionOptions.CLOSE)
          .setDescription("Ends the session: expires the session cookie").build());
    });
  }

  // ---- GetFlightInfo, GetSchema ----------------------------------------------------------

  private Flight.FlightInfo flightInfo(Flight.FlightDescriptor descriptor,
      SessionOptions.CallHeaders cookies, Principal principal)
      throws InvalidProtocolBufferException {
    String defaultSchema = cookies.defaultSchema();
    Any command = command(descriptor, principal);
    Schema schema;
    byte[] ticket;
    Map<dev.lake.sql.TableName, dev.lake.engine.Version> pins = Map.of();
    if (command.is(FlightSql.CommandStatementQuery.class)) {
      FlightSql.CommandStatementQuery query =
          command.unpack(FlightSql.CommandStatementQuery.class);
      if (query.hasTransactionId()) {
        throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "transactions are not supported");
      }
      PreparedQuery planned = plan(query.getQuery(), defaultSchema);
      PreparedStatements.requireNoParameters(planned);
      schema = ColumnMetadata.of(planned);
      ticket = TicketCodec.encodeQuery(query.getQuery(), planned.pins(), defaultSchema);
      pins = planned.pins();
    } else if (command.is(FlightSql.CommandPreparedStatementQuery.class)) {
      PreparedStatements.Planned planned = preparedStatements.flightInfo(
          command.unpack(FlightSql.CommandPreparedStatementQuery.class), defaultSchema);
      schema = planned.schema();
      ticket = planned.ticket();
      pins = planned.pins();
    } else if (MetadataCommands.handles(command)) {
      schema = MetadataCommands.schema(command);
      ticket = TicketCodec.encodeCommand(command);
    } else {
      throw unsupported(command);
    }
    ticket = tickets.sealTicket(principal, ticket, pins);
    return Flight.FlightInfo.newBuilder()
        .setSchema(FlightIpc.schemaBytes(schema))
        .setFlightDescriptor(descriptor)
        .addEndpoint(Flight.FlightEndpoint.newBuilder()
            .setTicket(Flight.Ticket.newBuilder().setTicket(ByteString.copyFrom(ticket))))
        .setTotalRecords(-1)
        .setTotalBytes(-1)
        .build();
  }

  private Flight.SchemaResult schemaResult(Flight.FlightDescriptor descriptor,
      SessionOptions.CallHeaders cookies, Principal principal)
      throws InvalidProtocolBufferException {
    String defaultSchema = cookies.defaultSchema();
    Any command = command(descriptor, principal);
    Schema schema;
    if (command.is(FlightSql.CommandStatementQuery.class)) {
      schema = ColumnMetadata.of(plan(
          command.unpack(FlightSql.CommandStatementQuery.class).getQuery(), defaultSchema));
    } else if (command.is(FlightSql.CommandPreparedStatementQuery.class)) {
      schema = ColumnMetadata.of(plan(TicketCodec.decodeHandle(command
          .unpack(FlightSql.CommandPreparedStatementQuery.class)
          .getPreparedStatementHandle().toByteArray()), defaultSchema));
    } else if (MetadataCommands.handles(command)) {
      schema = MetadataCommands.schema(command);
    } else {
      throw unsupported(command);
    }
    return Flight.SchemaResult.newBuilder().setSchema(FlightIpc.schemaBytes(schema)).build();
  }

  // ---- DoGet ------------------------------------------------------------------------------

  private void doGet(GrpcServerRequest<Flight.Ticket, Flight.FlightData> request) {
    Context context = Vertx.currentContext();
    // Taken now: the handler runs within the HTTP request's dispatch (see DoGetResponses).
    io.vertx.core.http.HttpServerResponse http = DoGetResponses.take();
    Principal principal = principal(request);
    request.last().onComplete(ar -> {
      if (ar.failed()) {
        return;
      }
      Tickets.Redeemed redeemed;
      try {
        redeemed = tickets.openTicket(principal, ar.result().getTicket().toByteArray());
      } catch (RuntimeException e) {
        request.response().fail(ErrorMapper.toStatus(e));
        return;
      }
      long id = callIds.incrementAndGet();
      long deadlineMillis = deadlineMillis(request.timeout());
      QueryControl control = deadlineMillis > 0
          ? QueryControl.create().withTimeout(Duration.ofMillis(deadlineMillis))
          : QueryControl.create();
      TicketCodec.Ticket ticket = redeemed.ticket();
      Callable<ResultStream.Source> planner = switch (ticket) {
        case TicketCodec.QueryTicket query when !query.parameters().isEmpty() ->
            () -> preparedStatements.open(query, control);
        case TicketCodec.QueryTicket query -> () -> {
          PreparedQuery planned = PlanningControl.call(control,
              () -> sqlEngine.prepare(query.sql(), query.pins(), query.defaultSchema()));
          return new QueryResultSource(planned, allocator.newChildAllocator(
              "doget-" + id, 0, Long.MAX_VALUE), control);
        };
        case TicketCodec.CommandTicket command -> () -> {
          if (!MetadataCommands.handles(command.command())) {
            throw unsupported(command.command());
          }
          try (BufferAllocator scratch =
              allocator.newChildAllocator("doget-" + id, 0, Long.MAX_VALUE)) {
            return QueryResultSource.of(PlanningControl.call(control,
                () -> metadata.answer(command.command(), scratch)));
          }
        };
      };
      Callable<ResultStream.Source> opener = () -> {
        // Before planning (a fast refusal) and after (the plan read no incarnation but the
        // ticket's, even if a re-create raced with planning).
        tickets.requireSnapshots(redeemed.snapshots());
        ResultStream.Source source = planner.call();
        try {
          tickets.requireSnapshots(redeemed.snapshots());
        } catch (RuntimeException e) {
          source.close();
          throw e;
        }
        return source;
      };
      String tenant = principal.tenant();
      long started = System.nanoTime();
      QueryAdmission.Slot[] slot = new QueryAdmission.Slot[1];
      boolean[] admitted = new boolean[1];
      ResultStream stream = new ResultStream(context,
          Grants.as(principal, fairWorkers.forTenant(tenant)), request.response(), http,
          maxBytesInFlight, opener, control, deadlineMillis, new ResultStream.Listener() {
            @Override
            public void wrote(int bytes) {
              meters.streamed(tenant, bytes);
            }

            @Override
            public void done() {
              // Set before the event loop can run anything that ends the stream.
              slot[0].close();
              if (admitted[0]) {
                meters.finished(tenant, System.nanoTime() - started);
              }
            }
          });
      request.errorHandler(error -> stream.cancel());
      request.exceptionHandler(error -> stream.cancel());
      slot[0] = admit(request, principal, context, stream::finished, () -> {
        admitted[0] = true;
        stream.start();
      }, stream::fail);
    });
  }

  /**
   * Asks admission for a place for a query call of {@code caller}'s tenant: once given, {@code
   * start} runs on the call's event loop as the caller, unless the call ended meanwhile (the place
   * is then given back by the caller's end hook, as always); a refusal goes to {@code refuse}.
   * The caller closes the returned slot when the call ends, however it ends.
   */
  private QueryAdmission.Slot admit(GrpcServerRequest<?, ?> request, Principal caller,
      Context context, java.util.function.BooleanSupplier ended, Runnable start,
      Handler<Throwable> refuse) {
    long queuedAt = System.nanoTime();
    return admission.admit(caller.tenant(), task -> context.runOnContext(v -> task.run()), () -> {
      if (!ended.getAsBoolean()) {
        meters.waited(caller.tenant(), System.nanoTime() - queuedAt);
        runAs(request, caller, start);
      }
    }, refuse::handle);
  }

  /**
   * Runs {@code work} (on the event loop) as {@code caller} and within the call's trace: the work
   * it hands to the pool keeps both, so a Metasrv call it makes carries the principal and
   * continues the trace.
   */
  private static void runAs(GrpcServerRequest<?, ?> request, Principal caller, Runnable work) {
    TraceParent.runWithin(request.headers().get(TraceParent.HEADER),
        () -> Grants.runAs(caller, work));
  }

  /** Runs {@code call} (planning on a worker) once admission gives it a place. */
  private void admitted(GrpcServerRequest<?, ?> request, Context context, BoundedCall call,
      Runnable start) {
    Principal caller = callerOrFail(request);
    if (caller == null) {
      return;
    }
    QueryAdmission.Slot slot = admit(request, caller, context, call::ended, start,
        error -> call.refuse(ErrorMapper.toStatus(error)));
    call.whenEnded(slot::close);
  }

  /**
   * A call's time limit in ms (DoGet, GetFlightInfo, GetSchema, DoAction), or 0 for none: the
   * call's gRPC deadline or the server's query timeout, whichever is sooner, both counted from
   * the call's start.
   */
  private long deadlineMillis(long clientTimeoutMillis) {
    long server = queryTimeout == null ? 0 : queryTimeout.toMillis();
    if (clientTimeoutMillis <= 0) {
      return server;
    }
    return server <= 0 ? clientTimeoutMillis : Math.min(server, clientTimeoutMillis);
  }

  // ---- DoPut -------------------------------------------------------------------------------

  private void doPut(GrpcServerRequest<Flight.FlightData, Flight.PutResult> request) {
    Context context = Vertx.currentContext();
    PutCall[] call = new PutCall[1];
    Principal[] caller = new Principal[1];
    boolean[] refused = new boolean[1];
    request.handler(data -> {
      if (refused[0]) {
        return;
      }
      if (call[0] == null) {
        try {
          caller[0] = principal(request);
          call[0] = startPut(context, request, data, caller[0]);
        } catch (RuntimeException e) {
          refused[0] = true;
          request.response().fail(ErrorMapper.toStatus(e));
          return;
        }
      }
      runAs(request, caller[0], () -> call[0].onMessage(data));
    });
    request.endHandler(v -> {
      if (call[0] != null) {
        runAs(request, caller[0], call[0]::onEnd);
      } else if (!refused[0]) {
        request.response().fail(ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
            "DoPut carried no messages"));
      }
    });
    request.errorHandler(error -> {
      if (call[0] != null) {
        call[0].cancel();
      }
    });
    request.exceptionHandler(error -> {
      if (call[0] != null) {
        call[0].cancel();
      }
    });
  }

  private PutCall startPut(Context context,
      GrpcServerRequest<Flight.FlightData, Flight.PutResult> request, Flight.FlightData first,
      Principal caller) {
    if (first == FlightIpc.UNREADABLE) {
      throw FlightIpc.unreadable();
    }
    if (!first.hasFlightDescriptor()) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "the first DoPut message must carry the flight descriptor");
    }
    Principal principal = principal(request);
    Any command;
    try {
      command = command(first.getFlightDescriptor(), principal);
    } catch (InvalidProtocolBufferException e) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "the descriptor's prepared statement command cannot be parsed");
    }
    if (UpdateCommands.handlesPut(command)) {
      return updates.startPut(context, request, command, cookies(request).defaultSchema(),
          allocator.newChildAllocator("update-" + callIds.incrementAndGet(), 0, Long.MAX_VALUE));
    }
    if (command.is(FlightSql.CommandPreparedStatementQuery.class)) {
      try {
        return preparedStatements.bind(context, request,
            command.unpack(FlightSql.CommandPreparedStatementQuery.class),
            cookies(request).defaultSchema(), plain -> tickets.sealHandle(principal, plain));
      } catch (InvalidProtocolBufferException e) {
        throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
            "the CommandPreparedStatementQuery cannot be parsed");
      }
    }
    if (!command.is(FlightSql.CommandStatementIngest.class)) {
      throw unsupported(command);
    }
    FlightSql.CommandStatementIngest ingest;
    try {
      ingest = command.unpack(FlightSql.CommandStatementIngest.class);
    } catch (InvalidProtocolBufferException e) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "the CommandStatementIngest cannot be parsed");
    }
    TableIdent target = Ingestor.target(ingest, cookies(request).defaultSchema());
    if (!caller.mayWrite(target.namespace())) {
      throw new AccessDeniedException("principal '" + caller.name() + "' (role " + caller.role()
          + ") may not ingest into table '" + target + "': namespace '" + target.namespace()
          + "' is not granted for writing");
    }
    java.util.UUID operationId = Ingestor.operationId(ingest).orElseGet(UuidV7::generate);
    BufferAllocator callAllocator =
        allocator.newChildAllocator("ingest-" + callIds.incrementAndGet(), 0, Long.MAX_VALUE);
    return new IngestCall(context, workers, request, callAllocator, ingestor, ingest, target,
        maxIngestBytes, caller.tenant(), operationId);
  }

  // ---- DoAction ----------------------------------------------------------------------------

  private void doAction(GrpcServerRequest<Flight.Action, Flight.Result> request) {
    Context context = Vertx.currentContext();
    request.last().onComplete(ar -> {
      if (ar.failed()) {
        return;
      }
      Flight.Action action = ar.result();
      SessionOptions.CallHeaders cookies = cookies(request);
      Principal principal = principal(request);
      if (SessionOptions.handles(action.getType())) {
        asCaller(request, () -> new BoundedCall(context, request, deadlineMillis(request.timeout())).start(workers,
            () -> sessions.run(action, cookies.cookies()), reply -> {
          GrpcServerResponse<Flight.Action, Flight.Result> response = request.response();
          if (reply.setCookie() != null) {
            response.headers().add("set-cookie", reply.setCookie());
          }
          reply.results().forEach(response::write);
          response.end();
        }));
        return;
      }
      BoundedCall call = new BoundedCall(context, request, deadlineMillis(request.timeout()));
      Runnable start = () -> call.start(workers, () -> runAction(action, cookies, principal),
          results -> {
            GrpcServerResponse<Flight.Action, Flight.Result> response = request.response();
            results.forEach(response::write);
            response.end();
          });
      if (CREATE_PREPARED_STATEMENT.equals(action.getType())) {
        // It plans the statement: a query's work, admitted as one.
        admitted(request, context, call, start);
      } else {
        asCaller(request, start);
      }
    });
  }

  private List<Flight.Result> runAction(Flight.Action action, SessionOptions.CallHeaders cookies,
      Principal principal) throws InvalidProtocolBufferException {
    switch (action.getType()) {
      case CREATE_PREPARED_STATEMENT -> {
        FlightSql.ActionCreatePreparedStatementRequest create = actionBody(action)
            .unpack(FlightSql.ActionCreatePreparedStatementRequest.class);
        if (create.hasTransactionId()) {
          throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "transactions are not supported");
        }
        limits.check(create.getQuery());
        FlightSql.ActionCreatePreparedStatementResult result = tickets.sealHandle(principal,
            updates.isUpdate(create.getQuery())
                ? updates.prepare(create, cookies.defaultSchema())
                : preparedStatements.create(create.getQuery(), cookies.defaultSchema()));
        return List.of(Flight.Result.newBuilder().setBody(Any.pack(result).toByteString()).build());
      }
      case CLOSE_PREPARED_STATEMENT -> {
        // Handles hold no server state; checking it decodes catches clients sending garbage. An
        // expired handle of this cluster closes fine: clients close what they prepared long ago.
        byte[] handle = actionBody(action)
            .unpack(FlightSql.ActionClosePreparedStatementRequest.class)
            .getPreparedStatementHandle().toByteArray();
        try {
          TicketCodec.decodeHandle(tickets.openHandle(principal, handle));
        } catch (dev.lake.flight.ticket.TicketRefusedException e) {
          if (e.reason() != dev.lake.flight.ticket.TicketRefusedException.Reason.EXPIRED) {
            throw e;
          }
        }
        return List.of();
      }
      case StageAction.TYPE -> {
        if (stage == null) {
          throw ErrorMapper.status(GrpcStatus.UNIMPLEMENTED,
              "this server has no managed object stage (start it with --stage)");
        }
        return stage.run(principal);
      }
      case PresignAction.TYPE -> {
        if (presign == null) {
          throw ErrorMapper.status(GrpcStatus.UNIMPLEMENTED,
              "this server has no managed object stage (start it with --stage)");
        }
        return presign.run(principal, action.getBody().toByteArray());
      }
      default -> throw ErrorMapper.status(GrpcStatus.UNIMPLEMENTED,
          "action '" + action.getType() + "' is not supported; supported: "
              + CREATE_PREPARED_STATEMENT + ", " + CLOSE_PREPARED_STATEMENT + ", "
              + SessionOptions.SET + ", " + SessionOptions.GET + ", " + SessionOptions.CLOSE
              + ", " + StageAction.TYPE + ", " + PresignAction.TYPE);
    }
  }

  /**
   * The principal a call runs as, from its {@code authorization: Bearer} header or its {@code
   * lake_auth} cookie ({@link Principal#ANONYMOUS} without an authenticator). Tickets and handles
   * issued to the call bind it.
   *
   * @throws dev.lake.flight.auth.AuthenticationException if the call's credentials name nobody
   */
  private Principal principal(GrpcServerRequest<?, ?> request) {
    return authenticator == null ? Principal.ANONYMOUS
        : authenticator.authenticate(request.headers().get("authorization"),
            request.headers().getAll("cookie"));
  }

  /** The request's session headers (cookies, default schema), read on the event loop. */
  private static SessionOptions.CallHeaders cookies(GrpcServerRequest<?, ?> request) {
    return SessionOptions.CallHeaders.of(request.headers());
  }

  private Any actionBody(Flight.Action action) {
    checkCommandSize(action.getBody().size(), "the body of action '" + action.getType() + "'");
    try {
      return Any.parseFrom(action.getBody());
    } catch (InvalidProtocolBufferException e) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "the body of action '" + action.getType() + "' is not a Flight SQL message");
    }
  }

  // ---- limits ------------------------------------------------------------------------------

  /**
   * Plans {@code sql} (latest table versions, bare names in {@code defaultSchema} first) after
   * checking it against the statement limits.
   */
  private PreparedQuery plan(String sql, String defaultSchema) {
    limits.check(sql);
    return sqlEngine.prepare(sql, Map.of(), defaultSchema);
  }

  private void checkCommandSize(int bytes, String what) {
    long limit = (long) limits.maxStatementBytes() + COMMAND_OVERHEAD_BYTES;
    if (bytes > limit) {
      throw ErrorMapper.status(GrpcStatus.RESOURCE_EXHAUSTED, String.format(java.util.Locale.ROOT,
          "%s is %,d bytes; the limit is %,d bytes (command bytes: the statement limit + %,d)",
          what, bytes, limit, COMMAND_OVERHEAD_BYTES));
    }
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** Work that produces one reply, off the event loop. */
  @FunctionalInterface
  private interface Work<Req, Resp> {
    Resp apply(Req request) throws Exception;
  }

  private <Req, Resp> void unary(GrpcServerRequest<Req, Resp> request, Work<Req, Resp> work) {
    Context context = Vertx.currentContext();
    request.last().onComplete(ar -> {
      if (ar.failed()) {
        return;
      }
      Req message = ar.result();
      BoundedCall call = new BoundedCall(context, request, deadlineMillis(request.timeout()));
      admitted(request, context, call, () -> call.start(workers, () -> work.apply(message),
          result -> request.response().end(result)));
    });
  }

  /**
   * Runs {@code start} (which hands the call's work to the pool) as the call's principal, or
   * fails the call with UNAUTHENTICATED.
   */
  private void asCaller(GrpcServerRequest<?, ?> request, Runnable start) {
    Principal caller = callerOrFail(request);
    if (caller != null) {
      runAs(request, caller, start);
    }
  }

  /** The call's principal, or null after failing the call (UNAUTHENTICATED). */
  private Principal callerOrFail(GrpcServerRequest<?, ?> request) {
    try {
      return principal(request);
    } catch (RuntimeException e) {
      request.response().fail(ErrorMapper.toStatus(e));
      return null;
    }
  }

  private <T> void offload(Context context, GrpcServerResponse<?, ?> response, Callable<T> work,
      Handler<T> onSuccess) {
    try {
      workers.execute(() -> {
        T result;
        try {
          result = work.call();
        } catch (Throwable e) {
          StatusException status = ErrorMapper.toStatus(e);
          context.runOnContext(v -> response.fail(status));
          return;
        }
        context.runOnContext(v -> onSuccess.handle(result));
      });
    } catch (RejectedExecutionException e) {
      response.fail(ErrorMapper.toStatus(e));
    }
  }

  private static <Req, Resp> void unimplemented(GrpcServerRequest<Req, Resp> request,
      String method) {
    request.response().fail(ErrorMapper.status(GrpcStatus.UNIMPLEMENTED,
        method + " is not supported by lake"));
  }

  /** The descriptor's command, a prepared statement's handle opened ({@link Tickets}). */
  private Any command(Flight.FlightDescriptor descriptor, Principal principal)
      throws InvalidProtocolBufferException {
    if (descriptor.getType() != Flight.FlightDescriptor.DescriptorType.CMD) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "lake serves Flight SQL commands; PATH descriptors are not supported");
    }
    checkCommandSize(descriptor.getCmd().size(), "the descriptor's command");
    Any command;
    try {
      command = Any.parseFrom(descriptor.getCmd());
    } catch (InvalidProtocolBufferException e) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "the descriptor's command is not a Flight SQL command");
    }
    return tickets.openHandles(principal, command);
  }

  private static StatusException unsupported(Any command) {
    String type = command.getTypeUrl();
    String name = type.substring(type.lastIndexOf('.') + 1);
    return ErrorMapper.status(GrpcStatus.UNIMPLEMENTED,
        "Flight SQL command " + (name.isEmpty() ? "'" + type + "'" : name)
            + " is not supported by lake");
  }
}
