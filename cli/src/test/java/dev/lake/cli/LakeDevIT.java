package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lake dev} started as a user starts it (the packaged jar, a real process), queried with
 * the stock Arrow Flight SQL JDBC driver. Expected answers are computed here from the same
 * generator that fills the demo table.
 */
class LakeDevIT {

  @TempDir static Path dataDir;
  static LakeProcess lake;
  static List<Episode> episodes;

  record Episode(long id, String robot, String task, boolean success, int steps, double duration,
      BigDecimal reward) {}

  @BeforeAll
  static void start() throws Exception {
    lake = LakeProcess.dev(dataDir);
    episodes = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = DemoEpisodes.generate(allocator)) {
      for (int i = 0; i < root.getRowCount(); i++) {
        DecimalVector reward = (DecimalVector) root.getVector("reward");
        episodes.add(new Episode(
            ((BigIntVector) root.getVector("episode_id")).get(i),
            ((VarCharVector) root.getVector("robot")).getObject(i).toString(),
            ((VarCharVector) root.getVector("task")).getObject(i).toString(),
            ((BitVector) root.getVector("success")).get(i) == 1,
            ((IntVector) root.getVector("steps")).get(i),
            ((Float8Vector) root.getVector("duration_s")).get(i),
            reward.isNull(i) ? null : reward.getObject(i)));
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    lake.close();
  }

  @Test
  void printsTheJdbcUrlAndCreatesTheDemoTable() {
    assertTrue(lake.output().stream().anyMatch(l -> l.contains("JDBC URL " + lake.jdbcUrl())),
        lake.output().toString());
    assertTrue(lake.output().stream().anyMatch(l -> l.contains("created demo.episodes")));
  }

  @Test
  void filtersMatchTheGeneratedRows() throws Exception {
    long expected = episodes.stream()
        .filter(e -> e.success() && e.robot().equals("spot-07") && e.steps() > 500).count();
    try (Connection c = DriverManager.getConnection(lake.jdbcUrl());
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT episode_id, steps FROM demo.episodes"
            + " WHERE success AND robot = 'spot-07' AND steps > 500")) {
      long rows = 0;
      while (r.next()) {
        assertTrue(r.getInt("steps") > 500);
        rows++;
      }
      assertEquals(expected, rows);
    }
  }

  @Test
  void aggregatesPerRobotMatchTheGeneratedRows() throws Exception {
    Map<String, long[]> expected = new TreeMap<>();
    Map<String, Set<String>> tasks = new TreeMap<>();
    for (Episode e : episodes) {
      long[] agg = expected.computeIfAbsent(e.robot(), k -> new long[] {0, 0, Long.MAX_VALUE, 0});
      agg[0]++;
      agg[1] += e.steps();
      agg[2] = Math.min(agg[2], e.steps());
      agg[3] += e.success() ? 1 : 0;
      tasks.computeIfAbsent(e.robot(), k -> new HashSet<>()).add(e.task());
    }
    try (Connection c = DriverManager.getConnection(lake.jdbcUrl());
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT robot, count(*) AS n, sum(steps) AS total_steps,"
            + " min(steps) AS fewest, avg(steps) AS mean_steps,"
            + " count(DISTINCT task) AS tasks, sum(CASE WHEN success THEN 1 ELSE 0 END) AS wins"
            + " FROM demo.episodes GROUP BY robot ORDER BY robot")) {
      List<String> robots = new ArrayList<>();
      while (r.next()) {
        String robot = r.getString("robot");
        robots.add(robot);
        long[] agg = expected.get(robot);
        assertEquals(agg[0], r.getLong("n"), robot);
        assertEquals(agg[1], r.getLong("total_steps"), robot);
        assertEquals(agg[2], r.getLong("fewest"), robot);
        assertEquals((double) agg[1] / agg[0], r.getDouble("mean_steps"), 1e-9, robot);
        assertEquals(tasks.get(robot).size(), r.getLong("tasks"), robot);
        assertEquals(agg[3], r.getLong("wins"), robot);
      }
      assertEquals(List.copyOf(expected.keySet()), robots);
    }
  }

  @Test
  void orderByWithLimitReturnsTheTopRows() throws Exception {
    List<Episode> sorted = new ArrayList<>(episodes);
    sorted.sort((a, b) -> a.duration() != b.duration()
        ? Double.compare(b.duration(), a.duration()) : Long.compare(a.id(), b.id()));
    try (Connection c = DriverManager.getConnection(lake.jdbcUrl());
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT episode_id, duration_s, reward FROM demo.episodes"
            + " ORDER BY duration_s DESC, episode_id LIMIT 5")) {
      for (int i = 0; i < 5; i++) {
        assertTrue(r.next());
        assertEquals(sorted.get(i).id(), r.getLong("episode_id"));
        assertEquals(sorted.get(i).duration(), r.getDouble("duration_s"));
        BigDecimal reward = r.getBigDecimal("reward");
        if (sorted.get(i).reward() == null) {
          assertTrue(r.wasNull());
        } else {
          assertEquals(0, sorted.get(i).reward().compareTo(reward));
        }
      }
      assertFalse(r.next());
    }
  }

  @Test
  void databaseMetaDataDescribesTheDemoTable() throws Exception {
    try (Connection c = DriverManager.getConnection(lake.jdbcUrl())) {
      DatabaseMetaData meta = c.getMetaData();
      try (ResultSet r = meta.getCatalogs()) {
        assertTrue(r.next());
        assertEquals("lake", r.getString("TABLE_CAT"));
      }
      List<String> schemas = new ArrayList<>();
      try (ResultSet r = meta.getSchemas()) {
        while (r.next()) {
          schemas.add(r.getString("TABLE_SCHEM"));
        }
      }
      assertTrue(schemas.contains("demo"), schemas.toString());
      try (ResultSet r = meta.getTables("lake", "demo", "%", null)) {
        assertTrue(r.next());
        assertEquals("episodes", r.getString("TABLE_NAME"));
        assertEquals("TABLE", r.getString("TABLE_TYPE"));
        assertFalse(r.next());
      }
      List<String> columns = new ArrayList<>();
      List<Integer> types = new ArrayList<>();
      try (ResultSet r = meta.getColumns("lake", "demo", "episodes", "%")) {
        while (r.next()) {
          columns.add(r.getString("COLUMN_NAME"));
          types.add(r.getInt("DATA_TYPE"));
        }
      }
      assertEquals(List.of("episode_id", "robot", "task", "success", "steps", "duration_s",
          "reward", "started_at", "day"), columns);
      assertEquals(List.of(java.sql.Types.BIGINT, java.sql.Types.VARCHAR, java.sql.Types.VARCHAR,
          java.sql.Types.BOOLEAN, java.sql.Types.INTEGER, java.sql.Types.DOUBLE,
          java.sql.Types.DECIMAL, java.sql.Types.TIMESTAMP_WITH_TIMEZONE, java.sql.Types.DATE),
          types);
    }
  }
}
