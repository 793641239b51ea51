package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator of {@code lake dev} sees: the metrics and health endpoint on its loopback
 * port, JSON log lines that carry no SQL text, and a clean stop on SIGTERM.
 */
class LakeDevOpsIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dataDir;

  @Test
  void servesMetricsAndHealthAndLogsJsonWithoutStatements() throws Exception {
    String secretLiteral = "robot-secret-7731";
    try (LakeProcess lake = LakeProcess.start("dev", "--port", "0", "--data-dir",
        dataDir.toString(), "--metrics-port", "0", "--log-format", "json")) {
      int metricsPort = Integer.parseInt(lake.awaitLine(
          Pattern.compile("metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics")).group(1));
      lake.awaitLine(Pattern.compile("lake dev: ready"));
      try (Connection connection = DriverManager.getConnection(lake.jdbcUrl());
          Statement statement = connection.createStatement()) {
        try (ResultSet rows = statement.executeQuery(
            "SELECT count(*) FROM demo.episodes WHERE robot <> '" + secretLiteral + "'")) {
          assertTrue(rows.next());
        }
        assertThrowsSql(() -> statement.executeQuery(
            "SELECT * FROM demo.no_such_table_" + secretLiteral));
      }

      String base = "http://127.0.0.1:" + metricsPort;
      assertEquals(200, get(base + "/health/ready").statusCode());
      String metrics = get(base + "/metrics").body();
      assertTrue(metrics.contains("lake_grpc_calls_total{method=\"/arrow.flight.protocol"
          + ".FlightService/DoGet\",role=\"dev\",status=\"OK\"}"), metrics);
      assertFalse(metrics.contains(secretLiteral), "metrics carry no statement text");

      assertEquals(143, lake.terminate(), "exit status of a JVM stopped by SIGTERM");
      List<String> logs = lake.output().stream().filter(l -> l.startsWith("{")).toList();
      assertFalse(logs.isEmpty(), lake.output().toString());
      boolean sawListening = false;
      boolean sawStopped = false;
      for (String line : logs) {
        JsonNode event = JSON.readTree(line);
        assertTrue(event.hasNonNull("level") && event.hasNonNull("formattedMessage")
            && event.hasNonNull("timestamp"), line);
        String message = event.get("formattedMessage").asText();
        sawListening |= message.startsWith("lake Flight SQL server listening on 127.0.0.1:");
        sawStopped |= message.equals("lake Flight SQL server stopped");
      }
      assertTrue(sawListening && sawStopped, logs.toString());
      assertFalse(lake.output().stream().anyMatch(l -> l.contains(secretLiteral)),
          "no log line carries statement text: " + lake.output());
    }
  }

  @Test
  void refusesAnUnknownLogFormat() throws Exception {
    try (LakeProcess lake = LakeProcess.start("dev", "--port", "0", "--data-dir",
        dataDir.toString(), "--log-format", "xml")) {
      assertEquals(2, lake.waitForExit());
      assertTrue(lake.output().stream().anyMatch(
          l -> l.contains("--log-format must be text or json, got 'xml'")), lake.output().toString());
    }
  }

  private interface SqlCall {
    void run() throws Exception;
  }

  private static void assertThrowsSql(SqlCall call) {
    try {
      call.run();
    } catch (Exception expected) {
      return;
    }
    throw new AssertionError("expected the statement to fail");
  }

  private static HttpResponse<String> get(String uri) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(uri)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
