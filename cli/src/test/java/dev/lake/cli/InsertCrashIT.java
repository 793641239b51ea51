package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILLs a real {@code lake dev} while it runs a large {@code INSERT ... SELECT}. After every
 * kill the restarted server must show the target table at its previous version or at the new one
 * with every row of the statement, never in between, and accept the same INSERT again.
 *
 * <p>The kill point is chosen per round from a seeded random ({@code lake.crash.seed}, rounds
 * {@code lake.crash.rounds}, default 3): either once the statement's data has started to reach
 * the table's directory (its first new file: the engine is writing the version, not yet
 * visible), or after a random delay from sending it (anywhere: planning, reading the source,
 * buffering, writing, committing). Either way the invariant is the same, so no round depends on
 * timing to pass; the seed and the round are in every assertion message.
 */
class InsertCrashIT {

  /** Rows of the source: 2^17, about 13 MB of payload. */
  private static final int DOUBLINGS = 17;
  private static final long SOURCE_ROWS = 1L << DOUBLINGS;
  private static final String INSERT = "INSERT INTO crash.dst SELECT id, payload FROM crash.src";

  @TempDir Path dataDir;

  @Test
  void sigkillDuringInsertSelectLeavesThePreviousOrTheNewVersion() throws Exception {
    int rounds = Integer.getInteger("lake.crash.rounds", 3);
    long seed = Long.getLong("lake.crash.seed", 17L);
    Random random = new Random(seed);
    try (LakeProcess lake = LakeProcess.dev(dataDir)) {
      try (Connection c = DriverManager.getConnection(lake.jdbcUrl());
          Statement s = c.createStatement()) {
        s.executeUpdate("CREATE SCHEMA crash");
        s.executeUpdate("CREATE TABLE crash.src (id BIGINT NOT NULL, payload VARCHAR)");
        s.executeUpdate("CREATE TABLE crash.dst (id BIGINT NOT NULL, payload VARCHAR)");
        s.executeUpdate("INSERT INTO crash.src VALUES (0, '" + "p".repeat(100) + "')");
        for (int d = 0; d < DOUBLINGS; d++) {
          s.executeUpdate("INSERT INTO crash.src SELECT id + " + (1L << d) + ", payload FROM crash.src");
        }
        assertEquals(SOURCE_ROWS, single(s, "SELECT count(*) FROM crash.src"));
      }
      assertEquals(143, lake.terminate());
    }
    long expected = 0;
    long version = 0;
    int killedMidWrite = 0;
    for (int round = 0; round < rounds; round++) {
      String where = "seed " + seed + ", round " + round;
      boolean atFirstFile = random.nextBoolean();
      long delayMillis = random.nextInt(1500);
      try (LakeProcess lake = LakeProcess.dev(dataDir)) {
        Path table = tableDirectory("dst");
        Set<Path> before = files(table);
        CompletableFuture<Long> insert = CompletableFuture.supplyAsync(() -> {
          try (Connection c = DriverManager.getConnection(lake.jdbcUrl());
              Statement s = c.createStatement()) {
            return (long) s.executeUpdate(INSERT);
          } catch (Exception e) {
            return -1L;
          }
        });
        if (atFirstFile) {
          while (!insert.isDone() && files(table).equals(before)) {
            Thread.sleep(1);
          }
          if (!insert.isDone()) {
            killedMidWrite++;
          }
        } else {
          Thread.sleep(delayMillis);
        }
        lake.close(); // SIGKILL
        insert.handle((v, e) -> v).join();
      }
      try (LakeProcess lake = LakeProcess.dev(dataDir);
          Connection c = DriverManager.getConnection(lake.jdbcUrl());
          Statement s = c.createStatement()) {
        long rows = single(s, "SELECT count(*) FROM crash.dst");
        assertTrue(rows == expected || rows == expected + SOURCE_ROWS,
            where + ": " + rows + " rows, expected " + expected + " or " + (expected + SOURCE_ROWS));
        if (rows > expected) {
          version++;
        }
        expected = rows;
        assertEquals(rows, single(s, "SELECT count(*) FROM crash.dst FOR VERSION AS OF " + version), where);
        assertEquals(rows / SOURCE_ROWS * (SOURCE_ROWS * (SOURCE_ROWS - 1) / 2),
            single(s, "SELECT coalesce(sum(id), 0) FROM crash.dst"), where + ": every row exactly once");
        assertEquals(SOURCE_ROWS, s.executeUpdate(INSERT), where + ": the table takes the INSERT again");
        expected += SOURCE_ROWS;
        version++;
        assertEquals(expected, single(s, "SELECT count(*) FROM crash.dst"), where);
        assertEquals(143, lake.terminate());
      }
    }
    assertFalse(rounds >= 4 && killedMidWrite == 0,
        "seed " + seed + ": no round killed the server while the table's version was being written");
  }

  private Path tableDirectory(String table) throws IOException {
    try (Stream<Path> dirs = Files.list(dataDir.resolve("warehouse").resolve("crash"))) {
      return dirs.filter(p -> p.getFileName().toString().startsWith(table + "-")).findFirst()
          .orElseThrow();
    }
  }

  /** The files under {@code directory}; a file vanishing while it is listed (a temporary one renamed into place) counts as one. */
  private static Set<Path> files(Path directory) throws IOException {
    try (Stream<Path> all = Files.walk(directory)) {
      return all.filter(Files::isRegularFile).collect(Collectors.toSet());
    } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException vanished) {
      return Set.of(directory.resolve("(changing)"));
    }
  }

  private static long single(Statement s, String sql) throws Exception {
    try (ResultSet r = s.executeQuery(sql)) {
      assertTrue(r.next(), sql);
      return r.getLong(1);
    }
  }
}
