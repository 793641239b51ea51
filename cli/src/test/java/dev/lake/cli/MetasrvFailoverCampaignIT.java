package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.metastore.dynamodb.DynamoDbMetaStore;
import dev.lake.metastore.dynamodb.DynamoDbTables;
import dev.lake.metastore.dynamodb.Dynalite;
import dev.lake.metastore.lease.LeaseElection;
import dev.lake.metastore.lease.LeaseRecord;
import dev.lake.metastore.lease.LeaseSettings;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failover campaign on real processes: dynalite, two {@code lake metasrv} replicas and two
 * {@code lake query} replicas. Writer threads INSERT rows with unique ids through both Query
 * replicas with the stock Flight SQL JDBC driver while the leading Metasrv is killed with SIGKILL,
 * round after round, each time after a random number of acknowledged inserts; the killed replica
 * is restarted (same flags, same port) before the next round. Afterwards every acknowledged id is
 * in the table exactly once, and no id (acknowledged or failed) is there twice.
 *
 * <p>{@code -Dlake.failover.rounds=N} runs N rounds (default 3).
 */
class MetasrvFailoverCampaignIT {

  private static final String TABLE = "lake-campaign";
  private static final String LEASE_KEY = "lease/metasrv";
  private static final int WRITERS = 4;
  private static final long WAIT_MILLIS = TimeUnit.SECONDS.toMillis(180);

  @TempDir Path dir;

  private final AtomicLong acked = new AtomicLong();
  private final Set<Long> ackedIds = ConcurrentHashMap.newKeySet();
  private final Map<Long, String> failedIds = new ConcurrentHashMap<>();
  private final Map<Long, Long> ackOrder = new ConcurrentHashMap<>();
  private final List<String> kills = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile boolean stop;

  @Test
  void everyAcknowledgedInsertLandsExactlyOnceThroughRepeatedLeaderKills() throws Exception {
    int rounds = Integer.getInteger("lake.failover.rounds", 3);
    try (Dynalite dynalite = Dynalite.start()) {
      DynamoDbTables.create(dynalite.settings(TABLE));
      Map<String, Integer> ports = Map.of("m1", freePort(), "m2", freePort());
      String endpoints = "127.0.0.1:" + ports.get("m1") + ",127.0.0.1:" + ports.get("m2");
      Map<String, LakeProcess> metasrvs = new ConcurrentHashMap<>();
      List<LakeProcess> queries = new ArrayList<>();
      List<Thread> writers = new ArrayList<>();
      try {
        campaign(dynalite, rounds, endpoints, ports, metasrvs, queries, writers);
        // A fresh replica reads the registry from a full snapshot: what Metasrv and the tables
        // hold, whatever the running replicas' views show.
        queries.add(LakeProcess.listening("query", "--port", "0", "--metasrv", endpoints,
            "--data-dir", dir.resolve("query-fresh").toString()));
        verify(queries.get(2), rounds);
        for (LakeProcess q : queries.subList(0, 2)) {
          q.output().stream().filter(l -> l.contains("ERROR") || l.contains("WARN")
                  || l.contains("Exception"))
              .limit(10).forEach(l -> System.out.println("campaign: query " + q.port() + ": " + l));
        }
        // Every replica that ran through the campaign converges too: it sees every acknowledged
        // id, the other replica's included, within its refresh (a generous deadline here).
        for (LakeProcess q : queries.subList(0, 2)) {
          converges(q);
          assertEquals(List.of(), twice(q), "ids present more than once through " + q.port());
        }
      } finally {
        for (LakeProcess q : queries) {
          q.close();
        }
        for (LakeProcess p : metasrvs.values()) {
          p.close();
        }
      }
    }
  }

  /** Starts the cluster, writes, kills and restarts leaders; returns once the writers stopped. */
  private void campaign(Dynalite dynalite, int rounds, String endpoints,
      Map<String, Integer> ports, Map<String, LakeProcess> metasrvs, List<LakeProcess> queries,
      List<Thread> writers) throws Exception {
    try (DynamoDbMetaStore store = DynamoDbMetaStore.open(dynalite.settings(TABLE));
        LeaseElection observer = new LeaseElection(store, LEASE_KEY,
            LeaseElection.newHolderId("campaign"), LeaseSettings.DEFAULT, Clock.systemUTC())) {
      for (String node : List.of("m1", "m2")) {
        metasrvs.put(node, metasrv(dynalite, node, ports.get(node)));
      }
      for (int i = 0; i < 2; i++) {
        queries.add(LakeProcess.listening("query", "--port", "0", "--metasrv", endpoints,
            "--data-dir", dir.resolve("query" + i).toString()));
      }
      try (Connection connection = DriverManager.getConnection(queries.get(0).jdbcUrl());
          Statement s = connection.createStatement()) {
        s.executeUpdate("CREATE SCHEMA robots");
        s.executeUpdate("CREATE TABLE robots.runs (id BIGINT NOT NULL, writer INT NOT NULL)");
      }
      for (int w = 0; w < WRITERS; w++) {
        Thread writer = writer(w, queries.get(w % 2));
        writers.add(writer);
        writer.start();
      }

      for (int round = 1; round <= rounds; round++) {
        long target = acked.get() + ThreadLocalRandom.current().nextInt(5, 60);
        await("round " + round + ": " + target + " acknowledged inserts",
            () -> acked.get() >= target);
        String leader = awaitLeader(observer, null);
        kills.add(leader + " killed at ack " + acked.get());
        metasrvs.get(leader).close(); // SIGKILL, waits for the exit
        String successor = awaitLeader(observer, leader);
        assertTrue(!successor.equals(leader), successor);
        metasrvs.put(leader, metasrv(dynalite, leader, ports.get(leader)));
      }
      long target = acked.get() + 10;
      await(target + " acknowledged inserts after the last round", () -> acked.get() >= target);
    } finally {
      stop = true;
      for (Thread writer : writers) {
        writer.join(WAIT_MILLIS);
      }
    }
    for (Thread writer : writers) {
      assertTrue(!writer.isAlive(), "writer " + writer.getName() + " did not stop");
    }
  }

  /** A writer of ids {@code w * 10^9 + n}, one row per INSERT, until {@link #stop}. */
  private Thread writer(int w, LakeProcess query) {
    Thread thread = new Thread(() -> {
      long next = w * 1_000_000_000L;
      Connection connection = null;
      while (!stop) {
        long id = next++;
        try {
          if (connection == null) {
            connection = DriverManager.getConnection(query.jdbcUrl());
          }
          try (Statement s = connection.createStatement()) {
            assertEquals(1, s.executeUpdate(
                "INSERT INTO robots.runs VALUES (" + id + ", " + w + ")"));
          }
          ackedIds.add(id);
          ackOrder.put(id, acked.incrementAndGet());
        } catch (SQLException e) {
          failedIds.put(id, String.valueOf(e.getMessage()));
          closeQuietly(connection);
          connection = null;
        }
      }
      closeQuietly(connection);
    }, "campaign-writer-" + w);
    thread.setDaemon(true);
    return thread;
  }

  /**
   * Checks the table through {@code query}. A replica reads its own writes at once and the other
   * replica's after its next refresh, so it is first given time to see every acknowledged id.
   */
  private void verify(LakeProcess query, int rounds) throws Exception {
    try (Connection connection = DriverManager.getConnection(query.jdbcUrl());
        Statement s = connection.createStatement()) {
      List<Set<Long>> seen = new ArrayList<>(List.of(Set.of()));
      long deadline = System.currentTimeMillis() + TimeUnit.SECONDS.toMillis(60);
      do {
        seen.set(0, ids(s));
        Thread.sleep(200);
      } while (!seen.get(0).containsAll(ackedIds) && System.currentTimeMillis() < deadline);
      Set<Long> lost = new java.util.TreeSet<>(ackedIds);
      lost.removeAll(seen.get(0));
      assertEquals(Set.of(), lost, "acknowledged ids not visible through query " + query.port()
          + " (writer w owns ids w*10^9.., writers 0,2 use query 0, 1,3 query 1); ack order "
          + lost.stream().map(ackOrder::get).toList() + "; " + kills);
      Set<Long> present = seen.get(0);
      assertEquals(List.of(), twice(query), "ids present more than once");
      try (ResultSet rows = s.executeQuery("SELECT count(*) FROM robots.runs")) {
        assertTrue(rows.next());
        assertEquals(present.size(), rows.getLong(1), "rows but distinct ids");
      }
      Set<Long> unknown = new HashSet<>(present);
      unknown.removeAll(ackedIds);
      unknown.removeAll(failedIds.keySet());
      assertEquals(Set.of(), unknown, "ids no writer sent");
      System.out.printf("campaign: %d rounds, %d acknowledged, %d failed (%d of them present)%n",
          rounds, ackedIds.size(), failedIds.size(),
          failedIds.keySet().stream().filter(present::contains).count());
      failedIds.values().stream().distinct().limit(5)
          .forEach(m -> System.out.println("campaign: a failed insert: " + m));
    }
  }

  /** Waits (generously) until {@code query} shows every acknowledged id; fails naming the missing. */
  private void converges(LakeProcess query) throws Exception {
    try (Connection connection = DriverManager.getConnection(query.jdbcUrl());
        Statement s = connection.createStatement()) {
      Set<Long> seen;
      long deadline = System.currentTimeMillis() + TimeUnit.SECONDS.toMillis(90);
      do {
        seen = ids(s);
        Thread.sleep(200);
      } while (!seen.containsAll(ackedIds) && System.currentTimeMillis() < deadline);
      Set<Long> lost = new java.util.TreeSet<>(ackedIds);
      lost.removeAll(seen);
      assertEquals(Set.of(), lost, "a replica that ran through the campaign never converged:"
          + " acknowledged ids not visible through query " + query.port() + " (writers 0,2 use"
          + " query 0, 1,3 query 1); ack order " + lost.stream().map(ackOrder::get).toList()
          + "; " + kills + "; its log:\n" + String.join("\n", query.output().subList(
              Math.max(0, query.output().size() - 40), query.output().size())));
    }
  }

  private static List<String> twice(LakeProcess query) throws SQLException {
    List<String> twice = new ArrayList<>();
    try (Connection connection = DriverManager.getConnection(query.jdbcUrl());
        Statement s = connection.createStatement();
        ResultSet rows = s.executeQuery(
            "SELECT id, count(*) FROM robots.runs GROUP BY id HAVING count(*) > 1")) {
      while (rows.next()) {
        twice.add(rows.getLong(1) + " x" + rows.getLong(2));
      }
    }
    return twice;
  }

  private static Set<Long> ids(Statement s) {
    Set<Long> ids = new HashSet<>();
    try (ResultSet rows = s.executeQuery("SELECT id FROM robots.runs")) {
      while (rows.next()) {
        ids.add(rows.getLong(1));
      }
    } catch (SQLException e) {
      throw new AssertionError("reading the ids back failed", e);
    }
    return ids;
  }

  private LakeProcess metasrv(Dynalite dynalite, String node, int port) throws Exception {
    return LakeProcess.listening("metasrv", "--host", "127.0.0.1", "--port",
        Integer.toString(port), "--node-id", node,
        "--data-dir", dir.resolve(node).toString(),
        "--warehouse", dir.resolve("warehouse").toString(),
        "--metastore", "dynamodb", "--dynamodb-endpoint", dynalite.endpoint().toString(),
        "--dynamodb-table", TABLE, "--dynamodb-region", Dynalite.REGION,
        "--access-key", Dynalite.ACCESS_KEY, "--secret-key", Dynalite.SECRET_KEY);
  }

  /** The node id holding an unexpired lease, other than {@code not}; waits for one. */
  private String awaitLeader(LeaseElection observer, String not) throws InterruptedException {
    String[] leader = new String[1];
    await("a metasrv leader other than " + not, () -> {
      Optional<String> node = observer.observe()
          .filter(lease -> lease.expiresAtMillis() > System.currentTimeMillis())
          .map(LeaseRecord::holder)
          .map(holder -> holder.substring(0, Math.max(0, holder.indexOf('@'))))
          .filter(id -> !id.equals(not) && (id.equals("m1") || id.equals("m2")));
      node.ifPresent(id -> leader[0] = id);
      return node.isPresent();
    });
    return leader[0];
  }

  private void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.currentTimeMillis() + WAIT_MILLIS;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("waited " + WAIT_MILLIS + " ms for " + what + "; acknowledged "
            + acked.get() + ", failed " + failedIds.size() + ": "
            + failedIds.values().stream().distinct().limit(3).toList());
      }
      Thread.sleep(200);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private static void closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // a broken connection is replaced
      }
    }
  }
}
