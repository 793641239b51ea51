package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.metastore.dynamodb.Dynalite;
import dev.lake.metastore.dynamodb.DynamoDbTables;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code lake metasrv} processes on dynalite and one {@code lake query}: the leader is killed
 * with SIGKILL between two INSERTs; the second waits out the lease on the other replica and lands
 * exactly once.
 */
class LakeMetasrvFailoverIT {

  @TempDir Path dir;

  private LakeProcess metasrv(Dynalite dynalite, String table, String node) throws Exception {
    return LakeProcess.listening("metasrv", "--port", "0", "--node-id", node,
        "--data-dir", dir.resolve(node).toString(),
        "--warehouse", dir.resolve("warehouse").toString(),
        "--metastore", "dynamodb", "--dynamodb-endpoint", dynalite.endpoint().toString(),
        "--dynamodb-table", table, "--dynamodb-region", Dynalite.REGION,
        "--access-key", Dynalite.ACCESS_KEY, "--secret-key", Dynalite.SECRET_KEY);
  }

  @Test
  void writesThroughAQueryReplicaSurviveTheLeadersDeath() throws Exception {
    try (Dynalite dynalite = Dynalite.start()) {
      DynamoDbTables.create(dynalite.settings("lake-failover"));
      try (LakeProcess m1 = metasrv(dynalite, "lake-failover", "m1");
          LakeProcess m2 = metasrv(dynalite, "lake-failover", "m2");
          LakeProcess query = LakeProcess.listening("query", "--port", "0",
              "--metasrv", "127.0.0.1:" + m1.port() + ",127.0.0.1:" + m2.port(),
              "--data-dir", dir.resolve("query").toString())) {
        assertTrue(m1.output().stream().anyMatch(l -> l.contains(", leader")), m1.output()
            .toString());
        assertTrue(m2.output().stream().anyMatch(l -> l.contains(", follower")), m2.output()
            .toString());
        try (Connection connection = DriverManager.getConnection(query.jdbcUrl());
            Statement s = connection.createStatement()) {
          s.executeUpdate("CREATE SCHEMA robots");
          s.executeUpdate("CREATE TABLE robots.runs (id BIGINT NOT NULL)");
          assertEquals(1, s.executeUpdate("INSERT INTO robots.runs VALUES (1)"));
          m1.close();
          assertEquals(1, s.executeUpdate("INSERT INTO robots.runs VALUES (2)"));
          try (ResultSet rows = s.executeQuery("SELECT count(*), sum(id) FROM robots.runs")) {
            assertTrue(rows.next());
            assertEquals(2, rows.getLong(1));
            assertEquals(3, rows.getLong(2));
          }
        }
      }
    }
  }
}
