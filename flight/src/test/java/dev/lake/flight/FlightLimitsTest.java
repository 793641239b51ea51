package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.sql.StatementLimits;
import java.util.Optional;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stated limits over Flight SQL with stock clients: what is within them plans and its ticket
 * or handle is redeemed; what is over them is refused at once with RESOURCE_EXHAUSTED (or
 * INVALID_ARGUMENT for identifiers and malformed messages) naming the limit, in a status message
 * of bounded size, and the server goes on answering.
 */
class FlightLimitsTest {

  private static final TableIdent EPISODES = TableIdent.of("demo", "episodes");
  private static final int LIMIT = StatementLimits.DEFAULTS.maxStatementBytes();

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    lake.registry.create(EPISODES, IngestData.EPISODES, "log");
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 4, 250)) {
      lake.registry.append(EPISODES, Optional.empty(), new AppendOperation("default", "demo.episodes",
          UUID.randomUUID(), "0".repeat(64)), rows);
    }
  }

  @AfterEach
  void stop() throws Exception {
    lake.close();
  }

  private long count(String sql) throws Exception {
    FlightSqlClient client = lake.client();
    FlightInfo info = client.execute(sql);
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket())) {
      assertTrue(stream.next());
      return ((BigIntVector) stream.getRoot().getVector(0)).get(0);
    }
  }

  private FlightRuntimeException refused(FlightStatusCode code, String sql) {
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> count(sql));
    assertEquals(code, e.status().code(), e.getMessage());
    assertTrue(e.getMessage().length() <= ErrorMapper.MAX_MESSAGE_BYTES, "message of "
        + e.getMessage().length() + " characters");
    return e;
  }

  /** A statement of exactly {@code bytes} bytes that counts the rows whose robot is not a long literal. */
  private static String statementOf(int bytes) {
    String head = "SELECT count(*) FROM demo.episodes WHERE robot <> '";
    return head + "x".repeat(bytes - head.length() - 1) + "'";
  }

  @Test
  void aStatementAtTheByteLimitPlansAndItsTicketAndHandleAreRedeemed() throws Exception {
    String sql = statementOf(LIMIT);
    assertEquals(LIMIT, sql.getBytes(StandardCharsets.UTF_8).length);
    assertEquals(1_000L, count(sql));
    try (FlightSqlClient.PreparedStatement prepared = lake.client().prepare(sql)) {
      FlightInfo info = prepared.execute();
      try (FlightStream stream = lake.client().getStream(info.getEndpoints().getFirst().getTicket())) {
        assertTrue(stream.next());
        assertEquals(1_000L, ((BigIntVector) stream.getRoot().getVector(0)).get(0));
      }
    }
  }

  @Test
  void aStatementOverTheByteLimitIsResourceExhaustedNamingTheLimit() throws Exception {
    FlightRuntimeException e = refused(FlightStatusCode.RESOURCE_EXHAUSTED, statementOf(LIMIT + 1));
    assertTrue(e.getMessage().contains("(statement bytes)"), e.getMessage());
    // 16 MB: over the command limit before its text is even decoded.
    FlightRuntimeException huge = refused(FlightStatusCode.RESOURCE_EXHAUSTED, statementOf(16 << 20));
    assertTrue(huge.getMessage().contains("(command bytes"), huge.getMessage());
    assertEquals(1_000L, count("SELECT count(*) FROM demo.episodes"));
  }

  @Test
  void anInListAtTheTermLimitIsRedeemedAndOneMoreIsRefused() throws Exception {
    int terms = StatementLimits.DEFAULTS.maxListTerms();
    StringBuilder in = new StringBuilder("SELECT count(*) FROM demo.episodes WHERE id IN (0");
    for (int i = 1; i < terms; i++) {
      in.append(',').append(i);
    }
    assertEquals(1_000L, count(in + ")"));
    FlightRuntimeException e = refused(FlightStatusCode.RESOURCE_EXHAUSTED, in + ",1)");
    assertTrue(e.getMessage().contains("(list terms)"), e.getMessage());
  }

  @Test
  void aThousandTermOrRunsThroughTheStockJdbcDriver() throws Exception {
    StringBuilder or = new StringBuilder("SELECT count(*) FROM demo.episodes WHERE id = 0");
    for (int i = 1; i < 1_000; i++) {
      or.append(" OR id = ").append(i * 2);
    }
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(or.toString())) {
      assertTrue(rs.next());
      assertEquals(500L, rs.getLong(1));
    }
  }

  @Test
  void deepNestingIsRefusedAtOnceNamingTheDepthLimit() throws Exception {
    int depth = StatementLimits.DEFAULTS.maxDepth();
    assertEquals(1_000L, count("SELECT count(*) FROM demo.episodes WHERE "
        + "(".repeat(depth - 10) + "id >= 0" + ")".repeat(depth - 10)));
    for (String deep : new String[] {
        "SELECT " + "(".repeat(100_000) + "1" + ")".repeat(100_000),
        "SELECT id" + "+id".repeat(50_000) + " FROM demo.episodes",
        "SELECT count(*) FROM demo.episodes WHERE " + "NOT ".repeat(100_000) + "id > 3",
        "SELECT " + "CASE WHEN id > 0 THEN ".repeat(20_000) + "id" + " END".repeat(20_000)
            + " FROM demo.episodes"}) {
      FlightRuntimeException e = refused(FlightStatusCode.RESOURCE_EXHAUSTED, deep);
      assertTrue(e.getMessage().contains("(expression depth)"), e.getMessage());
    }
    assertEquals(1_000L, count("SELECT count(*) FROM demo.episodes"));
  }

  @Test
  void aSelectListOverItsWidthIsRefusedAtOnce() throws Exception {
    int width = StatementLimits.DEFAULTS.maxSelectColumns();
    FlightRuntimeException e = refused(FlightStatusCode.RESOURCE_EXHAUSTED,
        "SELECT " + "id, ".repeat(width) + "id FROM demo.episodes");
    assertTrue(e.getMessage().contains("(select-list width)"), e.getMessage());
  }

  @Test
  void aTenThousandCharacterIdentifierIsInvalidWithAShortMessage() throws Exception {
    FlightRuntimeException bare = refused(FlightStatusCode.INVALID_ARGUMENT,
        "SELECT " + "a".repeat(10_000) + " FROM demo.episodes");
    assertTrue(bare.getMessage().contains("(identifier length)"), bare.getMessage());
    assertTrue(bare.getMessage().length() < 400, bare.getMessage());
    refused(FlightStatusCode.INVALID_ARGUMENT, "SELECT \"" + "a".repeat(10_000) + "\" FROM demo.episodes");
  }

  @Test
  void invalidUtf8InsideACommandIsInvalidArgument() throws Exception {
    byte[] sql = "SELECT 'r\u00f6bot' AS name".getBytes(StandardCharsets.UTF_8);
    byte[] broken = new byte[sql.length];
    System.arraycopy(sql, 0, broken, 0, sql.length);
    broken[9] = (byte) 0xff; // inside the literal: not UTF-8 any more
    // CommandStatementQuery: field 1 (query), length-delimited, with the broken bytes.
    byte[] command = Any.newBuilder()
        .setTypeUrl("type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery")
        .setValue(ByteString.copyFrom(concat(new byte[] {0x0a, (byte) broken.length}, broken)))
        .build().toByteArray();
    try (FlightClient client = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).build()) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> client.getInfo(FlightDescriptor.command(command)));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
      FlightRuntimeException schema = assertThrows(FlightRuntimeException.class,
          () -> client.getSchema(FlightDescriptor.command(command)));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, schema.status().code(), schema.getMessage());
      FlightSql.ActionCreatePreparedStatementRequest valid =
          FlightSql.ActionCreatePreparedStatementRequest.newBuilder().setQuery("SELECT 1").build();
      byte[] body = Any.pack(valid).toByteArray();
      byte[] bad = concat(body, new byte[0]);
      // Break the query's UTF-8 inside the packed request.
      bad[bad.length - 1] = (byte) 0xc3;
      FlightRuntimeException action = assertThrows(FlightRuntimeException.class,
          () -> client.doAction(new Action(FlightSqlService.CREATE_PREPARED_STATEMENT, bad)).hasNext());
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, action.status().code(), action.getMessage());
    }
    assertEquals(1_000L, count("SELECT count(*) FROM demo.episodes"));
  }

  @Test
  void messagesQuotingHugeInputStayBoundedAndReachStockClients() throws Exception {
    String typeUrl = "type.googleapis.com/" + "x".repeat(1_000_000);
    byte[] command = Any.newBuilder().setTypeUrl(typeUrl).build().toByteArray();
    try (FlightClient client = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).build()) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> client.getInfo(FlightDescriptor.command(command)));
      assertEquals(FlightStatusCode.UNIMPLEMENTED, e.status().code(), e.getMessage());
      assertTrue(e.getMessage().contains("characters left out"), e.getMessage());
      assertTrue(e.getMessage().endsWith("is not supported by lake"), e.getMessage());
      String type = "\u00e9".repeat(500_000);
      FlightRuntimeException action = assertThrows(FlightRuntimeException.class,
          () -> client.doAction(new Action(type, new byte[0])).hasNext());
      assertEquals(FlightStatusCode.UNIMPLEMENTED, action.status().code(), action.getMessage());
      assertTrue(action.getMessage().length() < ErrorMapper.MAX_MESSAGE_BYTES, action.getMessage());
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
