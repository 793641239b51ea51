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
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lake metasrv --warehouse s3://bucket/prefix} and a {@code lake query} replica as real
 * processes over an in-process S3Proxy: tables are placed under the prefix, INSERT (log engine), bulk
 * ingest (lance engine) and SELECT through the replica go to and come from the bucket.
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
      assertEquals(5, ingestLance(query.port(), 5));
      try (Connection connection = DriverManager.getConnection(query.jdbcUrl());
          Statement s = connection.createStatement();
          ResultSet rows = s.executeQuery("SELECT count(*), sum(id) FROM robots.lance_runs")) {
        assertTrue(rows.next());
        assertEquals(5, rows.getLong(1));
        assertEquals(10, rows.getLong(2));
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
      for (String table : List.of("runs", "lance_runs")) {
        assertTrue(objects.stream().anyMatch(o -> bucket.relativize(o).toString()
            .matches("wh/lake/robots/" + table + "-[0-9a-f-]{36}/.+")), table + ": " + objects);
      }
      assertFalse(Files.exists(dir.resolve("metasrv").resolve("warehouse")),
          "an s3 warehouse wrote a local warehouse directory");
      assertEquals(143, query.terminate(), "exit status of a JVM stopped by SIGTERM");
      assertEquals(143, metasrv.terminate(), "exit status of a JVM stopped by SIGTERM");
    }
  }

  /** Bulk-ingests ids 0..count-1 into a new {@code lance} table robots.lance_runs. */
  private static long ingestLance(int port, int count) throws Exception {
    Schema schema = new Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client = new FlightSqlClient(FlightClient.builder(allocator,
            Location.forGrpcInsecure("127.0.0.1", port)).build());
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      BigIntVector ids = (BigIntVector) root.getVector("id");
      ids.allocateNew(count);
      for (int i = 0; i < count; i++) {
        ids.set(i, i);
      }
      root.setRowCount(count);
      TableDefinitionOptions options = TableDefinitionOptions.newBuilder()
          .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
          .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_FAIL).build();
      return client.executeIngest(root, new FlightSqlClient.ExecuteIngestOptions("lance_runs",
          options, null, "robots", Map.of("engine", "lance")));
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
