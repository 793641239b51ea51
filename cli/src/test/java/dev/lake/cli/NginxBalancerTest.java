package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.DevCertificates;
import dev.lake.flight.auth.TlsFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration lake writes is one the installed nginx accepts ({@code nginx -t}), and with
 * TLS nginx really re-encrypts to a replica (a real lake server, TLS-only, authenticating), passes
 * the caller's token through, and refuses a replica whose certificate its CA did not sign.
 */
class NginxBalancerTest {

  private static final List<String> UPSTREAMS = List.of("127.0.0.1:40002", "127.0.0.1:40003");

  @TempDir Path run;

  @Test
  void writtenConfigurationPassesNginxOwnCheckWithoutRoot() throws Exception {
    String config = NginxBalancer.config(run, 40_001, UPSTREAMS, Optional.empty());
    assertTrue(config.contains("server 127.0.0.1:40002") && config.contains("server 127.0.0.1:40003"),
        config);
    assertTrue(config.contains("listen 127.0.0.1:40001 http2;"), config);
    assertTrue(config.contains("grpc_pass grpc://lake_query"), config);
    assertFalse(config.contains("ssl"), config);
    check(config);
  }

  @Test
  void tlsConfigurationTerminatesAndReEncryptsVerifyingTheReplicas() throws Exception {
    DevCertificates certificates = DevCertificates.generate(run.resolve("tls"), 1);
    String config = NginxBalancer.config(run, 40_001, UPSTREAMS, Optional.of(new NginxBalancer.Tls(
        certificates.serverCertificate(), certificates.serverKey(), certificates.caCertificate())));
    assertTrue(config.contains("listen 127.0.0.1:40001 ssl http2;"), config);
    assertTrue(config.contains("ssl_certificate " + certificates.serverCertificate() + ";"), config);
    assertTrue(config.contains("grpc_pass grpcs://lake_query"), config);
    assertTrue(config.contains("grpc_ssl_trusted_certificate " + certificates.caCertificate() + ";"),
        config);
    assertTrue(config.contains("grpc_ssl_verify on;"), config);
    check(config);
  }

  @Test
  void tlsBalancerReEncryptsToAReplicaItsCaSignedAndRefusesOneItDidNot() throws Exception {
    ClusterSecurity security = ClusterSecurity.generate(run.resolve("cluster"));
    DevCertificates certificates = security.certificates();
    DevCertificates otherCa = DevCertificates.generate(run.resolve("other"), 1);
    try (DevServer replica = DevServer.start(run.resolve("data"), "127.0.0.1", 0,
            QueryLimits.defaults(), null, null,
            b -> b.authenticator(Authenticator.load(security.principals())).tls(new TlsFiles(
                certificates.serverCertificate(), certificates.serverKey(), null)));
        BufferAllocator allocator = new RootAllocator()) {
      List<String> upstream = List.of("127.0.0.1:" + replica.port());
      Process trusting = startNginx(run.resolve("trusting"), upstream, security.balancerTls());
      Process untrusting = null;
      try {
        int port = portOf(run.resolve("trusting"));
        try (FlightSqlClient admin = client(allocator, port, certificates, security.adminToken())) {
          assertEquals(42L, single(admin, "SELECT 42"), "through nginx, TLS on both hops");
        }
        try (FlightSqlClient anonymous = client(allocator, port, certificates, null)) {
          FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
              () -> single(anonymous, "SELECT 42"));
          assertEquals(FlightStatusCode.UNAUTHENTICATED, e.status().code(),
              "the replica authenticates the caller itself: " + e.getMessage());
        }

        // Same replica, but nginx trusts another CA: the upstream handshake fails, the call too.
        untrusting = startNginx(run.resolve("untrusting"), upstream, new NginxBalancer.Tls(
            certificates.serverCertificate(), certificates.serverKey(), otherCa.caCertificate()));
        try (FlightSqlClient admin = client(allocator, portOf(run.resolve("untrusting")),
            certificates, security.adminToken())) {
          FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
              () -> single(admin, "SELECT 42"));
          assertEquals(FlightStatusCode.UNAVAILABLE, e.status().code(), e.getMessage());
        }
        String errors = Files.readString(run.resolve("untrusting/logs/error.log"));
        assertTrue(errors.contains("upstream SSL certificate verify error"), errors);
      } finally {
        stop(trusting);
        stop(untrusting);
      }
    }
  }

  /** nginx on a free port over {@code upstreams}, once it accepts connections. */
  private Process startNginx(Path runDir, List<String> upstreams, NginxBalancer.Tls tls)
      throws Exception {
    assertTrue(NginxBalancer.binary().isPresent(),
        "nginx is required: apt-get install nginx (.ci/run installs it)");
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Files.createDirectories(runDir);
    Files.writeString(runDir.resolve("port"), Integer.toString(port));
    Process nginx = NginxBalancer.start(runDir, port, upstreams, Optional.of(tls),
        runDir.resolve("nginx.out"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      assertTrue(nginx.isAlive(), () -> "nginx exited: " + read(runDir.resolve("nginx.out")));
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
        return nginx;
      } catch (IOException notYet) {
        assertTrue(System.nanoTime() < deadline, "nginx never listened on " + port);
        Thread.sleep(50);
      }
    }
  }

  private static int portOf(Path runDir) throws IOException {
    return Integer.parseInt(Files.readString(runDir.resolve("port")));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(" + file + " unreadable: " + e + ")";
    }
  }

  private static void stop(Process nginx) throws InterruptedException {
    if (nginx != null) {
      nginx.destroy();
      if (!nginx.waitFor(60, TimeUnit.SECONDS)) {
        nginx.destroyForcibly().waitFor();
      }
    }
  }

  private static FlightSqlClient client(BufferAllocator allocator, int port,
      DevCertificates certificates, String token) throws IOException {
    FlightClient.Builder builder = FlightClient.builder(allocator,
        Location.forGrpcTls("127.0.0.1", port)).trustedCertificates(
        new ByteArrayInputStream(Files.readAllBytes(certificates.caCertificate())));
    if (token != null) {
      builder.intercept(FlightConformanceSuite.bearer(token));
    }
    return new FlightSqlClient(builder.build());
  }

  private static long single(FlightSqlClient client, String sql) throws Exception {
    FlightInfo info = client.execute(sql);
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket())) {
      assertTrue(stream.next());
      return ((Number) stream.getRoot().getVector(0).getObject(0)).longValue();
    }
  }

  private void check(String config) throws Exception {
    Path nginx = NginxBalancer.binary().orElse(null);
    assertTrue(nginx != null, "nginx is required: apt-get install nginx (.ci/run installs it)");
    Files.createDirectories(run.resolve("logs"));
    Files.createDirectories(run.resolve("tmp"));
    Path conf = run.resolve("nginx.conf");
    Files.writeString(conf, config);
    Process check = new ProcessBuilder(nginx.toString(), "-t", "-p", run.toString(), "-e",
        run.resolve("logs/error.log").toString(), "-c", conf.toString())
        .redirectErrorStream(true).start();
    String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, check.waitFor(), output);
    assertTrue(output.contains("test is successful"), output);
  }
}
