package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lake.flight.ticket.KeyRing;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lake cluster} with nginx {@code grpc_pass} in front of two query replicas, as real
 * processes: tickets planned through the balancer or on one replica redeem on the other (they
 * share the cluster's key ring), a ticket of another key ring is refused, and clients (the stock
 * JDBC driver and FlightSqlClient) keep getting right answers through the balancer while a
 * replica is killed with SIGKILL, by retrying; the same with {@code --secure} (TLS on both hops
 * of nginx, a bearer token).
 */
class LakeBalancerIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String COUNT = "SELECT count(*) FROM robots.runs";

  @TempDir Path dataDir;
  @TempDir Path otherDir;

  @Test
  void ticketsRedeemOnAnyReplicaAndClientsRecoverThroughTheBalancerWhenOneDies() throws Exception {
    assertTrue(NginxBalancer.binary().isPresent(),
        "nginx is required: apt-get install nginx (.ci/run installs it)");
    try (LakeProcess cluster = LakeProcess.start("cluster", "--data-dir", dataDir.toString(),
            "--queries", "2");
        // Closed before the supervisor is killed: a failing test leaves no member behind.
        AutoCloseable stopMembers = () -> new CommandLine(new Lake()).execute("cluster", "stop",
            "--data-dir", dataDir.toString());
        BufferAllocator allocator = new RootAllocator()) {
      cluster.awaitLine(Pattern.compile("lake cluster: ready"));
      JsonNode status = status();
      int balancer = port(byRole(status, "balancer").getFirst());
      assertEquals("grpc://127.0.0.1:" + balancer, status.path("endpoint").asText(), status.toString());
      List<JsonNode> queries = byRole(status, "query");
      int a = port(queries.get(0));
      int b = port(queries.get(1));

      // DDL on one replica: another one's catalog cache sees a new schema within its refresh
      // interval, not at once, and the balancer may pick either.
      update(jdbc(a), "CREATE SCHEMA robots");
      update(jdbc(a), "CREATE TABLE robots.runs (id BIGINT NOT NULL, robot VARCHAR)");
      assertEquals(3, update(jdbc(a), "INSERT INTO robots.runs VALUES (1, 'r1'), (2, 'r2'), (3, 'r3')"));
      assertEquals(3, awaitCount(jdbc(a), 3));
      assertEquals(3, awaitCount(jdbc(b), 3));

      try (FlightSqlClient viaBalancer = client(allocator, balancer);
          FlightSqlClient onA = client(allocator, a);
          FlightSqlClient onB = client(allocator, b)) {
        FlightInfo planned = viaBalancer.execute(COUNT);
        assertEquals(3, count(onA, planned), "balancer ticket on replica A");
        assertEquals(3, count(onB, planned), "balancer ticket on replica B");
        assertEquals(3, count(viaBalancer, planned), "balancer ticket through the balancer");
        FlightInfo plannedOnA = onA.execute(COUNT);
        assertEquals(3, update(jdbc(balancer), "INSERT INTO robots.runs VALUES (4, 'r4'), (5, 'r5'), (6, 'r6')"));
        assertEquals(6, awaitCount(jdbc(b), 6));
        assertEquals(3, count(onB, plannedOnA), "replica B replays A's snapshot, not the newer one");
        assertEquals(3, count(viaBalancer, plannedOnA));

        // A replica of the same cluster but with another key ring: its tickets are refused.
        Path otherRing = otherDir.resolve("keyring.json");
        KeyRing.generate("k1").write(otherRing);
        String metasrvs = String.join(",", byRole(status, "metasrv").stream()
            .map(m -> "127.0.0.1:" + port(m)).toList());
        try (LakeProcess foreign = LakeProcess.listening("query", "--data-dir", otherDir.toString(),
                "--metasrv", metasrvs, "--key-ring", otherRing.toString(),
                "--audience", ClusterCommand.audience(dataDir.toAbsolutePath().normalize()));
            FlightSqlClient onForeign = client(allocator, foreign.port())) {
          FlightInfo foreignTicket = onForeign.execute(COUNT);
          FlightRuntimeException refused = org.junit.jupiter.api.Assertions.assertThrows(
              FlightRuntimeException.class, () -> count(viaBalancer, foreignTicket));
          assertEquals(FlightStatusCode.UNAUTHENTICATED, refused.status().code(), refused.getMessage());
          FlightRuntimeException back = org.junit.jupiter.api.Assertions.assertThrows(
              FlightRuntimeException.class, () -> count(onForeign, planned));
          assertEquals(FlightStatusCode.UNAUTHENTICATED, back.status().code(), back.getMessage());
        }
        assertEquals(6, count(viaBalancer, viaBalancer.execute(COUNT)), "the cluster still answers");

        killUnderWorkload(jdbc(balancer), viaBalancer, queries.get(0), "plaintext");
      }
      assertEquals(0, new CommandLine(new Lake()).execute("cluster", "stop", "--data-dir",
          dataDir.toString()));
      cluster.waitForExit();
    }
  }

  /**
   * {@code lake cluster --secure}: nginx terminates TLS and re-encrypts to two TLS-only
   * replicas; a ticket planned through it redeems on either replica and is refused to another
   * principal; the stock JDBC driver and FlightSqlClient, each over TLS with the admin token,
   * keep getting right answers through it while a replica is killed with SIGKILL.
   */
  @Test
  void secureClientsRecoverThroughTheTlsBalancerWhenAReplicaDies() throws Exception {
    assertTrue(NginxBalancer.binary().isPresent(),
        "nginx is required: apt-get install nginx (.ci/run installs it)");
    try (LakeProcess cluster = LakeProcess.start("cluster", "--secure", "--data-dir",
            dataDir.toString(), "--queries", "2");
        AutoCloseable stopMembers = () -> new CommandLine(new Lake()).execute("cluster", "stop",
            "--data-dir", dataDir.toString());
        BufferAllocator allocator = new RootAllocator()) {
      cluster.awaitLine(Pattern.compile("lake cluster: ready"));
      JsonNode file = JSON.readTree(dataDir.resolve("cluster.json").toFile());
      int balancer = port(byRole(file, "balancer").getFirst());
      assertEquals("grpc+tls://127.0.0.1:" + balancer, file.path("endpoint").asText(),
          file.toString());
      Path ca = Path.of(file.path("tls_ca").asText());
      String admin = file.path("tokens").path("admin").asText();
      List<JsonNode> queries = byRole(file, "query");
      String jdbcOnA = secureJdbc(port(queries.get(0)), ca, admin);
      update(jdbcOnA, "CREATE SCHEMA robots");
      update(jdbcOnA, "CREATE TABLE robots.runs (id BIGINT NOT NULL, robot VARCHAR)");
      assertEquals(6, update(jdbcOnA, "INSERT INTO robots.runs VALUES (1, 'r1'), (2, 'r2'),"
          + " (3, 'r3'), (4, 'r4'), (5, 'r5'), (6, 'r6')"));
      assertEquals(6, awaitCount(jdbcOnA, 6));
      assertEquals(6, awaitCount(secureJdbc(port(queries.get(1)), ca, admin), 6));
      String tenant = file.path("tokens").path("tenant").asText();
      try (FlightSqlClient viaBalancer = secureClient(allocator, balancer, ca, admin);
          FlightSqlClient onA = secureClient(allocator, port(queries.get(0)), ca, admin);
          FlightSqlClient onB = secureClient(allocator, port(queries.get(1)), ca, admin);
          FlightSqlClient tenantViaBalancer = secureClient(allocator, balancer, ca, tenant)) {
        FlightInfo planned = viaBalancer.execute(COUNT);
        assertEquals(6, count(onA, planned), "balancer ticket on replica A, over TLS");
        assertEquals(6, count(onB, planned), "balancer ticket on replica B, over TLS");
        assertEquals(6, count(viaBalancer, planned), "balancer ticket through the balancer");
        // The admin's ticket is bound to the admin: another principal presenting it is refused
        // (gRPC PERMISSION_DENIED, Arrow Flight's UNAUTHORIZED) by whichever replica gets it.
        FlightRuntimeException stolen = org.junit.jupiter.api.Assertions.assertThrows(
            FlightRuntimeException.class, () -> count(tenantViaBalancer, planned));
        assertEquals(FlightStatusCode.UNAUTHORIZED, stolen.status().code(), stolen.getMessage());
        killUnderWorkload(secureJdbc(balancer, ca, admin), viaBalancer, queries.get(0), "TLS");
      }
      assertEquals(0, new CommandLine(new Lake()).execute("cluster", "stop", "--data-dir",
          dataDir.toString()));
      cluster.waitForExit();
    }
  }

  /**
   * A workload of 60 JDBC and 60 Flight counts through the balancer; {@code replica} is killed
   * with SIGKILL once 20 are done; every count still ends right, retried where it failed.
   */
  private static void killUnderWorkload(String jdbcUrl, FlightSqlClient viaBalancer,
      JsonNode replica, String what) throws Exception {
    AtomicInteger retries = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    CompletableFuture<Void> jdbcClient = CompletableFuture.runAsync(() ->
        jdbcWorkload(jdbcUrl, 60, done, retries));
    CompletableFuture<Void> flightClient = CompletableFuture.runAsync(() ->
        flightWorkload(viaBalancer, 60, done, retries));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (done.get() < 20 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    ProcessHandle killed = ProcessHandle.of(replica.path("pid").asLong()).orElseThrow();
    killed.destroyForcibly();
    killed.onExit().get(60, TimeUnit.SECONDS);
    jdbcClient.get(300, TimeUnit.SECONDS);
    flightClient.get(300, TimeUnit.SECONDS);
    assertEquals(120, done.get());
    System.out.println("LakeBalancerIT: 120 queries through nginx (" + what + "), "
        + retries.get() + " retried after a replica was killed");
    assertEquals(6, count(viaBalancer, viaBalancer.execute(COUNT)));
  }

  /** {@code n} counts over one JDBC connection, each retried (on a new connection) until right. */
  private static void jdbcWorkload(String url, int n, AtomicInteger done, AtomicInteger retries) {
    Connection connection = null;
    try {
      for (int i = 0; i < n; i++) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
          try {
            if (connection == null) {
              connection = DriverManager.getConnection(url);
            }
            try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(COUNT)) {
              assertTrue(rows.next());
              assertEquals(6, rows.getLong(1));
            }
            done.incrementAndGet();
            break;
          } catch (SQLException e) {
            retries.incrementAndGet();
            close(connection);
            connection = null;
            if (System.nanoTime() > deadline) {
              throw new AssertionError("JDBC query " + i + " never succeeded through the balancer", e);
            }
            sleep(100);
          }
        }
      }
    } finally {
      close(connection);
    }
  }

  private static void flightWorkload(FlightSqlClient client, int n, AtomicInteger done,
      AtomicInteger retries) {
    for (int i = 0; i < n; i++) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (true) {
        try {
          assertEquals(6, count(client, client.execute(COUNT)));
          done.incrementAndGet();
          break;
        } catch (FlightRuntimeException e) {
          retries.incrementAndGet();
          if (System.nanoTime() > deadline) {
            throw new AssertionError("Flight query " + i + " never succeeded through the balancer", e);
          }
          sleep(100);
        }
      }
    }
  }

  private static long count(FlightSqlClient client, FlightInfo info) {
    Ticket ticket = info.getEndpoints().getFirst().getTicket();
    try (FlightStream stream = client.getStream(ticket)) {
      long value = -1;
      while (stream.next()) {
        if (stream.getRoot().getRowCount() > 0) {
          value = ((Number) stream.getRoot().getVector(0).getObject(0)).longValue();
        }
      }
      return value;
    } catch (FlightRuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static FlightSqlClient client(BufferAllocator allocator, int port) {
    return new FlightSqlClient(FlightClient.builder(allocator,
        Location.forGrpcInsecure("127.0.0.1", port)).build());
  }

  private JsonNode status() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = new CommandLine(new Lake())
        .setOut(new PrintWriter(out, true, StandardCharsets.UTF_8))
        .execute("cluster", "status", "--data-dir", dataDir.toString(), "--json");
    assertEquals(0, code, out.toString(StandardCharsets.UTF_8));
    return JSON.readTree(out.toByteArray());
  }

  private static List<JsonNode> byRole(JsonNode status, String role) {
    List<JsonNode> members = new ArrayList<>();
    status.path("processes").forEach(p -> {
      if (p.path("role").asText().equals(role)) {
        members.add(p);
      }
    });
    return members;
  }

  private static int port(JsonNode member) {
    return member.path("port").asInt();
  }

  private static String jdbc(int port) {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + port + "/?useEncryption=false";
  }

  private static FlightSqlClient secureClient(BufferAllocator allocator, int port, Path ca,
      String token) throws java.io.IOException {
    return new FlightSqlClient(FlightClient.builder(allocator,
            Location.forGrpcTls("127.0.0.1", port))
        .trustedCertificates(new ByteArrayInputStream(Files.readAllBytes(ca)))
        .intercept(FlightConformanceSuite.bearer(token)).build());
  }

  private static String secureJdbc(int port, Path ca, String token) {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + port + "/?useEncryption=true&tlsRootCerts="
        + ca + "&token=" + token;
  }

  private static int update(String url, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      return statement.executeUpdate(sql);
    }
  }

  private static long awaitCount(String url, long expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    long count = -1;
    while (System.nanoTime() < deadline) {
      try (Connection connection = DriverManager.getConnection(url);
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery(COUNT)) {
        assertTrue(rows.next());
        count = rows.getLong(1);
        if (count == expected) {
          return count;
        }
      } catch (SQLException notYet) {
        // the table may not be in this replica's snapshot yet
      }
      Thread.sleep(200);
    }
    return count;
  }

  private static void close(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // the connection is being replaced
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
