package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.lance.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lake metasrv --warehouse s3://bucket/prefix} and a {@code lake query} replica as real
 * processes over an in-process S3Proxy: tables are placed under the prefix, INSERT and SELECT
 * through the replica go to and come from the bucket.
 */
class LakeMetasrvS3IT {

  @TempDir Path dir;

  @Test
  void tablesArePlacedUnderTheS3PrefixAndServedByAQueryReplica() throws Exception {
    Path blobs = dir.resolve("s3");
    Files.createDirectories(blobs);
    try (S3ProxyServer s3 = new S3ProxyServer(blobs);
        LakeProcess metasrv = LakeProcess.listening("metasrv", "--port", "0", "--node-id", "m1",
            "--data-dir", dir.resolve("metasrv").toString(),
            "--warehouse", "s3://" + S3ProxyServer.BUCKET + "/wh/lake",
            "--s3-endpoint", s3.endpoint(), "--s3-access-key", S3ProxyServer.ACCESS_KEY,
            "--s3-secret-key", S3ProxyServer.SECRET_KEY);
        // the replica takes its credentials from the environment
        LakeProcess query = LakeProcess.start(Map.of(
            "AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY), "query", "--port", "0",
            "--metasrv", "127.0.0.1:" + metasrv.port(), "--s3-endpoint", s3.endpoint(),
            "--data-dir", dir.resolve("query").toString())) {
      query.awaitLine(java.util.regex.Pattern.compile("Flight SQL on"));
      try (Connection connection = DriverManager.getConnection(query.jdbcUrl());
          Statement s = connection.createStatement()) {
        s.executeUpdate("CREATE SCHEMA robots");
        s.executeUpdate("CREATE TABLE robots.runs (id BIGINT NOT NULL, robot VARCHAR)");
        assertEquals(3, s.executeUpdate(
            "INSERT INTO robots.runs VALUES (1, 'r1'), (2, 'r2'), (4, 'r4')"));
        try (ResultSet rows = s.executeQuery("SELECT count(*), sum(id) FROM robots.runs")) {
          assertTrue(rows.next());
          assertEquals(3, rows.getLong(1));
          assertEquals(7, rows.getLong(2));
        }
      }
      Path bucket = blobs.resolve(S3ProxyServer.BUCKET);
      List<Path> objects;
      try (Stream<Path> walk = Files.walk(bucket)) {
        objects = walk.filter(Files::isRegularFile).toList();
      }
      assertFalse(objects.isEmpty(), "no object in the bucket");
      Path tables = bucket.resolve("wh").resolve("lake").resolve("robots");
      assertTrue(objects.stream().allMatch(o -> o.startsWith(tables)),
          "objects outside s3://lake/wh/lake/robots: " + objects);
      assertTrue(objects.stream().anyMatch(o -> bucket.relativize(o).toString()
          .matches("wh/lake/robots/runs-[0-9a-f-]{36}/.+")), objects.toString());
      assertFalse(Files.exists(dir.resolve("metasrv").resolve("warehouse")),
          "an s3 warehouse wrote a local warehouse directory");
      assertEquals(143, query.terminate(), "exit status of a JVM stopped by SIGTERM");
      assertEquals(143, metasrv.terminate(), "exit status of a JVM stopped by SIGTERM");
    }
  }

  @Test
  void aQueryReplicaWithAnEndpointButNoCredentialsIsRefused() throws Exception {
    try (LakeProcess query = LakeProcess.start(Map.of("AWS_ACCESS_KEY_ID", "",
        "AWS_SECRET_ACCESS_KEY", ""), "query", "--metasrv", "127.0.0.1:1",
        "--s3-endpoint", "http://127.0.0.1:1", "--data-dir", dir.resolve("q").toString())) {
      assertEquals(2, query.waitForExit());
      assertTrue(query.output().stream().anyMatch(l -> l.contains("--s3-endpoint")
          && l.contains("needs credentials")), query.output().toString());
      assertFalse(Files.exists(dir.resolve("q")));
    }
  }
}
