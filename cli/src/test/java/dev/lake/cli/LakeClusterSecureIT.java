package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lake cluster --secure}: TLS-only endpoint (nginx, re-encrypting to the replicas), the admin and tenant tokens from cluster.json
 * over the stock JDBC driver, writes through Query to the Metasrv tier (service token, TLS, the
 * end principal re-checked there), and refusals for no token, a plaintext client and a tenant
 * outside its grant.
 */
class LakeClusterSecureIT {

  @TempDir Path dataDir;

  @Test
  void secureClusterServesTokensOverTlsOnlyAndEnforcesGrants() throws Exception {
    try (LakeProcess cluster = LakeProcess.start("cluster", "--secure", "--data-dir",
        dataDir.toString(), "--queries", "1", "--metasrvs", "2")) {
      cluster.awaitLine(Pattern.compile("lake cluster: ready"));
      JsonNode file = new ObjectMapper().readTree(dataDir.resolve("cluster.json").toFile());
      String ca = file.path("tls_ca").asText();
      assertTrue(Files.isRegularFile(Path.of(ca)), file.toString());
      String admin = file.path("tokens").path("admin").asText();
      String tenant = file.path("tokens").path("tenant").asText();
      String endpoint = file.path("endpoint").asText();
      assertTrue(endpoint.startsWith("grpc+tls://127.0.0.1:"), endpoint);
      String address = endpoint.substring("grpc+tls://".length());
      int balancer = -1;
      for (JsonNode process : file.path("processes")) {
        if (process.path("role").asText().equals("balancer")) {
          balancer = process.path("port").asInt();
        }
      }
      assertEquals("127.0.0.1:" + balancer, address, "nginx terminates TLS: " + file);
      String tls = "jdbc:arrow-flight-sql://" + address + "/?useEncryption=true&tlsRootCerts="
          + ca + "&token=";

      update(tls + admin, "CREATE SCHEMA " + ClusterSecurity.TENANT_NAMESPACE);
      update(tls + admin, "CREATE SCHEMA other");
      update(tls + tenant, "CREATE TABLE tenant_a.runs (id BIGINT NOT NULL)");
      assertEquals(2, update(tls + tenant, "INSERT INTO tenant_a.runs VALUES (1), (2)"));
      try (Connection connection = DriverManager.getConnection(tls + tenant);
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT count(*) FROM tenant_a.runs")) {
        assertTrue(rows.next());
        assertEquals(2, rows.getLong(1));
      }
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      int code = new CommandLine(new Lake())
          .setOut(new java.io.PrintWriter(out, true, java.nio.charset.StandardCharsets.UTF_8))
          .execute("sql", "--endpoint", endpoint, "--token", tenant, "--tls-ca", ca,
              "--format", "csv", "SELECT count(*) AS n FROM tenant_a.runs");
      assertEquals(0, code, out.toString(java.nio.charset.StandardCharsets.UTF_8));
      assertTrue(out.toString(java.nio.charset.StandardCharsets.UTF_8).contains("2"),
          out.toString(java.nio.charset.StandardCharsets.UTF_8));
      SQLException outside = assertThrows(SQLException.class,
          () -> update(tls + tenant, "CREATE TABLE other.runs (id BIGINT)"));
      assertTrue(String.valueOf(outside.getMessage()).contains("other.runs"),
          outside.getMessage());
      assertThrows(SQLException.class, () -> update(tls + "wrong", "CREATE SCHEMA x"));
      assertThrows(SQLException.class, () -> update("jdbc:arrow-flight-sql://" + address
          + "/?useEncryption=false&token=" + admin, "CREATE SCHEMA y"));

      assertEquals(0, new CommandLine(new Lake()).execute("cluster", "stop", "--data-dir",
          dataDir.toString()));
      cluster.waitForExit();
    }
  }

  private static int update(String url, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      return statement.executeUpdate(sql);
    }
  }
}
