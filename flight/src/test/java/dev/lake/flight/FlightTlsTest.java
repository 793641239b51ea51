package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.DevCertificates;
import dev.lake.flight.auth.TlsFiles;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS and mutual TLS with certificates from a throw-away CA, over stock clients. */
@SuppressWarnings("try")
class FlightTlsTest {

  @TempDir Path directory;
  private LakeServerFixture lake;

  @AfterEach
  void stop() throws Exception {
    if (lake != null) {
      lake.close();
    }
  }

  private DevCertificates start(boolean mutual) throws Exception {
    DevCertificates certificates = DevCertificates.generate(directory.resolve("tls"), 2);
    Path principals = FlightAuthTest.writePrincipals(directory.resolve("principals.json"));
    lake = new LakeServerFixture(directory, LakeFlightServer.builder()
        .authenticator(Authenticator.load(principals))
        .tls(new TlsFiles(certificates.serverCertificate(), certificates.serverKey(),
            mutual ? certificates.caCertificate() : null)));
    lake.registry.create(TableIdent.of("demo", "episodes"), IngestData.EPISODES, "log");
    return certificates;
  }

  private FlightClient.Builder client(DevCertificates certificates) throws Exception {
    FlightClient.Builder builder = FlightClient.builder(lake.clientAllocator(),
        Location.forGrpcTls("localhost", lake.port()));
    if (certificates != null) {
      builder.trustedCertificates(
          new java.io.ByteArrayInputStream(Files.readAllBytes(certificates.caCertificate())));
    }
    return builder;
  }

  @Test
  void jdbcDriverAndFlightSqlClientQueryOverTlsWithTrustedCa() throws Exception {
    DevCertificates certificates = start(false);
    String url = "jdbc:arrow-flight-sql://localhost:" + lake.port()
        + "/?useEncryption=true&tlsRootCerts=" + certificates.caCertificate()
        + "&token=" + FlightAuthTest.READER_TOKEN;
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT count(*) FROM demo.episodes")) {
      assertTrue(rs.next());
      assertEquals(0, rs.getLong(1));
    }
    try (FlightSqlClient client = new FlightSqlClient(client(certificates).build())) {
      assertEquals(0, FlightAuthTest.count(client, "SELECT * FROM demo.episodes",
          FlightAuthTest.bearer(FlightAuthTest.READER_TOKEN)));
    }
  }

  @Test
  void clientThatDoesNotTrustTheCertificateFailsTheHandshake() throws Exception {
    start(false);
    // No trusted certificates given: the JDK's default trust store, which lacks our CA.
    try (FlightSqlClient client = new FlightSqlClient(client(null).build())) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> client.execute("SELECT 1", FlightAuthTest.bearer(FlightAuthTest.READER_TOKEN)));
      assertEquals(FlightStatusCode.UNAVAILABLE, e.status().code(), e.getMessage());
    }
    String url = "jdbc:arrow-flight-sql://localhost:" + lake.port()
        + "/?useEncryption=true&token=" + FlightAuthTest.READER_TOKEN;
    assertThrows(SQLException.class, () -> DriverManager.getConnection(url)
        .createStatement().executeQuery("SELECT 1"));
  }

  @Test
  void mutualTlsRefusesAClientWithoutCertificateAndServesOneWithIt() throws Exception {
    DevCertificates certificates = start(true);
    try (FlightSqlClient client = new FlightSqlClient(client(certificates).build())) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> client.execute("SELECT 1", FlightAuthTest.bearer(FlightAuthTest.READER_TOKEN)));
      assertEquals(FlightStatusCode.UNAVAILABLE, e.status().code(), e.getMessage());
    }
    try (InputStream cert = Files.newInputStream(certificates.clientCertificate());
        InputStream key = Files.newInputStream(certificates.clientKey());
        FlightSqlClient client = new FlightSqlClient(
            client(certificates).clientCertificate(cert, key).build())) {
      assertEquals(0, FlightAuthTest.count(client, "SELECT * FROM demo.episodes",
          FlightAuthTest.bearer(FlightAuthTest.READER_TOKEN)));
    }
  }
}
