package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lake cluster} as a user runs it: dynalite, two metasrv and two query replicas as real
 * processes. A write through one query replica is read through the other; the leading metasrv
 * killed with SIGKILL is replaced by the other and writes go on; {@code stop} ends every process.
 */
class LakeClusterIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  @Test
  void servesWritesAcrossReplicasAndSurvivesTheLeadersDeath() throws Exception {
    try (LakeProcess cluster = LakeProcess.start("cluster", "--data-dir", dataDir.toString(),
        "--queries", "2")) {
      cluster.awaitLine(Pattern.compile("lake cluster: ready"));
      JsonNode status = status();
      List<JsonNode> queries = byRole(status, "query");
      List<JsonNode> metasrvs = byRole(status, "metasrv");
      assertEquals(2, queries.size(), status.toString());
      assertEquals(2, metasrvs.size(), status.toString());
      assertEquals(1, byRole(status, "metastore").size(), status.toString());
      String first = jdbc(queries.get(0));
      String second = jdbc(queries.get(1));
      JsonNode leader = awaitLeader(null);

      update(first, "CREATE SCHEMA robots");
      update(first, "CREATE TABLE robots.runs (id BIGINT NOT NULL, robot VARCHAR)");
      assertEquals(2, update(first, "INSERT INTO robots.runs VALUES (1, 'r1'), (2, 'r2')"));
      assertEquals(2, awaitCount(second, 2), "the other replica converges");

      ProcessHandle.of(leader.path("pid").asLong()).orElseThrow().destroyForcibly();
      ProcessHandle.of(leader.path("pid").asLong()).ifPresent(h -> h.onExit().join());
      JsonNode successor = awaitLeader(leader.path("name").asText());
      assertFalse(successor.path("name").asText().equals(leader.path("name").asText()));

      insertUntilAccepted(second, "INSERT INTO robots.runs VALUES (3, 'r3')");
      assertEquals(3, awaitCount(first, 3));
      assertEquals(3, awaitCount(second, 3));

      List<Long> pids = new ArrayList<>();
      status().path("processes").forEach(p -> pids.add(p.path("pid").asLong()));
      assertEquals(0, lake("cluster", "stop", "--data-dir", dataDir.toString()));
      for (long pid : pids) {
        ProcessHandle.of(pid).ifPresent(h -> {
          try {
            h.onExit().get(60, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new AssertionError("process " + pid + " still runs after stop", e);
          }
        });
      }
      cluster.waitForExit();
    }
  }

  private JsonNode status() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = new CommandLine(new Lake())
        .setOut(new PrintWriter(out, true, StandardCharsets.UTF_8))
        .execute("cluster", "status", "--data-dir", dataDir.toString(), "--json");
    assertEquals(0, code, out.toString(StandardCharsets.UTF_8));
    return JSON.readTree(out.toByteArray());
  }

  private int lake(String... args) {
    return new CommandLine(new Lake()).execute(args);
  }

  /** The leading metasrv, once one that is not {@code notThis} holds the lease (120 s at most). */
  private JsonNode awaitLeader(String notThis) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    JsonNode status = null;
    while (System.nanoTime() < deadline) {
      status = status();
      for (JsonNode metasrv : byRole(status, "metasrv")) {
        if (metasrv.path("leader").asBoolean() && metasrv.path("alive").asBoolean()
            && !metasrv.path("name").asText().equals(notThis)) {
          return metasrv;
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no metasrv leads: " + status);
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

  private static String jdbc(JsonNode query) {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + query.path("port").asInt()
        + "/?useEncryption=false";
  }

  private static int update(String url, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      return statement.executeUpdate(sql);
    }
  }

  /** Retries while the metasrv tier has no leader yet (UNAVAILABLE), at most 120 s. */
  private static void insertUntilAccepted(String url, String sql) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      try {
        assertEquals(1, update(url, sql));
        return;
      } catch (SQLException e) {
        last = e;
        Thread.sleep(250);
      }
    }
    throw new AssertionError("the insert was never accepted", last);
  }

  /** The row count of robots.runs once it reaches {@code expected} (120 s at most). */
  private static long awaitCount(String url, long expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    long count = -1;
    while (System.nanoTime() < deadline) {
      try (Connection connection = DriverManager.getConnection(url);
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT count(*) FROM robots.runs")) {
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
}
