package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lake metasrv} and {@code lake query} as real processes: DDL, INSERT and SELECT through
 * the Query replica land at the Metasrv; SIGTERM stops both cleanly.
 */
class LakeMetasrvIT {

  @TempDir Path dir;

  @Test
  void aQueryReplicaServesSqlOverTheMetasrv() throws Exception {
    try (LakeProcess metasrv = LakeProcess.listening("metasrv", "--port", "0", "--node-id", "m1",
            "--data-dir", dir.resolve("metasrv").toString());
        LakeProcess query = LakeProcess.listening("query", "--port", "0",
            "--metasrv", "127.0.0.1:" + metasrv.port(),
            "--data-dir", dir.resolve("query").toString())) {
      assertTrue(metasrv.output().stream().anyMatch(l -> l.contains(", leader")),
          metasrv.output().toString());
      try (Connection connection = DriverManager.getConnection(query.jdbcUrl());
          Statement s = connection.createStatement()) {
        s.executeUpdate("CREATE SCHEMA robots");
        s.executeUpdate("CREATE TABLE robots.runs (id BIGINT NOT NULL, robot VARCHAR)");
        assertEquals(2, s.executeUpdate("INSERT INTO robots.runs VALUES (1, 'r1'), (2, 'r2')"));
        try (ResultSet rows = s.executeQuery("SELECT count(*), sum(id) FROM robots.runs")) {
          assertTrue(rows.next());
          assertEquals(2, rows.getLong(1));
          assertEquals(3, rows.getLong(2));
        }
      }
      assertEquals(143, query.terminate(), "exit status of a JVM stopped by SIGTERM");
      assertEquals(143, metasrv.terminate(), "exit status of a JVM stopped by SIGTERM");
      assertTrue(metasrv.output().stream().anyMatch(l -> l.contains("resigning the lease")),
          metasrv.output().toString());
    }
  }
}
