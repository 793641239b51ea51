package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lake.flight.auth.Secrets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The Flight SQL conformance suite through nginx with TLS on both hops and the admin's bearer
 * token, in front of {@code lake cluster --secure} (one query replica, so DDL is seen by the next
 * statement at once; two metasrv, so writes may cross the follower→leader hop): the stock JDBC
 * driver, ADBC and FlightSqlClient work unmodified. And through nginx the careless and hostile
 * clients: no token, a wrong token, a plaintext client, a client not trusting the CA, a tenant
 * outside its grant; each refused precisely, nothing changed, the cluster still answering.
 */
class SecureBalancerConformanceIT extends FlightConformanceSuite {

  private LakeProcess cluster;
  private Path data;
  private int port;
  private String admin;
  private String tenant;

  @Override
  Endpoint startServer(Path dataDir) throws Exception {
    data = dataDir;
    assertTrue(NginxBalancer.binary().isPresent(),
        "nginx is required: apt-get install nginx (.ci/run installs it)");
    cluster = LakeProcess.start("cluster", "--secure", "--data-dir", dataDir.toString(),
        "--queries", "1", "--metasrvs", "2");
    cluster.awaitLine(Pattern.compile("lake cluster: ready"));
    JsonNode file = new ObjectMapper().readTree(dataDir.resolve("cluster.json").toFile());
    int balancer = -1;
    for (JsonNode process : file.path("processes")) {
      if (process.path("role").asText().equals("balancer")) {
        balancer = process.path("port").asInt();
      }
    }
    String endpoint = "grpc+tls://127.0.0.1:" + balancer;
    assertEquals(endpoint, file.path("endpoint").asText(), "the endpoint is nginx: " + file);
    cluster.awaitLine(Pattern.compile("lake cluster: endpoint " + Pattern.quote(endpoint) + "$"));
    port = balancer;
    admin = file.path("tokens").path("admin").asText();
    tenant = file.path("tokens").path("tenant").asText();
    return new Endpoint(balancer, Path.of(file.path("tls_ca").asText()), admin);
  }

  @Override
  void stopServer() throws Exception {
    if (cluster != null) {
      try {
        Files.write(Path.of("target", "SecureBalancerConformanceIT-cluster.log"), cluster.output());
        assertEquals(0, new CommandLine(new Lake()).execute("cluster", "stop", "--data-dir",
            data.toString()));
        cluster.waitForExit();
      } finally {
        cluster.close();
      }
    }
  }

  @Test
  void callsWithoutOrWithAWrongTokenAreUnauthenticatedThroughNginx() throws Exception {
    String wrong = Secrets.newToken();
    for (String token : new String[] {null, wrong}) {
      try (FlightSqlClient client = new FlightSqlClient(builder(token, false).build())) {
        FlightRuntimeException e = refused(() -> client.execute("SELECT 1"));
        assertEquals(FlightStatusCode.UNAUTHENTICATED, e.status().code(), e.getMessage());
        FlightRuntimeException write = refused(() -> client.executeUpdate("CREATE SCHEMA sneaky"));
        assertEquals(FlightStatusCode.UNAUTHENTICATED, write.status().code(), write.getMessage());
        assertFalse(write.getMessage().contains(wrong), "the token is never quoted");
      }
    }
    String url = "jdbc:arrow-flight-sql://127.0.0.1:" + port + "/?useEncryption=true&tlsRootCerts="
        + data.resolve("secure/tls/ca.pem");
    SQLException none = assertThrows(SQLException.class, () -> update(url, "CREATE SCHEMA sneaky"));
    assertTrue(String.valueOf(none.getMessage()).contains("UNAUTHENTICATED")
        || String.valueOf(none.getCause()).contains("UNAUTHENTICATED"), String.valueOf(none));
    assertThrows(SQLException.class, () -> update(url + "&token=" + wrong, "CREATE SCHEMA sneaky"));
    assertTrue(stream(flight.getSchemas("lake", "sneaky")).isEmpty(), "nothing was created");
    assertAlive();
  }

  @Test
  void aPlaintextClientOrOneNotTrustingTheCaFailsAtTheTlsEndpoint() throws Exception {
    try (FlightSqlClient plaintext = new FlightSqlClient(FlightClient.builder(allocator,
        Location.forGrpcInsecure("127.0.0.1", port)).intercept(bearer(admin)).build())) {
      FlightRuntimeException e = refused(() -> plaintext.execute("SELECT 1"));
      // nginx answers the HTTP/2 preface with an HTTP/1.x 400: the client's HTTP/2 codec fails.
      assertEquals(FlightStatusCode.INTERNAL, e.status().code(), e.getMessage());
      assertTrue(e.getMessage().contains("http2"), e.getMessage());
    }
    try (FlightSqlClient untrusting = new FlightSqlClient(FlightClient.builder(allocator,
        Location.forGrpcTls("127.0.0.1", port)).intercept(bearer(admin)).build())) {
      FlightRuntimeException e = refused(() -> untrusting.execute("SELECT 1"));
      assertEquals(FlightStatusCode.UNAVAILABLE, e.status().code(), e.getMessage());
      boolean handshake = false;
      for (Throwable t = e; t != null; t = t.getCause()) {
        handshake |= t instanceof javax.net.ssl.SSLHandshakeException;
      }
      assertTrue(handshake, "the TLS handshake failed on the unknown CA: " + e);
    }
    SQLException jdbc = assertThrows(SQLException.class, () -> update(
        "jdbc:arrow-flight-sql://127.0.0.1:" + port + "/?useEncryption=false&token=" + admin,
        "CREATE SCHEMA sneaky"));
    assertTrue(String.valueOf(jdbc.getMessage()).contains("http2"), String.valueOf(jdbc));
    assertTrue(stream(flight.getSchemas("lake", "sneaky")).isEmpty(), "nothing was created");
    assertAlive();
  }

  @Test
  void aTenantWorksInsideItsGrantAndIsPermissionDeniedOutsideItThroughNginx() throws Exception {
    flight.executeUpdate("CREATE SCHEMA IF NOT EXISTS " + ClusterSecurity.TENANT_NAMESPACE);
    flight.executeUpdate("CREATE SCHEMA conf_outside");
    flight.executeUpdate("CREATE TABLE conf_outside.secrets (id BIGINT)");
    flight.executeUpdate("INSERT INTO conf_outside.secrets VALUES (1)");
    // gRPC PERMISSION_DENIED is Arrow Flight's UNAUTHORIZED.
    try (FlightSqlClient client = new FlightSqlClient(builder(tenant, false).build())) {
      client.executeUpdate("CREATE TABLE tenant_a.mine (id BIGINT NOT NULL)");
      assertEquals(2, client.executeUpdate("INSERT INTO tenant_a.mine VALUES (1), (2)"));
      FlightRuntimeException read = refused(() -> client.execute(
          "SELECT count(*) FROM conf_outside.secrets"));
      assertEquals(FlightStatusCode.UNAUTHORIZED, read.status().code(), read.getMessage());
      assertTrue(read.getMessage().contains("conf_outside.secrets"), read.getMessage());
      FlightRuntimeException write = refused(() -> client.executeUpdate(
          "INSERT INTO conf_outside.secrets VALUES (2)"));
      assertEquals(FlightStatusCode.UNAUTHORIZED, write.status().code(), write.getMessage());
      FlightRuntimeException create = refused(() -> client.executeUpdate(
          "CREATE TABLE conf_outside.planted (id BIGINT)"));
      assertEquals(FlightStatusCode.UNAUTHORIZED, create.status().code(), create.getMessage());
      assertTrue(create.getMessage().contains("conf_outside.planted"), create.getMessage());
    }
    try (Connection c = DriverManager.getConnection(jdbcUrl().replace(admin, tenant))) {
      SQLException e = assertThrows(SQLException.class,
          () -> c.createStatement().executeQuery("SELECT * FROM conf_outside.secrets"));
      assertTrue(String.valueOf(e.getMessage()).contains("conf_outside.secrets"), e.getMessage());
    }
    assertEquals(2L, single("SELECT count(*) FROM tenant_a.mine"));
    assertEquals(1L, single("SELECT count(*) FROM conf_outside.secrets"));
    List<Object> tables = new ArrayList<>();
    stream(flight.getTables("lake", "conf_outside", "%", null, false))
        .forEach(row -> tables.add(row.get(2)));
    assertEquals(List.of("secrets"), tables, "nothing planted");
    assertAlive();
  }

  private static int update(String url, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url)) {
      return connection.createStatement().executeUpdate(sql);
    }
  }
}
