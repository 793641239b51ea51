package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lake metasrv --lance-rest-port 0}: the leading Metasrv serves the Lance Namespace REST
 * API over the registry it leads, and a Query replica's SQL sees what it changed.
 */
class LakeMetasrvLanceRestIT {

  private static final Pattern REST = Pattern.compile("lake metasrv: Lance Namespace REST on (http://127\\.0\\.0\\.1:\\d+)$");

  @TempDir Path dir;

  @Test
  void theLeadingMetasrvServesTheLanceRestApiOverItsRegistry() throws Exception {
    try (LakeProcess metasrv = LakeProcess.listening("metasrv", "--port", "0", "--node-id", "m1",
            "--lance-rest-port", "0", "--data-dir", dir.resolve("metasrv").toString());
        LakeProcess query = LakeProcess.listening("query", "--port", "0",
            "--metasrv", "127.0.0.1:" + metasrv.port(), "--data-dir", dir.resolve("query").toString())) {
      Matcher line = metasrv.awaitLine(REST);
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(line.group(1) + "/v1/namespace/robots/create"))
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(201, created.statusCode(), created.body());
      HttpResponse<String> again = http.send(HttpRequest.newBuilder(URI.create(line.group(1) + "/v1/namespace/robots/create"))
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(409, again.statusCode(), again.body());
      try (Connection connection = DriverManager.getConnection(query.jdbcUrl());
          Statement s = connection.createStatement()) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
          try {
            s.executeUpdate("CREATE TABLE robots.runs (id BIGINT) WITH (engine = 'lance')");
            break;
          } catch (java.sql.SQLException notYet) {
            if (System.nanoTime() > deadline) {
              throw notYet;
            }
            Thread.sleep(100); // the namespace reaches the Query replica's cache at its next refresh
          }
        }
        assertEquals(2, s.executeUpdate("INSERT INTO robots.runs VALUES (1), (2)"));
        try (ResultSet rows = s.executeQuery("SELECT count(*) FROM robots.runs")) {
          rows.next();
          assertEquals(2, rows.getLong(1));
        }
      }
      HttpResponse<String> count = http.send(HttpRequest.newBuilder(URI.create(line.group(1) + "/v1/table/robots%24runs/count_rows"))
          .GET().build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, count.statusCode(), count.body());
      assertEquals("2", count.body());
      assertEquals(143, query.terminate(), "exit status of a JVM stopped by SIGTERM");
      assertEquals(143, metasrv.terminate(), "exit status of a JVM stopped by SIGTERM");
    }
  }

  @Test
  void withPrincipalsTheLeadingMetasrvAuthenticatesLanceRestCallers() throws Exception {
    Path principals = dir.resolve("principals.json");
    Files.writeString(principals, "{\"principals\": [{\"name\": \"root\", \"tenant\": \"ops\","
        + " \"role\": \"ADMIN\", \"namespaces\": [\"*\"], \"token_sha256\": \""
        + dev.lake.flight.auth.Secrets.tokenHash("root-token-0123456789") + "\"}]}");
    try (LakeProcess metasrv = LakeProcess.listening("metasrv", "--port", "0", "--node-id", "m1",
        "--lance-rest-port", "0", "--principals", principals.toString(),
        "--data-dir", dir.resolve("metasrv").toString())) {
      String rest = metasrv.awaitLine(REST).group(1);
      HttpClient http = HttpClient.newHttpClient();
      HttpRequest.Builder create = HttpRequest.newBuilder(URI.create(rest + "/v1/namespace/robots/create"))
          .POST(HttpRequest.BodyPublishers.ofString("{}"));
      HttpResponse<String> anonymous = http.send(create.build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(401, anonymous.statusCode(), anonymous.body());
      HttpResponse<String> created = http.send(create.header("x-api-key", "root-token-0123456789").build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(201, created.statusCode(), created.body());
      assertEquals(143, metasrv.terminate(), "exit status of a JVM stopped by SIGTERM");
    }
  }
}
