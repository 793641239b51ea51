package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.Secrets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.client.ClientCookieMiddleware;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication and grants over the stock FlightSqlClient, FlightClient handshakes and the
 * Flight SQL JDBC driver: tokens from a principals file, basic-auth handshakes, namespace grants
 * on SQL, ingest and discovery. (Arrow's FlightStatusCode calls gRPC's PERMISSION_DENIED
 * {@code UNAUTHORIZED}.)
 */
@SuppressWarnings("try")
class FlightAuthTest {

  static final String ADMIN_TOKEN = Secrets.newToken();
  static final String READER_TOKEN = Secrets.newToken();
  static final String WRITER_TOKEN = Secrets.newToken();
  static final String READER_PASSWORD = "reader pass: wörd";

  @TempDir Path directory;
  private LakeServerFixture lake;
  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());

  @BeforeEach
  void start() throws Exception {
    Path principals = writePrincipals(directory.resolve("principals.json"));
    Clock clock = new Clock() {
      @Override
      public ZoneOffset getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return now.get();
      }
    };
    lake = new LakeServerFixture(directory,
        LakeFlightServer.builder().authenticator(Authenticator.load(principals, clock)));
    lake.registry.create(TableIdent.of("demo", "episodes"), IngestData.EPISODES, "log");
    lake.registry.create(TableIdent.of("lab", "runs"), IngestData.EPISODES, "log");
    lake.registry.create(TableIdent.of("secret", "keys"), IngestData.EPISODES, "log");
  }

  /** admin (ADMIN, *), reader (READER of demo, token and password), writer (WRITER of lab). */
  static Path writePrincipals(Path file) throws Exception {
    Files.writeString(file, """
        {"handshake_token_ttl_seconds": 60,
         "principals": [
          {"name": "admin", "tenant": "ops", "role": "ADMIN", "namespaces": ["*"],
           "token_sha256": "%s"},
          {"name": "reader", "tenant": "t1", "role": "reader", "namespaces": ["demo"],
           "token_sha256": ["%s"], "password": "%s"},
          {"name": "writer", "tenant": "t2", "role": "WRITER", "namespaces": ["lab"],
           "token_sha256": ["%s"]}]}
        """.formatted(Secrets.tokenHash(ADMIN_TOKEN), Secrets.tokenHash(READER_TOKEN),
        Secrets.passwordHash(READER_PASSWORD, 2_000), Secrets.tokenHash(WRITER_TOKEN)));
    return file;
  }

  @AfterEach
  void stop() throws Exception {
    lake.close();
  }

  static CallOption bearer(String token) {
    return new CredentialCallOption(new BearerCredentialWriter(token));
  }

  static long count(FlightSqlClient client, String sql, CallOption... options) throws Exception {
    long rows = 0;
    try (FlightStream stream = client.getStream(
        client.execute(sql, options).getEndpoints().get(0).getTicket(), options)) {
      while (stream.next()) {
        rows += stream.getRoot().getRowCount();
      }
    }
    return rows;
  }

  static FlightRuntimeException refused(FlightStatusCode code, Executable call) {
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, call);
    assertEquals(code, e.status().code(), e.getMessage());
    return e;
  }

  @Test
  void callWithoutTokenIsUnauthenticated() {
    FlightSqlClient client = lake.client();
    FlightRuntimeException e = refused(FlightStatusCode.UNAUTHENTICATED,
        () -> client.execute("SELECT 1"));
    assertTrue(e.getMessage().contains("no credentials"), e.getMessage());
    refused(FlightStatusCode.UNAUTHENTICATED, () -> client.getSchemas(null, null));
  }

  @Test
  void wrongOrMalformedTokenIsUnauthenticatedAndNotQuoted() {
    FlightSqlClient client = lake.client();
    String wrong = Secrets.newToken();
    FlightRuntimeException e = refused(FlightStatusCode.UNAUTHENTICATED,
        () -> client.execute("SELECT 1", bearer(wrong)));
    assertFalse(e.getMessage().contains(wrong), e.getMessage());
    refused(FlightStatusCode.UNAUTHENTICATED,
        () -> client.execute("SELECT 1", bearer("lkh1.garbage.garbage")));
    refused(FlightStatusCode.UNAUTHENTICATED, () -> client.execute("SELECT 1", bearer("")));
  }

  @Test
  void bearerTokenRunsQueriesInGrantedNamespaces() throws Exception {
    FlightSqlClient client = lake.client();
    assertEquals(0, count(client, "SELECT * FROM demo.episodes", bearer(READER_TOKEN)));
    assertEquals(0, count(client, "SELECT * FROM secret.keys", bearer(ADMIN_TOKEN)));
  }

  @Test
  void queryOutsideGrantsIsPermissionDeniedNamingTheTable() throws Exception {
    FlightSqlClient client = lake.client();
    FlightRuntimeException e = refused(FlightStatusCode.UNAUTHORIZED,
        () -> client.execute("SELECT e.id FROM demo.episodes e JOIN secret.keys k ON e.id = k.id",
            bearer(READER_TOKEN)));
    assertTrue(e.getMessage().contains("secret.keys"), e.getMessage());
    // A prepared statement is checked the same way, and the server is still up afterwards.
    refused(FlightStatusCode.UNAUTHORIZED,
        () -> client.prepare("SELECT * FROM lab.runs", bearer(READER_TOKEN)));
    assertEquals(0, count(client, "SELECT * FROM demo.episodes", bearer(READER_TOKEN)));
  }

  @Test
  void writesNeedWriterRoleAndGrant() throws Exception {
    FlightSqlClient client = lake.client();
    FlightRuntimeException reader = refused(FlightStatusCode.UNAUTHORIZED,
        () -> client.executeUpdate("INSERT INTO demo.episodes SELECT * FROM demo.episodes",
            bearer(READER_TOKEN)));
    assertTrue(reader.getMessage().contains("demo.episodes"), reader.getMessage());
    refused(FlightStatusCode.UNAUTHORIZED, () -> client.executeUpdate(
        "CREATE TABLE demo.mine (id BIGINT)", bearer(READER_TOKEN)));
    refused(FlightStatusCode.UNAUTHORIZED, () -> client.executeUpdate(
        "CREATE TABLE secret.mine (id BIGINT)", bearer(WRITER_TOKEN)));
    FlightRuntimeException schema = refused(FlightStatusCode.UNAUTHORIZED,
        () -> client.executeUpdate("CREATE SCHEMA lab2", bearer(WRITER_TOKEN)));
    assertTrue(schema.getMessage().contains("ADMIN"), schema.getMessage());
    assertFalse(lake.registry.namespaceExists("lab2"));

    client.executeUpdate("CREATE TABLE lab.mine (id BIGINT)", bearer(WRITER_TOKEN));
    assertTrue(lake.catalog.lookup(TableIdent.of("lab", "mine")).isPresent());
    client.executeUpdate("CREATE SCHEMA lab2", bearer(ADMIN_TOKEN));
    assertTrue(lake.registry.namespaceExists("lab2"));
  }

  @Test
  void ingestOutsideGrantsIsPermissionDeniedAndChangesNothing() throws Exception {
    FlightSqlClient client = lake.client();
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 10)) {
      FlightRuntimeException e = refused(FlightStatusCode.UNAUTHORIZED,
          () -> client.executeIngest(rows, IngestData.options("demo", "episodes",
              TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
              TableExistsOption.TABLE_EXISTS_OPTION_APPEND), bearer(READER_TOKEN)));
      assertTrue(e.getMessage().contains("demo.episodes"), e.getMessage());
      assertEquals(10, client.executeIngest(rows, IngestData.options("lab", "runs",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
          TableExistsOption.TABLE_EXISTS_OPTION_APPEND), bearer(WRITER_TOKEN)));
    }
    assertEquals(0, count(client, "SELECT * FROM demo.episodes", bearer(ADMIN_TOKEN)));
    assertEquals(10, count(client, "SELECT * FROM lab.runs", bearer(ADMIN_TOKEN)));
  }

  @Test
  void discoveryShowsOnlyGrantedNamespaces() throws Exception {
    FlightSqlClient client = lake.client();
    assertEquals(List.of(List.of("lake", "demo")), FlightMetadataTest.rows(client,
        client.getSchemas(null, null, bearer(READER_TOKEN)), bearer(READER_TOKEN)));
    assertEquals(List.of(List.of("lake", "demo", "episodes", "TABLE")), FlightMetadataTest.rows(
        client, client.getTables(null, null, null, null, false, bearer(READER_TOKEN)),
        bearer(READER_TOKEN)));
    assertEquals(3, FlightMetadataTest.rows(client,
        client.getSchemas(null, null, bearer(ADMIN_TOKEN)), bearer(ADMIN_TOKEN)).size());
  }

  @Test
  void basicHandshakeAnswersABearerTokenThatExpires() throws Exception {
    try (FlightClient flight = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).build()) {
      Optional<CredentialCallOption> token =
          flight.authenticateBasicToken("reader", READER_PASSWORD);
      assertTrue(token.isPresent());
      FlightSqlClient client = new FlightSqlClient(flight);
      assertEquals(0, count(client, "SELECT * FROM demo.episodes", token.get()));
      refused(FlightStatusCode.UNAUTHORIZED,
          () -> client.execute("SELECT * FROM secret.keys", token.get()));

      now.set(now.get().plus(Duration.ofSeconds(61)));
      FlightRuntimeException expired = refused(FlightStatusCode.UNAUTHENTICATED,
          () -> client.execute("SELECT * FROM demo.episodes", token.get()));
      assertTrue(expired.getMessage().contains("expired"), expired.getMessage());
    }
  }

  @Test
  void basicHandshakeWithWrongPasswordOrUnknownUserIsUnauthenticated() throws Exception {
    try (FlightClient flight = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcInsecure("127.0.0.1", lake.port())).build()) {
      refused(FlightStatusCode.UNAUTHENTICATED,
          () -> flight.authenticateBasicToken("reader", "wrong"));
      refused(FlightStatusCode.UNAUTHENTICATED,
          () -> flight.authenticateBasicToken("nobody", READER_PASSWORD));
      // A principal with a token only has no password to log in with.
      refused(FlightStatusCode.UNAUTHENTICATED, () -> flight.authenticateBasicToken("admin", ""));
    }
  }

  @Test
  void jdbcDriverAuthenticatesWithTokenOrUserAndPassword() throws Exception {
    String base = "jdbc:arrow-flight-sql://127.0.0.1:" + lake.port() + "/?useEncryption=false";
    try (Connection connection = DriverManager.getConnection(base + "&token=" + READER_TOKEN);
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT count(*) FROM demo.episodes")) {
      assertTrue(rs.next());
      assertEquals(0, rs.getLong(1));
    }
    try (Connection connection = DriverManager.getConnection(base + "&user=reader&password="
            + java.net.URLEncoder.encode(READER_PASSWORD, java.nio.charset.StandardCharsets.UTF_8));
        Statement statement = connection.createStatement()) {
      try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM demo.episodes")) {
        assertTrue(rs.next());
      }
      SQLException denied = assertThrows(SQLException.class,
          () -> statement.executeQuery("SELECT * FROM secret.keys"));
      assertTrue(String.valueOf(denied.getMessage()).contains("secret.keys"),
          denied.getMessage());
    }
    assertThrows(SQLException.class, () -> DriverManager.getConnection(base + "&token=nope")
        .createStatement().executeQuery("SELECT 1"));
  }

  @Test
  void nonLoopbackListenerWithoutPrincipalsOrTlsIsRefusedAtStart() throws Exception {
    try (LakeFlightServer server = LakeFlightServer.builder().registry(lake.registry)
        .sqlEngine(new dev.lake.sql.SqlEngine(new CatalogSqlCatalog(lake.registry)))
        .allocator(lake.root).host("0.0.0.0").build()) {
      IllegalStateException e = assertThrows(IllegalStateException.class, server::start);
      assertTrue(e.getMessage().contains("principals file") && e.getMessage().contains("TLS"),
          e.getMessage());
    }
  }

  // ---- the lake_auth cookie ------------------------------------------------------------------

  /** Records the {@code set-cookie} values the server answers. */
  static final class SetCookies implements FlightClientMiddleware.Factory {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public FlightClientMiddleware onCallStarted(CallInfo info) {
      return new FlightClientMiddleware() {
        @Override
        public void onBeforeSendingHeaders(CallHeaders outgoing) {}

        @Override
        public void onHeadersReceived(CallHeaders incoming) {
          Iterable<String> values = incoming.getAll("set-cookie");
          if (values != null) {
            values.forEach(seen::add);
          }
        }

        @Override
        public void onCallCompleted(CallStatus status) {}
      };
    }
  }

  private FlightClient cookieClient(SetCookies seen) {
    return FlightClient.builder(lake.clientAllocator(),
            Location.forGrpcInsecure("127.0.0.1", lake.port()))
        .intercept(new ClientCookieMiddleware.Factory()).intercept(seen).build();
  }

  static CallOption cookie(String value) {
    FlightCallHeaders headers = new FlightCallHeaders();
    headers.insert("cookie", value);
    return new HeaderCallOption(headers);
  }

  @Test
  void aTokenCallAnswersACookieThatAuthenticatesCallsSentWithoutTheHeader() throws Exception {
    SetCookies seen = new SetCookies();
    try (FlightClient flight = cookieClient(seen)) {
      FlightSqlClient client = new FlightSqlClient(flight);
      client.executeUpdate("CREATE TABLE lab.cookies (id BIGINT)", bearer(WRITER_TOKEN));
      assertEquals(1, seen.seen.size(), seen.seen.toString());
      assertTrue(seen.seen.get(0).startsWith(Authenticator.AUTH_COOKIE + "=lkh1."), seen.seen.get(0));
      assertFalse(seen.seen.get(0).contains(WRITER_TOKEN), "the token itself is never sent back");

      // ADBC Java 0.20's bulk ingest: prepare with the header, bind and execute without it.
      try (FlightSqlClient.PreparedStatement insert =
              client.prepare("INSERT INTO lab.cookies (id) VALUES (?)", bearer(WRITER_TOKEN));
          VectorSchemaRoot params = VectorSchemaRoot.create(
              insert.getParameterSchema(), lake.clientAllocator())) {
        ((BigIntVector) params.getVector(0)).setSafe(0, 42);
        params.setRowCount(1);
        insert.setParameters(params);
        assertEquals(1, insert.executeUpdate());
      } // closed without the header too

      assertEquals(1, count(client, "SELECT * FROM lab.cookies"));
      // The cookie's principal keeps its grants.
      refused(FlightStatusCode.UNAUTHORIZED, () -> client.execute("SELECT * FROM secret.keys"));
      assertEquals(1, seen.seen.size(), "a call with a current cookie is not answered another");
    }
  }

  @Test
  void theCookieExpiresAndOnlyTheHeaderRenewsIt() throws Exception {
    SetCookies seen = new SetCookies();
    try (FlightClient flight = cookieClient(seen)) {
      FlightSqlClient client = new FlightSqlClient(flight);
      assertEquals(0, count(client, "SELECT * FROM demo.episodes", bearer(READER_TOKEN)));
      now.set(now.get().plus(Duration.ofSeconds(40)));
      assertEquals(0, count(client, "SELECT * FROM demo.episodes"));
      assertEquals(1, seen.seen.size(), "calls with only the cookie never renew it");

      // Past half its life, a call with the header answers a fresh one.
      assertEquals(0, count(client, "SELECT * FROM demo.episodes", bearer(READER_TOKEN)));
      assertEquals(2, seen.seen.size(), seen.seen.toString());
      now.set(now.get().plus(Duration.ofSeconds(40)));
      assertEquals(0, count(client, "SELECT * FROM demo.episodes"));

      now.set(now.get().plus(Duration.ofSeconds(30)));
      FlightRuntimeException expired = refused(FlightStatusCode.UNAUTHENTICATED,
          () -> client.execute("SELECT * FROM demo.episodes", cookie(lastCookie(seen))));
      assertTrue(expired.getMessage().contains("lake_auth cookie has expired"),
          expired.getMessage());
    }
  }

  @Test
  void alteredForeignOrWronglyPairedCookiesAreUnauthenticated() throws Exception {
    SetCookies seen = new SetCookies();
    try (FlightClient flight = cookieClient(seen)) {
      new FlightSqlClient(flight).execute("SELECT * FROM demo.episodes", bearer(READER_TOKEN));
    }
    String good = lastCookie(seen);
    FlightSqlClient client = lake.client();
    assertEquals(0, count(client, "SELECT * FROM demo.episodes", cookie(good)));

    String value = good.substring(good.indexOf('=') + 1);
    String altered = Authenticator.AUTH_COOKIE + "=" + value.substring(0, value.length() - 2)
        + (value.endsWith("AA") ? "BB" : "AA");
    // Another deployment (no shared handshake_secret: another key) issued this one.
    Authenticator other = Authenticator.load(writePrincipals(directory.resolve("other.json")));
    String foreign = other.sessionCookie(other.bearer(ADMIN_TOKEN), "Bearer " + ADMIN_TOKEN,
        List.of());
    foreign = foreign.substring(0, foreign.indexOf(';'));
    for (String hostile : List.of(altered, foreign,
        Authenticator.AUTH_COOKIE + "=" + ADMIN_TOKEN, Authenticator.AUTH_COOKIE + "=x")) {
      FlightRuntimeException e = refused(FlightStatusCode.UNAUTHENTICATED,
          () -> client.execute("SELECT * FROM secret.keys", cookie(hostile)));
      assertTrue(e.getMessage().contains("lake_auth cookie is not valid"), e.getMessage());
      assertFalse(e.getMessage().contains(hostile.substring(10)), "the cookie is never quoted");
    }
    // A wrong header is refused even beside a good cookie.
    refused(FlightStatusCode.UNAUTHENTICATED, () -> client.execute("SELECT * FROM demo.episodes",
        cookie(good), bearer(Secrets.newToken())));
    // Still up, and the good cookie still works.
    assertEquals(0, count(client, "SELECT * FROM demo.episodes", cookie(good)));
  }

  private static String lastCookie(SetCookies seen) {
    String header = seen.seen.get(seen.seen.size() - 1);
    return header.substring(0, header.indexOf(';'));
  }
}
