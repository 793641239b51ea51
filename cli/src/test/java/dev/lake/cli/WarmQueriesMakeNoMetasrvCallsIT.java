package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code lake query} over a {@code lake metasrv} (RocksDB): once one query has warmed its
 * catalog cache, 10,000 point queries on the table make no call to Metasrv — every table lookup
 * is a cache hit ({@code lake_catalog_authority_calls_total} unchanged, {@code
 * lake_catalog_cache_hits_total} grown by at least one per query). Metasrv's own metrics agree:
 * it received no {@code DoPut}, and no more {@code DoAction} calls than the Query replica's
 * background refreshes ({@code lake_catalog_refreshes_total}) over a window enclosing its own.
 */
class WarmQueriesMakeNoMetasrvCallsIT {

  private static final int QUERIES = 10_000;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String DO_PUT = "method=\"/arrow.flight.protocol.FlightService/DoPut\"";
  private static final String DO_ACTION =
      "method=\"/arrow.flight.protocol.FlightService/DoAction\"";

  @TempDir Path dir;

  @Test
  void tenThousandWarmPointQueriesMakeNoAuthorityCall() throws Exception {
    try (LakeProcess metasrv = LakeProcess.listening("metasrv", "--port", "0", "--node-id", "m1",
            "--data-dir", dir.resolve("metasrv").toString(), "--metrics-port", "0");
        LakeProcess query = LakeProcess.listening("query", "--port", "0",
            "--metasrv", "127.0.0.1:" + metasrv.port(),
            "--data-dir", dir.resolve("query").toString(), "--metrics-port", "0")) {
      URI metrics = metricsUri(query);
      URI metasrvMetrics = metricsUri(metasrv);
      try (Connection connection = DriverManager.getConnection(query.jdbcUrl());
          Statement s = connection.createStatement()) {
        s.executeUpdate("CREATE SCHEMA robots");
        s.executeUpdate("CREATE TABLE robots.arms (id BIGINT NOT NULL, name VARCHAR)");
        assertEquals(3, s.executeUpdate(
            "INSERT INTO robots.arms VALUES (1, 'one'), (2, 'two'), (3, 'three')"));
        assertEquals("two", pointQuery(s, 2));

        String before = scrape(metrics);
        String metasrvBefore = scrape(metasrvMetrics);
        for (int i = 0; i < QUERIES; i++) {
          long id = 1 + i % 3;
          assertEquals(id == 1 ? "one" : id == 2 ? "two" : "three", pointQuery(s, id));
        }
        String metasrvAfter = scrape(metasrvMetrics);
        // The Query replica refreshes one at a time: once one more refresh has completed, every
        // refresh Metasrv answered before its second scrape is counted in `after`.
        double refreshesSeen = counter(scrape(metrics), "lake_catalog_refreshes_total");
        String after = scrape(metrics);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (counter(after, "lake_catalog_refreshes_total") <= refreshesSeen
            && System.nanoTime() < deadline) {
          Thread.sleep(100);
          after = scrape(metrics);
        }

        assertEquals(counter(before, "lake_catalog_authority_calls_total"),
            counter(after, "lake_catalog_authority_calls_total"),
            "warm point queries call Metasrv; before:\n" + before + "\nafter:\n" + after);
        double hits = counter(after, "lake_catalog_cache_hits_total")
            - counter(before, "lake_catalog_cache_hits_total");
        assertTrue(hits >= QUERIES, "cache hits grew by " + hits + " over " + QUERIES
            + " queries");

        assertEquals(0, counter(metasrvAfter, "lake_grpc_calls_total", DO_PUT)
            - counter(metasrvBefore, "lake_grpc_calls_total", DO_PUT),
            "Metasrv received appends during read-only queries:\n" + metasrvAfter);
        double actions = counter(metasrvAfter, "lake_grpc_calls_total", DO_ACTION)
            - counter(metasrvBefore, "lake_grpc_calls_total", DO_ACTION);
        double refreshes = counter(after, "lake_catalog_refreshes_total")
            - counter(before, "lake_catalog_refreshes_total");
        System.out.printf("warm queries: %d, Metasrv DoAction calls %.0f, Query refreshes %.0f%n",
            QUERIES, actions, refreshes);
        assertTrue(actions <= refreshes, "Metasrv answered " + actions + " DoAction calls while the"
            + " Query replica made " + refreshes + " refreshes");
      }
    }
  }

  private static URI metricsUri(LakeProcess process) throws InterruptedException {
    return URI.create("http://127.0.0.1:" + process.awaitLine(
        Pattern.compile("metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics")).group(1)
        + "/metrics");
  }

  private static String pointQuery(Statement s, long id) throws Exception {
    try (ResultSet rows = s.executeQuery("SELECT name FROM robots.arms WHERE id = " + id)) {
      assertTrue(rows.next(), "no row for id " + id);
      String name = rows.getString(1);
      assertTrue(!rows.next(), "two rows for id " + id);
      return name;
    }
  }

  private static String scrape(URI metrics) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(metrics).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), response.body());
    return response.body();
  }

  /** The value of an unlabelled counter (or the sum over its label sets) in Prometheus text. */
  private static double counter(String text, String name) {
    return counter(text, name, "");
  }

  /**
   * The sum of a counter over its label sets containing {@code label}, which must be there (the
   * set-up's CREATE and INSERT made Metasrv count a DoAction and a DoPut before the workload).
   */
  private static double counter(String text, String name, String label) {
    Matcher m = Pattern.compile("(?m)^" + name + "(\\{[^}]*\\})? ([^ \\n]+)").matcher(text);
    double sum = 0;
    boolean found = false;
    while (m.find()) {
      if (m.group(1) == null || m.group(1).contains(label)) {
        sum += Double.parseDouble(m.group(2));
        found = true;
      }
    }
    assertTrue(found, "no " + name + " with " + label + " in:\n" + text);
    return sum;
  }
}
