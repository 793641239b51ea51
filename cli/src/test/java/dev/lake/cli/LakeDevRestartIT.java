package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lake dev} stops cleanly on SIGTERM and, restarted on its data directory, sees everything. */
class LakeDevRestartIT {

  @TempDir Path dataDir;

  private static final Schema SCHEMA =
      new Schema(List.of(Field.notNullable("n", new ArrowType.Int(64, true))));

  @Test
  void restartOnTheSameDataDirSeesEveryTableAndVersion() throws Exception {
    try (LakeProcess lake = LakeProcess.dev(dataDir)) {
      ingest(lake.port(), 0, 1000, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE);
      ingest(lake.port(), 1000, 500, TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL);
      assertEquals(143, lake.terminate(), "exit status of a JVM stopped by SIGTERM");
      assertTrue(lake.output().contains("lake dev: stopping"), lake.output().toString());
    }
    try (LakeProcess lake = LakeProcess.dev(dataDir)) {
      assertFalse(lake.output().stream().anyMatch(l -> l.contains("created demo.episodes")),
          "the demo table must not be re-created on restart: " + lake.output());
      try (Connection c = DriverManager.getConnection(lake.jdbcUrl());
          Statement s = c.createStatement()) {
        assertEquals(1500, single(s, "SELECT count(*) FROM robots.counters"));
        assertEquals(1000, single(s, "SELECT count(*) FROM robots.counters FOR VERSION AS OF 1"));
        assertEquals(1500, single(s, "SELECT count(*) FROM robots.counters FOR VERSION AS OF 2"));
        assertEquals(1499L * 1500 / 2, single(s, "SELECT sum(n) FROM robots.counters"));
        assertEquals(DemoEpisodes.ROWS, single(s, "SELECT count(*) FROM demo.episodes"));
      }
      assertEquals(143, lake.terminate());
    }
  }

  @Test
  void refusesANonLoopbackAddress() throws Exception {
    try (LakeProcess lake = LakeProcess.start("dev", "--host", "0.0.0.0", "--port", "0",
        "--data-dir", dataDir.toString())) {
      assertEquals(1, lake.waitForExit());
      assertTrue(lake.output().stream().anyMatch(l -> l.contains("loopback only")),
          lake.output().toString());
    }
  }

  @Test
  void helpDescribesTheDevCommand() throws Exception {
    try (LakeProcess lake = LakeProcess.start("dev", "--help")) {
      assertEquals(0, lake.waitForExit());
      String out = String.join("\n", lake.output());
      assertTrue(out.contains("--data-dir") && out.contains("--port"), out);
    }
  }

  private static long single(Statement s, String sql) throws Exception {
    try (ResultSet r = s.executeQuery(sql)) {
      assertTrue(r.next());
      long value = r.getLong(1);
      assertFalse(r.next());
      return value;
    }
  }

  private static void ingest(int port, long first, int rows, TableNotExistOption ifMissing)
      throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client = FlightClient.builder(allocator,
            Location.forGrpcInsecure("127.0.0.1", port)).build();
        FlightSqlClient sql = new FlightSqlClient(client);
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      BigIntVector n = (BigIntVector) root.getVector("n");
      n.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        n.set(i, first + i);
      }
      root.setRowCount(rows);
      TableDefinitionOptions options = TableDefinitionOptions.newBuilder()
          .setIfNotExist(ifMissing)
          .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
          .build();
      long written = sql.executeIngest(root,
          new ExecuteIngestOptions("counters", options, null, "robots", Map.of()));
      assertEquals(rows, written);
    }
  }
}
