package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.sql.StatementLimits;
import java.util.Optional;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded fuzz of every Flight SQL command and action type with hostile content: garbage bytes
 * inside valid command types, random {@code Any} type URLs, garbage action bodies and tickets,
 * hostile search patterns, deep nesting, huge statements, invalid UTF-8 and long identifiers.
 * After each input no status is INTERNAL (or UNKNOWN, or a deadline: every input must be
 * answered or refused promptly), no server worker stays busy, the server answers a liveness
 * query, and the table and its versions are unchanged.
 *
 * <p>CI runs {@value #DEFAULT_INPUTS} inputs from a fresh seed; every assertion prints the seed.
 * Reproduce or run longer with {@code -Dlake.fuzz.seed=N} and {@code -Dlake.fuzz.inputs=N}.
 *
 * <p>Search patterns: the hostile ones over the command limit are refused by it; within it they
 * hold up to {@value #PATTERN_WILDCARDS} wildcards, which {@code LikePattern} matches in linear
 * time (a backtracking matcher would tie a worker up for minutes on them).
 */
class FlightCommandFuzzTest {

  static final int DEFAULT_INPUTS = 300;
  static final int PATTERN_WILDCARDS = 2_000;
  private static final TableIdent EPISODES = TableIdent.of("demo", "episodes");
  private static final String SQL_PREFIX = "type.googleapis.com/arrow.flight.protocol.sql.";
  private static final List<String> COMMANDS = List.of("CommandStatementQuery",
      "CommandStatementUpdate", "CommandPreparedStatementQuery", "CommandPreparedStatementUpdate",
      "CommandGetCatalogs", "CommandGetDbSchemas", "CommandGetTables", "CommandGetTableTypes",
      "CommandGetSqlInfo", "CommandGetXdbcTypeInfo", "CommandGetPrimaryKeys",
      "CommandGetExportedKeys", "CommandGetImportedKeys", "CommandGetCrossReference",
      "CommandStatementIngest", "CommandStatementSubstraitPlan", "TicketStatementQuery");
  private static final List<String> ACTIONS = List.of("CreatePreparedStatement",
      "ClosePreparedStatement", "CreatePreparedSubstraitPlan", "BeginTransaction",
      "EndTransaction", "BeginSavepoint", "EndSavepoint", "CancelQuery", "CancelFlightInfo",
      "RenewFlightEndpoint", "SetSessionOptions", "GetSessionOptions", "CloseSession");
  private static final List<String> QUERIES = List.of(
      "SELECT count(*) FROM demo.episodes WHERE id < 10",
      "SELECT robot, sum(reward) FROM demo.episodes GROUP BY robot ORDER BY robot",
      "SELECT a.id FROM demo.episodes a JOIN demo.episodes b ON a.id = b.id WHERE a.id IN (1, 2, 3)",
      "SELECT id FROM demo.episodes FOR VERSION AS OF 1 LIMIT 3");
  private static final CallOption DEADLINE = CallOptions.timeout(60, TimeUnit.SECONDS);

  @TempDir Path directory;
  private LakeServerFixture lake;
  private FlightClient flight;
  private FlightSqlClient sql;
  private long seed;
  private Random random;
  private String input;

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    lake.registry.create(EPISODES, IngestData.EPISODES, "log");
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 4, 250)) {
      lake.registry.append(EPISODES, Optional.empty(), new AppendOperation("default", "demo.episodes",
          UUID.randomUUID(), "0".repeat(64)), rows);
    }
    flight = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).build();
    sql = new FlightSqlClient(flight);
    seed = Long.getLong("lake.fuzz.seed", System.nanoTime());
    random = new Random(seed);
  }

  @AfterEach
  void stop() throws Exception {
    sql.close();
    lake.close();
  }

  @Test
  void hostileCommandsAreAnsweredPreciselyAndChangeNothing() throws Exception {
    int inputs = Integer.getInteger("lake.fuzz.inputs", DEFAULT_INPUTS);
    System.out.println("FlightCommandFuzzTest seed=" + seed + " inputs=" + inputs);
    String before = state();
    for (int n = 0; n < inputs; n++) {
      int kind = random.nextInt(10);
      try {
        switch (kind) {
          case 0 -> garbageInsideACommand();
          case 1 -> randomTypeUrl();
          case 2 -> garbageAction();
          case 3 -> garbageTicket();
          case 4 -> hostilePattern();
          case 5 -> hostileStatement();
          case 6 -> invalidUtf8();
          case 7 -> hostileSchemaHeader();
          case 8 -> oddParameters();
          default -> mutatedQuery();
        }
      } catch (FlightRuntimeException e) {
        check(n, e);
      }
      afterInput(n, before);
    }
  }

  // ---- inputs ------------------------------------------------------------------------------

  private void garbageInsideACommand() {
    String type = pick(COMMANDS);
    byte[] value = random.nextBoolean() ? bytes(random.nextInt(64)) : flipped(validCommand(type));
    describe("garbage inside " + type);
    descriptor(Any.newBuilder().setTypeUrl(SQL_PREFIX + type).setValue(ByteString.copyFrom(value))
        .build().toByteArray());
  }

  private void randomTypeUrl() {
    String url = switch (random.nextInt(4)) {
      case 0 -> text(random.nextInt(40));
      case 1 -> SQL_PREFIX + text(random.nextInt(30));
      case 2 -> "type.googleapis.com/" + "x".repeat(random.nextInt(2_000_000));
      default -> SQL_PREFIX + pick(COMMANDS) + text(1 + random.nextInt(3));
    };
    describe("type url " + excerpt(url));
    descriptor(Any.newBuilder().setTypeUrl(url).setValue(ByteString.copyFrom(bytes(random.nextInt(32))))
        .build().toByteArray());
  }

  private void garbageAction() {
    String type = random.nextInt(5) == 0 ? text(random.nextInt(50)) : pick(ACTIONS);
    byte[] body = switch (random.nextInt(3)) {
      case 0 -> bytes(random.nextInt(100));
      case 1 -> Any.newBuilder().setTypeUrl(SQL_PREFIX + pick(COMMANDS))
          .setValue(ByteString.copyFrom(bytes(random.nextInt(40)))).build().toByteArray();
      default -> flipped(Any.pack(FlightSql.ActionCreatePreparedStatementRequest.newBuilder()
          .setQuery(pick(QUERIES)).build()).toByteArray());
    };
    describe("action " + excerpt(type) + " with " + body.length + " garbage bytes");
    Iterator<Result> results = flight.doAction(new Action(type, body), DEADLINE);
    while (results.hasNext()) {
      Result result = results.next();
      if (type.equals("CreatePreparedStatement")) {
        redeemHandle(result);
      }
    }
  }

  private void garbageTicket() throws Exception {
    byte[] plain = TicketCodec.encodeQuery(pick(QUERIES), java.util.Map.of());
    byte[] ticket = switch (random.nextInt(3)) {
      case 0 -> bytes(random.nextInt(200));
      // An altered envelope (what anyone can send), and altered bytes inside an intact one
      // (what only a holder of the key ring could send: the inner decoder's fuzz).
      case 1 -> flipped(lake.sealTicket(plain));
      default -> lake.sealTicket(flipped(plain));
    };
    describe("ticket of " + ticket.length + " bytes");
    drain(new Ticket(ticket));
  }

  private void hostilePattern() {
    String pattern;
    if (random.nextInt(4) == 0) {
      // Over the command limit: refused by the limit whatever the matcher.
      pattern = "%".repeat(StatementLimits.DEFAULTS.maxStatementBytes() + 70_000);
    } else if (random.nextInt(3) == 0) {
      // The classic backtracking trap: many % and a tail that never matches.
      pattern = "%".repeat(1 + random.nextInt(1_000)) + "zq";
    } else {
      StringBuilder b = new StringBuilder();
      int wildcards = 0;
      for (int i = random.nextInt(1_500); i > 0; i--) {
        int c = random.nextInt(6);
        if (c == 0 && wildcards < PATTERN_WILDCARDS) {
          b.append('%');
          wildcards++;
        } else if (c == 1 && wildcards < PATTERN_WILDCARDS) {
          b.append('_');
          wildcards++;
        } else if (c == 2) {
          b.append('\\');
        } else {
          String letters = "demoepisx(.*[\u00e9";
          b.append(letters.charAt(random.nextInt(letters.length())));
        }
      }
      pattern = b.toString();
    }
    describe("search pattern " + excerpt(pattern));
    Message command = random.nextBoolean()
        ? FlightSql.CommandGetDbSchemas.newBuilder().setDbSchemaFilterPattern(pattern).build()
        : FlightSql.CommandGetTables.newBuilder().setDbSchemaFilterPattern(pattern)
            .setTableNameFilterPattern(pattern).setIncludeSchema(random.nextBoolean()).build();
    descriptor(Any.pack(command).toByteArray());
  }

  private void hostileStatement() throws Exception {
    StatementLimits limits = StatementLimits.DEFAULTS;
    int over = 1 + random.nextInt(2);
    String statement = switch (random.nextInt(8)) {
      case 0 -> "SELECT " + "(".repeat(depth(limits, over)) + "1" + ")".repeat(depth(limits, over));
      case 1 -> "SELECT id" + "+id".repeat(depth(limits, over)) + " FROM demo.episodes";
      case 2 -> "SELECT count(*) FROM demo.episodes WHERE " + "NOT ".repeat(depth(limits, over)) + "id > 3";
      case 3 -> {
        StringBuilder b = new StringBuilder("SELECT count(*) FROM demo.episodes WHERE id = 0");
        for (int i = random.nextInt(over == 1 ? 300 : 1_000); i > 0; i--) {
          b.append(" OR id = ").append(random.nextInt(2_000));
        }
        yield b.toString();
      }
      case 4 -> "SELECT count(*) FROM demo.episodes WHERE robot <> '"
          + "x".repeat(random.nextInt(2 * limits.maxStatementBytes())) + "'";
      case 5 -> "SELECT " + "id, ".repeat(random.nextInt(2 * limits.maxSelectColumns())) + "id FROM demo.episodes";
      case 6 -> "SELECT " + "a".repeat(random.nextInt(20_000)) + " FROM demo.episodes";
      default -> "SELECT \"" + "\u00e9".repeat(random.nextInt(20_000)) + "\" FROM demo.episodes";
    };
    describe("statement " + excerpt(statement) + " (" + statement.length() + " characters)");
    if (random.nextBoolean()) {
      FlightInfo info = sql.execute(statement, DEADLINE);
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        drain(endpoint.getTicket());
      }
    } else {
      try (FlightSqlClient.PreparedStatement prepared = sql.prepare(statement, DEADLINE)) {
        FlightInfo info = prepared.execute(DEADLINE);
        drain(info.getEndpoints().getFirst().getTicket());
      }
    }
  }

  // Shallow (planned in full) or over the limit (refused at once): never near it, which plans slowly.
  private int depth(StatementLimits limits, int over) {
    return over == 1 ? random.nextInt(300) : limits.maxDepth() + 1 + random.nextInt(limits.maxDepth());
  }

  /** A default schema in the {@code schema} call header: garbage, too long, or a real name. */
  private void hostileSchemaHeader() throws Exception {
    String value = switch (random.nextInt(4)) {
      case 0 -> "demo";
      case 1 -> "nosuchschema";
      case 2 -> "a".repeat(random.nextInt(4_000));
      default -> {
        StringBuilder b = new StringBuilder();
        for (int i = random.nextInt(200); i > 0; i--) {
          b.append((char) (0x20 + random.nextInt(0x5f)));
        }
        yield b.toString();
      }
    };
    describe("schema header '" + excerpt(value) + "' (" + value.length() + " characters)");
    org.apache.arrow.flight.FlightCallHeaders headers = new org.apache.arrow.flight.FlightCallHeaders();
    headers.insert(SessionOptions.SCHEMA_HEADER, value);
    CallOption header = new org.apache.arrow.flight.HeaderCallOption(headers);
    String statement = random.nextBoolean() ? "SELECT count(*) FROM episodes"
        : "INSERT INTO episodes (id) VALUES (?)";
    if (statement.startsWith("SELECT")) {
      FlightInfo info = sql.execute(statement, DEADLINE, header);
      drain(info.getEndpoints().getFirst().getTicket());
    } else {
      // Prepared, never executed: the data must not change.
      sql.prepare(statement, DEADLINE, header).close(DEADLINE, header);
    }
  }

  /** {@code ?} where its type comes from a literal beside it, or from nothing at all. */
  private void oddParameters() throws Exception {
    String statement = pick(List.of("SELECT COALESCE(?, 'x')", "SELECT ? + ?", "SELECT -?",
        "SELECT ? IN (1, 2)", "SELECT NULLIF(?, 1)", "SELECT CASE WHEN ? THEN ? ELSE 0 END",
        "SELECT count(*) FROM demo.episodes WHERE robot LIKE ? OR ? IS NULL",
        "SELECT COALESCE(?, ?, 2.5) * ?", "INSERT INTO demo.episodes VALUES (?, 'x', ?, ?)",
        "INSERT INTO demo.episodes (id) VALUES (? + 1)", "SELECT CAST(? AS INT) + ? - ?"));
    describe("parameters in " + statement);
    sql.prepare(statement, DEADLINE).close(DEADLINE);
  }

  private void invalidUtf8() {
    byte[] text = pick(QUERIES).getBytes(StandardCharsets.UTF_8);
    text[random.nextInt(text.length)] = (byte) (0x80 | random.nextInt(0x80));
    String type = random.nextBoolean() ? "CommandStatementQuery" : "CommandGetDbSchemas";
    // Field 1 of both messages is a string: write it with the broken bytes.
    byte[] value = concat(new byte[] {0x0a, (byte) text.length}, text);
    describe("invalid UTF-8 in " + type);
    if (random.nextBoolean()) {
      descriptor(Any.newBuilder().setTypeUrl(SQL_PREFIX + type).setValue(ByteString.copyFrom(value))
          .build().toByteArray());
    } else {
      flight.doAction(new Action("CreatePreparedStatement", Any.newBuilder()
          .setTypeUrl(SQL_PREFIX + "ActionCreatePreparedStatementRequest")
          .setValue(ByteString.copyFrom(value)).build().toByteArray()), DEADLINE).hasNext();
    }
  }

  private void mutatedQuery() throws Exception {
    StringBuilder b = new StringBuilder(pick(QUERIES));
    for (int i = 1 + random.nextInt(4); i > 0; i--) {
      int at = random.nextInt(b.length());
      switch (random.nextInt(3)) {
        case 0 -> b.deleteCharAt(at);
        case 1 -> b.insert(at, "()',;%*\"-/\\\u0000\u00e9\ud83d\ude00".charAt(random.nextInt(14)));
        default -> b.setCharAt(at, (char) random.nextInt(0x3000));
      }
    }
    String statement = b.toString();
    describe("mutated " + excerpt(statement));
    FlightInfo info = sql.execute(statement, DEADLINE);
    drain(info.getEndpoints().getFirst().getTicket());
  }

  // ---- calls -------------------------------------------------------------------------------

  /** GetFlightInfo, then GetSchema, then redeems every ticket. */
  private void descriptor(byte[] command) {
    FlightDescriptor descriptor = FlightDescriptor.command(command);
    if (random.nextBoolean()) {
      flight.getSchema(descriptor, DEADLINE);
    }
    FlightInfo info = flight.getInfo(descriptor, DEADLINE);
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      try {
        drain(endpoint.getTicket());
      } catch (Exception e) {
        throw e instanceof FlightRuntimeException f ? f : new IllegalStateException(e);
      }
    }
  }

  private void redeemHandle(Result result) {
    try {
      FlightSql.ActionCreatePreparedStatementResult created = Any.parseFrom(result.getBody())
          .unpack(FlightSql.ActionCreatePreparedStatementResult.class);
      descriptor(Any.pack(FlightSql.CommandPreparedStatementQuery.newBuilder()
          .setPreparedStatementHandle(created.getPreparedStatementHandle()).build()).toByteArray());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      fail(context() + ": the server answered CreatePreparedStatement with an unparseable result");
    }
  }

  private void drain(Ticket ticket) throws Exception {
    try (FlightStream stream = flight.getStream(ticket, DEADLINE)) {
      while (stream.next()) {
        stream.getRoot().getRowCount();
      }
    }
  }

  // ---- checks ------------------------------------------------------------------------------

  private void check(int n, FlightRuntimeException e) {
    FlightStatusCode code = e.status().code();
    if (code == FlightStatusCode.INTERNAL || code == FlightStatusCode.UNKNOWN
        || code == FlightStatusCode.TIMED_OUT) {
      fail(context() + " (input " + n + "): answered " + code + ": " + e.getMessage(), e);
    }
  }

  private void afterInput(int n, String before) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (lake.server.activeWorkers() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertEquals(0, lake.server.activeWorkers(), context() + " (input " + n + "): a worker stays busy");
    try {
      FlightInfo info = sql.execute("SELECT count(*) FROM demo.episodes", DEADLINE);
      try (FlightStream stream = flight.getStream(info.getEndpoints().getFirst().getTicket(), DEADLINE)) {
        stream.next();
        assertEquals(1_000L, ((BigIntVector) stream.getRoot().getVector(0)).get(0),
            context() + " (input " + n + "): the table changed");
      }
    } catch (FlightRuntimeException e) {
      fail(context() + " (input " + n + "): the liveness query failed: " + e.getMessage(), e);
    }
    assertEquals(before, state(), context() + " (input " + n + "): the catalog changed");
  }

  /** Every table of every schema with its version. */
  private String state() {
    List<String> tables = new ArrayList<>();
    for (String namespace : lake.catalog.namespaces()) {
      lake.catalog.tables(namespace).forEach(t -> tables.add(namespace + "." + t));
    }
    return tables.toString();
  }

  private void describe(String what) {
    input = what;
  }

  private String context() {
    return "seed " + seed + ", " + input;
  }

  // ---- random material ---------------------------------------------------------------------

  private byte[] validCommand(String type) {
    Message message = switch (type) {
      case "CommandStatementQuery" -> FlightSql.CommandStatementQuery.newBuilder().setQuery(pick(QUERIES)).build();
      case "CommandGetTables" -> FlightSql.CommandGetTables.newBuilder().setDbSchemaFilterPattern("de%")
          .setIncludeSchema(true).build();
      case "CommandGetDbSchemas" -> FlightSql.CommandGetDbSchemas.newBuilder().setDbSchemaFilterPattern("%").build();
      case "CommandGetSqlInfo" -> FlightSql.CommandGetSqlInfo.newBuilder().addInfo(0).addInfo(1).build();
      case "CommandPreparedStatementQuery" -> FlightSql.CommandPreparedStatementQuery.newBuilder()
          .setPreparedStatementHandle(ByteString.copyFrom(
              lake.sealHandle(TicketCodec.encodeHandle(pick(QUERIES))))).build();
      default -> FlightSql.CommandGetCatalogs.getDefaultInstance();
    };
    return message.toByteArray();
  }

  private byte[] flipped(byte[] bytes) {
    byte[] out = bytes.clone();
    if (out.length == 0) {
      return out;
    }
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      int at = random.nextInt(out.length);
      out[at] ^= (byte) (1 << random.nextInt(8));
    }
    if (random.nextInt(4) == 0) {
      out = java.util.Arrays.copyOf(out, random.nextInt(out.length));
    }
    return out;
  }

  private byte[] bytes(int n) {
    byte[] out = new byte[n];
    random.nextBytes(out);
    return out;
  }

  private String text(int n) {
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      b.append((char) (random.nextBoolean() ? 0x20 + random.nextInt(0x5f) : random.nextInt(0xd000)));
    }
    return b.toString();
  }

  private <T> T pick(List<T> options) {
    return options.get(random.nextInt(options.size()));
  }

  private static String excerpt(String s) {
    return s.length() <= 60 ? s : s.substring(0, 60) + "...";
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
