package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.sql.SqlEngine;
import java.util.Optional;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpSessionOptionValueVisitor;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.client.ClientCookieMiddleware;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Session defaults through Flight SQL session options, over the stock FlightClient with Arrow's
 * cookie middleware (the one the JDBC driver uses) and over the JDBC driver: {@code shared} is a
 * table in both {@code demo} (3 rows) and {@code lab} (5 rows).
 */
class FlightSessionOptionsTest {

  @TempDir Path directory;
  private LakeServerFixture lake;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    append(TableIdent.of("demo", "shared"), 3);
    append(TableIdent.of("lab", "shared"), 5);
  }

  @AfterEach
  void stop() throws Exception {
    try {
      for (AutoCloseable c : closing.reversed()) {
        c.close();
      }
    } finally {
      lake.close();
    }
  }

  @Test
  void theDefaultSchemaResolvesBareNamesUntilTheSessionCloses() throws Exception {
    FlightSqlClient client = cookieClient(lake.port(), null);
    FlightRuntimeException ambiguous = assertThrows(FlightRuntimeException.class,
        () -> count(client, "SELECT count(*) FROM shared"));
    assertEquals(FlightStatusCode.NOT_FOUND, ambiguous.status().code());

    SetSessionOptionsResult set = client.setSessionOptions(new SetSessionOptionsRequest(Map.of(
        "catalog", SessionOptionValueFactory.makeSessionOptionValue("lake"),
        "schema", SessionOptionValueFactory.makeSessionOptionValue("LAB"))));
    assertFalse(set.hasErrors(), set.getErrors().toString());
    assertEquals(Map.of("catalog", "lake", "schema", "lab"), options(client));
    assertEquals(5, count(client, "SELECT count(*) FROM shared"));
    assertEquals(3, count(client, "SELECT count(*) FROM demo.shared"));
    assertEquals(5, count(client, "SELECT count(*) FROM shared a JOIN shared b ON a.id = b.id"));
    try (FlightSqlClient.PreparedStatement prepared = client.prepare("SELECT count(*) FROM shared")) {
      assertEquals(5, first(client, prepared.execute()));
    }

    client.setSessionOptions(new SetSessionOptionsRequest(Map.of(
        "schema", SessionOptionValueFactory.makeSessionOptionValue("demo"))));
    assertEquals(3, count(client, "SELECT count(*) FROM shared"));

    CloseSessionResult closed = client.closeSession(new CloseSessionRequest());
    assertEquals(CloseSessionResult.Status.CLOSED, closed.getStatus());
    assertEquals(Map.of(), options(client));
    assertThrows(FlightRuntimeException.class, () -> count(client, "SELECT count(*) FROM shared"));
  }

  @Test
  void theSessionLivesInTheCookieSoAnotherReplicaServesIt() throws Exception {
    AtomicReference<String> cookie = new AtomicReference<>();
    FlightSqlClient first = cookieClient(lake.port(), cookie);
    first.setSessionOptions(new SetSessionOptionsRequest(Map.of(
        "schema", SessionOptionValueFactory.makeSessionOptionValue("lab"))));
    assertNotNull(cookie.get());
    assertTrue(cookie.get().startsWith(SessionOptions.COOKIE + "="), cookie.get());

    try (LakeFlightServer replica = LakeFlightServer.builder().registry(lake.registry)
        .sqlEngine(new SqlEngine(new CatalogSqlCatalog(lake.registry))).allocator(lake.root)
        .build()) {
      replica.start();
      FlightSqlClient other = plainClient(replica.port());
      HeaderCallOption header = cookieHeader(cookie.get());
      FlightInfo info = other.execute("SELECT count(*) FROM shared", header);
      assertEquals(5, first(other, info));
      assertEquals("lab", options(other, header).get("schema"));
    }
  }

  @Test
  void badOptionsAreReportedOneByOneAndTheGoodOnesStillApply() {
    FlightSqlClient client = cookieClient(lake.port(), null);
    SetSessionOptionsResult result = client.setSessionOptions(new SetSessionOptionsRequest(Map.of(
        "schema", SessionOptionValueFactory.makeSessionOptionValue("lab"),
        "catalog", SessionOptionValueFactory.makeSessionOptionValue("iceberg"),
        "search_path", SessionOptionValueFactory.makeSessionOptionValue("lab"))));
    assertEquals(SetSessionOptionsResult.ErrorValue.INVALID_VALUE, result.getErrors().get("catalog").value);
    assertEquals(SetSessionOptionsResult.ErrorValue.INVALID_NAME, result.getErrors().get("search_path").value);
    assertEquals(2, result.getErrors().size());
    assertEquals(Map.of("schema", "lab"), options(client));

    SetSessionOptionsResult missing = client.setSessionOptions(new SetSessionOptionsRequest(Map.of(
        "schema", SessionOptionValueFactory.makeSessionOptionValue("nosuchschema"))));
    assertEquals(SetSessionOptionsResult.ErrorValue.INVALID_VALUE, missing.getErrors().get("schema").value);
    SetSessionOptionsResult typed = client.setSessionOptions(new SetSessionOptionsRequest(Map.of(
        "schema", SessionOptionValueFactory.makeSessionOptionValue(42L))));
    assertEquals(SetSessionOptionsResult.ErrorValue.INVALID_VALUE, typed.getErrors().get("schema").value);
    assertEquals(Map.of("schema", "lab"), options(client), "refused values change nothing");

    client.setSessionOptions(new SetSessionOptionsRequest(Map.of(
        "schema", SessionOptionValueFactory.makeEmptySessionOptionValue())));
    assertEquals(Map.of(), options(client), "an empty value removes the option");
  }

  @Test
  void aTamperedOrOversizedCookieIsInvalidArgumentAndCloseSessionClearsIt() throws Exception {
    AtomicReference<String> cookie = new AtomicReference<>();
    FlightSqlClient client = cookieClient(lake.port(), cookie);
    client.setSessionOptions(new SetSessionOptionsRequest(Map.of(
        "schema", SessionOptionValueFactory.makeSessionOptionValue("lab"))));
    String value = cookie.get().substring(cookie.get().indexOf('=') + 1).split(";")[0];
    byte[] bytes = Base64.getUrlDecoder().decode(value);
    bytes[bytes.length / 2] ^= 0x01;
    String flipped = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    List<String> hostile = List.of("not*base64", flipped, "A".repeat(SessionOptions.MAX_COOKIE_CHARS + 1),
        Base64.getUrlEncoder().encodeToString(new byte[] {1}), badOptionCookie());
    FlightSqlClient plain = plainClient(lake.port());
    for (String bad : hostile) {
      HeaderCallOption header = cookieHeader(SessionOptions.COOKIE + "=" + bad);
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> plain.execute("SELECT count(*) FROM demo.shared", header), bad);
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), bad);
      assertTrue(e.getMessage().contains(SessionOptions.COOKIE), e.getMessage());
      FlightRuntimeException get = assertThrows(FlightRuntimeException.class,
          () -> plain.getSessionOptions(new GetSessionOptionsRequest(), header));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, get.status().code());
      assertEquals(CloseSessionResult.Status.CLOSED,
          plain.closeSession(new CloseSessionRequest(), header).getStatus());
    }
    // The real cookie still works, on a client that never talked to this server.
    assertEquals(5, first(plain, plain.execute("SELECT count(*) FROM shared", cookieHeader(cookie.get()))));
  }

  @Test
  void jdbcCatalogPropertySetsTheSessionAndAnotherCatalogIsRefused() throws Exception {
    Connection connection = DriverManager.getConnection(lake.jdbcUrl() + "&catalog=lake");
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT count(*) FROM lab.shared")) {
      assertTrue(rs.next());
      assertEquals(5, rs.getLong(1));
    } finally {
      // Driver 18.3.0 with a catalog closes its client handler twice and the second
      // CloseSession meets a channel it already shut down (apache/arrow-java#66): close()
      // throws "Channel shutdown invoked" whatever the server answers.
      try {
        connection.close();
      } catch (SQLException driverBug) {
        assertEquals(SQLException.class, driverBug.getClass());
      }
    }
    SQLException refused = assertThrows(SQLException.class,
        () -> DriverManager.getConnection(lake.jdbcUrl() + "&catalog=iceberg").close());
    assertTrue(String.valueOf(refused.getMessage()).contains("catalog"), refused.getMessage());
  }

  @Test
  void updatesAndIngestFollowTheSessionsDefaultSchemaOrTheSchemaHeader() throws Exception {
    FlightSqlClient client = cookieClient(lake.port(), null);
    client.setSessionOptions(new SetSessionOptionsRequest(Map.of(
        "schema", SessionOptionValueFactory.makeSessionOptionValue("lab"))));
    client.executeUpdate("CREATE TABLE made (id BIGINT)");
    assertEquals(5, client.executeUpdate("INSERT INTO shared SELECT * FROM shared"));
    client.executeUpdate("CREATE TABLE copied AS SELECT id FROM shared");
    assertTrue(lake.catalog.lookup(TableIdent.of("lab", "made")).isPresent());
    assertEquals(10, count(client, "SELECT count(*) FROM lab.copied"));
    assertEquals(3, count(client, "SELECT count(*) FROM demo.shared"), "the other schema's table is untouched");
    try (org.apache.arrow.vector.VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 4)) {
      assertEquals(4, client.executeIngest(rows, IngestData.options(null, "ingested",
          org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions
              .TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
          org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions
              .TableExistsOption.TABLE_EXISTS_OPTION_FAIL)));
    }
    assertTrue(lake.catalog.lookup(TableIdent.of("lab", "ingested")).isPresent(), "ingest without a schema");
    client.executeUpdate("DROP TABLE made");
    assertTrue(lake.catalog.lookup(TableIdent.of("lab", "made")).isEmpty());

    // The stock JDBC driver sends its unknown 'schema' property as a call header.
    try (Connection connection = DriverManager.getConnection(lake.jdbcUrl() + "&schema=demo");
        Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE TABLE by_jdbc (id BIGINT)");
      try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM shared")) {
        assertTrue(rs.next());
        assertEquals(3, rs.getLong(1));
      }
    }
    assertTrue(lake.catalog.lookup(TableIdent.of("demo", "by_jdbc")).isPresent());

    FlightSqlClient plain = plainClient(lake.port());
    FlightCallHeaders headers = new FlightCallHeaders();
    headers.insert(SessionOptions.SCHEMA_HEADER, "no such; name");
    FlightRuntimeException bad = assertThrows(FlightRuntimeException.class,
        () -> plain.execute("SELECT count(*) FROM shared", new HeaderCallOption(headers)));
    assertEquals(FlightStatusCode.INVALID_ARGUMENT, bad.status().code());
    assertTrue(bad.getMessage().contains("'schema'"), bad.getMessage());
  }

  @Test
  void listActionsNamesTheSessionActions() {
    List<String> types = new ArrayList<>();
    plainClient(lake.port());
    FlightClient raw = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).build();
    closing.add(raw);
    raw.listActions().forEach(a -> types.add(a.getType()));
    assertTrue(types.containsAll(List.of("SetSessionOptions", "GetSessionOptions", "CloseSession")),
        types.toString());
  }

  // ---- helpers ----------------------------------------------------------------------------

  /** A forged cookie that decodes and checksums, but carries an option lake does not have. */
  private static String badOptionCookie() {
    // Version 1, one entry "user"="x", then a valid CRC32C.
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(64);
    b.put((byte) 1).put((byte) 1).put((byte) 4).put("user".getBytes()).putShort((short) 1).put((byte) 'x');
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(b.array(), b.position()));
  }

  private void append(TableIdent table, int rows) throws Exception {
    lake.registry.create(table, IngestData.EPISODES, "log");
    try (ArrowStreamReader reader = IngestData.stream(lake.clientAllocator(), 0, 1, rows)) {
      lake.registry.append(table, Optional.empty(), new AppendOperation("default", table.toString(),
          UUID.randomUUID(), "0".repeat(64)), reader);
    }
  }

  /** A FlightSqlClient with Arrow's cookie middleware; {@code seen} gets each set-cookie header. */
  private FlightSqlClient cookieClient(int port, AtomicReference<String> seen) {
    FlightClient.Builder builder = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", port)).intercept(new ClientCookieMiddleware.Factory());
    if (seen != null) {
      builder.intercept(info -> new FlightClientMiddleware() {
        @Override
        public void onBeforeSendingHeaders(CallHeaders outgoing) {}

        @Override
        public void onHeadersReceived(CallHeaders incoming) {
          String value = incoming.get("set-cookie");
          if (value != null) {
            seen.set(value);
          }
        }

        @Override
        public void onCallCompleted(CallStatus status) {}
      });
    }
    FlightSqlClient client = new FlightSqlClient(builder.build());
    closing.add(client);
    return client;
  }

  private FlightSqlClient plainClient(int port) {
    FlightSqlClient client = new FlightSqlClient(FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", port)).build());
    closing.add(client);
    return client;
  }

  private static HeaderCallOption cookieHeader(String setCookie) {
    FlightCallHeaders headers = new FlightCallHeaders();
    headers.insert("cookie", setCookie.split(";")[0]);
    return new HeaderCallOption(headers);
  }

  private static Map<String, String> options(FlightSqlClient client, HeaderCallOption... header) {
    Map<String, String> options = new java.util.TreeMap<>();
    client.getSessionOptions(new GetSessionOptionsRequest(), header).getSessionOptions()
        .forEach((name, value) -> options.put(name, text(value)));
    return options;
  }

  private static String text(SessionOptionValue value) {
    return value.acceptVisitor(new NoOpSessionOptionValueVisitor<String>() {
      @Override
      public String visit(String v) {
        return v;
      }
    });
  }

  private static long count(FlightSqlClient client, String sql) throws Exception {
    return first(client, client.execute(sql));
  }

  private static long first(FlightSqlClient client, FlightInfo info) throws Exception {
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket())) {
      assertTrue(stream.next());
      return ((BigIntVector) stream.getRoot().getVector(0)).get(0);
    }
  }
}
