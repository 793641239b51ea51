package dev.lake.cli.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.RequestContext;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.sql.NoOpFlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lake sql} against Arrow's own Flight SQL server framework ({@link FlightServer} with a
 * {@link NoOpFlightSqlProducer}), for what a lake server does not do yet or cannot be made to do
 * on cue: updates (a prepared statement with an empty dataset schema, as DDL and INSERT get
 * them), seeing the headers every call carries, and a statement that runs until it is cancelled.
 */
class StockFlightSqlServerTest {

  private static final String INSERT = "INSERT INTO t VALUES (1), (2), (3)";
  private static final String CREATE = "CREATE TABLE t (a INT)";
  private static final String RUNS_UNTIL_CANCELLED = "SELECT * FROM forever";
  private static final String STREAMS_UNTIL_CANCELLED = "SELECT n FROM endless";
  private static final Schema ENDLESS = new Schema(List.of(Field.notNullable("n", new ArrowType.Int(64, true))));

  private BufferAllocator allocator;
  private Producer producer;
  private FlightServer server;
  private final Queue<String> authorizations = new ConcurrentLinkedQueue<>();
  private String endpoint;

  /** Prepares INSERT and CREATE as updates (3 and 0 rows); holds the slow query until cancelled. */
  private static final class Producer extends NoOpFlightSqlProducer {
    final BufferAllocator allocator;
    final CountDownLatch slowStarted = new CountDownLatch(1);
    final CountDownLatch slowCancelled = new CountDownLatch(1);
    final CountDownLatch streamStarted = new CountDownLatch(1);
    final CountDownLatch streamCancelled = new CountDownLatch(1);

    Producer(BufferAllocator allocator) {
      this.allocator = allocator;
    }

    @Override
    public void createPreparedStatement(FlightSql.ActionCreatePreparedStatementRequest request,
        CallContext context, StreamListener<Result> listener) {
      String query = request.getQuery();
      switch (query) {
        case INSERT, CREATE -> {
          // no dataset schema: the statement returns no rows
          FlightSql.ActionCreatePreparedStatementResult result =
              FlightSql.ActionCreatePreparedStatementResult.newBuilder()
                  .setPreparedStatementHandle(ByteString.copyFromUtf8(query)).build();
          listener.onNext(new Result(Any.pack(result).toByteArray()));
          listener.onCompleted();
        }
        case STREAMS_UNTIL_CANCELLED -> {
          ByteArrayOutputStream schema = new ByteArrayOutputStream();
          try {
            MessageSerializer.serialize(new WriteChannel(Channels.newChannel(schema)), ENDLESS);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          FlightSql.ActionCreatePreparedStatementResult result =
              FlightSql.ActionCreatePreparedStatementResult.newBuilder()
                  .setPreparedStatementHandle(ByteString.copyFromUtf8(query))
                  .setDatasetSchema(ByteString.copyFrom(schema.toByteArray())).build();
          listener.onNext(new Result(Any.pack(result).toByteArray()));
          listener.onCompleted();
        }
        case RUNS_UNTIL_CANCELLED -> {
          slowStarted.countDown();
          long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
          while (!context.isCancelled() && System.nanoTime() < giveUp) {
            try {
              Thread.sleep(5);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              break;
            }
          }
          if (context.isCancelled()) {
            slowCancelled.countDown();
          }
          listener.onError(CallStatus.CANCELLED.withDescription("stopped").toRuntimeException());
        }
        default -> listener.onError(CallStatus.INVALID_ARGUMENT
            .withDescription("unknown statement '" + query + "'").toRuntimeException());
      }
    }

    @Override
    public FlightInfo getFlightInfoPreparedStatement(FlightSql.CommandPreparedStatementQuery command,
        CallContext context, FlightDescriptor descriptor) {
      Ticket ticket = new Ticket(Any.pack(command).toByteArray());
      return new FlightInfo(ENDLESS, descriptor, List.of(new FlightEndpoint(ticket)), -1, -1);
    }

    /** Batches of 100 counting up, until the client cancels (bounded at ten million rows). */
    @Override
    public void getStreamPreparedStatement(FlightSql.CommandPreparedStatementQuery command,
        CallContext context, ServerStreamListener listener) {
      listener.setOnCancelHandler(streamCancelled::countDown);
      try (VectorSchemaRoot root = VectorSchemaRoot.create(ENDLESS, allocator)) {
        listener.start(root);
        BigIntVector n = (BigIntVector) root.getVector(0);
        long next = 0;
        while (!listener.isCancelled() && next < 10_000_000) {
          if (!listener.isReady()) {
            Thread.sleep(1);
            continue;
          }
          root.allocateNew();
          for (int i = 0; i < 100; i++) {
            n.setSafe(i, next++);
          }
          root.setRowCount(100);
          listener.putNext();
          streamStarted.countDown();
        }
        if (!listener.isCancelled()) {
          listener.completed();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        listener.error(CallStatus.CANCELLED.toRuntimeException());
      }
    }

    @Override
    public Runnable acceptPutPreparedStatementUpdate(FlightSql.CommandPreparedStatementUpdate command,
        CallContext context, FlightStream parameters, StreamListener<PutResult> ack) {
      return () -> {
        while (parameters.next()) {
          // no parameters are bound; drain what the client sends
        }
        long count = command.getPreparedStatementHandle().toStringUtf8().equals(INSERT) ? 3 : 0;
        byte[] bytes = FlightSql.DoPutUpdateResult.newBuilder().setRecordCount(count).build().toByteArray();
        try (ArrowBuf buffer = allocator.buffer(bytes.length)) {
          buffer.writeBytes(bytes);
          ack.onNext(PutResult.metadata(buffer));
        }
        ack.onCompleted();
      };
    }

    @Override
    public void closePreparedStatement(FlightSql.ActionClosePreparedStatementRequest request,
        CallContext context, StreamListener<Result> listener) {
      listener.onCompleted();
    }
  }

  @BeforeEach
  void start() throws Exception {
    allocator = new RootAllocator();
    producer = new Producer(allocator);
    FlightServerMiddleware.Factory<FlightServerMiddleware> recorder =
        (CallInfo info, CallHeaders headers, RequestContext context) -> {
          authorizations.add(info.method() + " " + headers.get("authorization"));
          return new FlightServerMiddleware() {
            @Override
            public void onBeforeSendingHeaders(CallHeaders outgoing) {}

            @Override
            public void onCallCompleted(CallStatus status) {}

            @Override
            public void onCallErrored(Throwable err) {}
          };
        };
    server = FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0), producer)
        .middleware(FlightServerMiddleware.Key.of("recorder"), recorder)
        .build().start();
    endpoint = "grpc://127.0.0.1:" + server.getPort();
  }

  @AfterEach
  void stop() throws Exception {
    server.shutdown();
    server.awaitTermination(30, TimeUnit.SECONDS);
    server.close();
    allocator.close();
  }

  private record Run(int exit, String out, String err) {}

  private static Run sql(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new SqlCommand(new ByteArrayInputStream(new byte[0]), () -> false));
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));
    return new Run(command.execute(args), out.toString(), err.toString());
  }

  @Test
  void aStatementPreparedWithoutADatasetSchemaIsExecutedAsAnUpdateAndItsCountPrinted() {
    Run insert = sql("--endpoint", endpoint, INSERT);
    assertEquals(0, insert.exit(), insert.err());
    List<String> lines = insert.out().lines().toList();
    assertEquals("OK, 3 rows affected", lines.getFirst(), insert.out());
    assertTrue(lines.get(1).startsWith("Time: "), insert.out());
    Run create = sql("--endpoint", endpoint, CREATE);
    assertEquals("OK, 0 rows affected", create.out().lines().findFirst().orElseThrow());
  }

  @Test
  void anUpdateInCsvOrJsonWritesNothingToStandardOutput() {
    for (String format : new String[] {"csv", "json"}) {
      Run run = sql("--endpoint", endpoint, "--format", format, INSERT);
      assertEquals(0, run.exit(), run.err());
      assertEquals("", run.out(), format);
      assertEquals("", run.err(), format);
    }
  }

  @Test
  void theTokenIsSentAsABearerHeaderOnEveryCall() {
    Run run = sql("--endpoint", endpoint, "--token", "s3cret", INSERT);
    assertEquals(0, run.exit(), run.err());
    // prepare (DoAction), execute the update (DoPut), release the handle (DoAction)
    assertEquals(List.of("DO_ACTION Bearer s3cret", "DO_PUT Bearer s3cret", "DO_ACTION Bearer s3cret"),
        List.copyOf(authorizations));
  }

  @Test
  void withoutATokenNoAuthorizationHeaderIsSent() {
    sql("--endpoint", endpoint, INSERT);
    assertFalse(authorizations.isEmpty());
    assertTrue(authorizations.stream().allMatch(a -> a.endsWith(" null")), authorizations.toString());
  }

  @Test
  void aBlankTokenIsAUsageError() {
    Run run = sql("--endpoint", endpoint, "--token", " ", INSERT);
    assertEquals(2, run.exit());
    assertTrue(run.err().contains("--token"), run.err());
    assertTrue(authorizations.isEmpty(), authorizations.toString());
  }

  @Test
  void theServersRefusalIsPrintedWithItsStatus() {
    Run run = sql("--endpoint", endpoint, "DROP TABLE nowhere");
    assertEquals(SqlCommand.STATEMENT_FAILED, run.exit());
    assertEquals("ERROR: INVALID_ARGUMENT: unknown statement 'DROP TABLE nowhere'\n", run.err());
  }

  @Test
  void ctrlCCancelsTheRunningStatementAndThePromptGoesOn(@TempDir Path dir) throws Exception {
    PipedOutputStream typing = new PipedOutputStream();
    PipedInputStream keyboard = new PipedInputStream(typing, 1 << 16);
    ByteArrayOutputStream screen = new ByteArrayOutputStream();
    ExecutorService shell = Executors.newSingleThreadExecutor();
    // An external terminal over the pipes: JLine's own line discipline reads the keys as they
    // come and turns Ctrl-C into SIGINT for the handler, as a real terminal does. (The FFM
    // provider would put a pseudo-terminal between, whose SIGINT goes to no process.)
    try (typing; Terminal terminal = TerminalBuilder.builder().system(false).provider("exec").type("dumb")
        .streams(keyboard, screen).encoding(StandardCharsets.UTF_8).size(new Size(120, 40)).build()) {
      SqlCommand command = new SqlCommand();
      new CommandLine(command).parseArgs("--endpoint", endpoint, "--history", dir.resolve("h").toString());
      Future<Integer> exit = shell.submit(() -> command.interactive(terminal));
      typing.write((RUNS_UNTIL_CANCELLED + ";\n").getBytes(StandardCharsets.UTF_8));
      typing.flush();
      assertTrue(producer.slowStarted.await(60, TimeUnit.SECONDS), "the statement reached the server");
      typing.write(3); // Ctrl-C
      typing.flush();
      assertTrue(producer.slowCancelled.await(60, TimeUnit.SECONDS),
          "the server saw the call cancelled; screen: " + screen.toString(StandardCharsets.UTF_8));
      typing.write((INSERT + ";\n\\q\n").getBytes(StandardCharsets.UTF_8));
      typing.flush();
      assertEquals(0, exit.get(60, TimeUnit.SECONDS));
    } finally {
      shell.shutdownNow();
    }
    String shown = screen.toString(StandardCharsets.UTF_8);
    int cancelled = shown.indexOf("ERROR: CANCELLED: the statement was cancelled (Ctrl-C)");
    assertTrue(cancelled >= 0, shown);
    assertTrue(shown.indexOf("OK, 3 rows affected", cancelled) > cancelled, shown);
  }

  @Test
  void ctrlCCancelsAStreamingResultAndThePromptGoesOn(@TempDir Path dir) throws Exception {
    PipedOutputStream typing = new PipedOutputStream();
    PipedInputStream keyboard = new PipedInputStream(typing, 1 << 16);
    ByteArrayOutputStream screen = new ByteArrayOutputStream();
    ExecutorService shell = Executors.newSingleThreadExecutor();
    try (typing; Terminal terminal = TerminalBuilder.builder().system(false).provider("exec").type("dumb")
        .streams(keyboard, screen).encoding(StandardCharsets.UTF_8).size(new Size(120, 40)).build()) {
      SqlCommand command = new SqlCommand();
      new CommandLine(command).parseArgs("--endpoint", endpoint, "--format", "csv",
          "--history", dir.resolve("h").toString());
      Future<Integer> exit = shell.submit(() -> command.interactive(terminal));
      typing.write((STREAMS_UNTIL_CANCELLED + ";\n").getBytes(StandardCharsets.UTF_8));
      typing.flush();
      assertTrue(producer.streamStarted.await(60, TimeUnit.SECONDS), "rows are streaming");
      typing.write(3); // Ctrl-C
      typing.flush();
      assertTrue(producer.streamCancelled.await(60, TimeUnit.SECONDS), "the server saw the stream cancelled");
      typing.write((INSERT + ";\n\\q\n").getBytes(StandardCharsets.UTF_8));
      typing.flush();
      assertEquals(0, exit.get(60, TimeUnit.SECONDS));
    } finally {
      shell.shutdownNow();
    }
    String shown = screen.toString(StandardCharsets.UTF_8);
    int cancelled = shown.indexOf("ERROR: CANCELLED: the statement was cancelled (Ctrl-C)");
    assertTrue(cancelled >= 0, shown.substring(Math.max(0, shown.length() - 2000)));
    assertTrue(shown.indexOf("OK, 3 rows affected", cancelled) > cancelled, shown.substring(cancelled));
  }
}
