package dev.lake.bench.metasrv;

import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.UuidV7;
import dev.lake.flight.metasrv.MetasrvClient;
import dev.lake.metastore.dynamodb.DynamoDbMetaStore;
import dev.lake.metastore.dynamodb.DynamoDbTables;
import dev.lake.metastore.dynamodb.Dynalite;
import dev.lake.metastore.lease.LeaseElection;
import dev.lake.metastore.lease.LeaseRecord;
import dev.lake.metastore.lease.LeaseSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;

/**
 * The Metasrv tier on real processes ({@code lake metasrv}, {@code lake query}, {@code lake dev}
 * from the packaged jar), in one run (not JMH; see docs/benchmarks.md "Metasrv"):
 *
 * <ol>
 *   <li><b>Appends</b> of small metadata rows through {@link MetasrvClient} (what a Query replica
 *       forwards an INSERT as), closed loop, {@code --writers} threads each on its own table:
 *       appends/s, p50/p99 of the acknowledged commit, and the mean time the receiving Metasrv
 *       spent on the {@code DoPut} (its {@code lake_grpc_call_seconds}); on RocksDB (one replica:
 *       RocksDB opens in one process only) and on dynalite with one replica, then two (sent to
 *       the leader, and to the follower, which forwards).
 *   <li><b>Failover</b>: two replicas on dynalite; the leader (read from the lease) is killed
 *       with SIGKILL and a client holding both endpoints appends, retrying, until one is
 *       acknowledged; the killed replica is restarted before the next round.
 *   <li><b>Warm point queries</b> through the stock {@link FlightSqlClient}: {@code lake query}
 *       (over the RocksDB Metasrv) and {@code lake dev}, the same table and rows, interleaved in
 *       batches; p50/p99 and the ratio, and the Query replica's Metasrv calls meanwhile.
 * </ol>
 */
public final class MetasrvBench {

  private static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
  private static final String NAMESPACE = "meta";
  private static final String DYNAMO_TABLE = "lake-bench";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String DO_PUT = "/arrow.flight.protocol.FlightService/DoPut";

  record Options(double seconds, double warmup, int rows, int[] writers, int failovers,
      int queries, int batch, int pointRows, String only, Path jar, List<String> jvm,
      Optional<Path> logs, List<String> metasrvFlags) {}

  record AppendRow(String store, int replicas, String sentTo, int writers, double perSecond,
      double p50, double p99, double serverMillis, int appends) {}

  private final Options options;
  private final Path dir;
  private final Path logs;
  private final BufferAllocator allocator = new RootAllocator();
  private final List<AppendRow> appendRows = new ArrayList<>();
  private final AtomicLong nextId = new AtomicLong();
  private double[] failoverMillis = new double[0];
  private double[] leaseMillis = new double[0];
  private Latencies devQueries;
  private Latencies queryQueries;
  private String queryCalls = "";

  private MetasrvBench(Options options, Path dir) {
    this.options = options;
    this.dir = dir;
    this.logs = options.logs.orElse(dir.resolve("logs"));
  }

  public static void main(String[] args) throws Exception {
    Options options = parse(args);
    Path dir = Files.createTempDirectory("lake-metasrv-bench");
    String loadBefore = loadAverage();
    long started = System.nanoTime();
    MetasrvBench bench = new MetasrvBench(options, dir);
    boolean completed = false;
    try {
      if (!options.only.equals("failover")) {
        bench.rocksdb();
      }
      if (!options.only.equals("query")) {
        bench.dynalite();
      }
      bench.print(loadBefore, (System.nanoTime() - started) / 1e9);
      completed = true;
    } finally {
      bench.allocator.close();
      if (completed) {
        deleteTree(dir);
      } else {
        System.out.println("kept " + dir + " (the processes' logs are in logs/)");
      }
    }
  }

  // ---- RocksDB: appends on one replica, then the warm queries over it ---------------------

  private void rocksdb() throws Exception {
    try (Spawned metasrv = Spawned.start(options.jar, logs, "metasrv-rocksdb",
        jvm("metasrv-rocksdb"), metasrvArgs("--node-id", "r1",
            "--data-dir", dir.resolve("rocksdb").toString()))) {
      List<URI> leader = endpoints(metasrv);
      if (!options.only.equals("query")) {
        createTables(leader);
        warmUp(leader);
        appendCells("rocksdb", 1, "leader", leader, metasrv);
      }
      if (!options.only.equals("append")) {
        warmQueries(metasrv);
      }
    }
  }

  // ---- dynalite: one replica, two replicas (leader, follower), failover ----------------------

  private void dynalite() throws Exception {
    try (Dynalite dynalite = Dynalite.start()) {
      DynamoDbTables.create(dynalite.settings(DYNAMO_TABLE));
      int[] ports = {freePort(), freePort()};
      Spawned[] replicas = new Spawned[2];
      try (DynamoDbMetaStore store = DynamoDbMetaStore.open(dynalite.settings(DYNAMO_TABLE));
          LeaseElection observer = new LeaseElection(store, "lease/metasrv",
              LeaseElection.newHolderId("bench"), LeaseSettings.DEFAULT, Clock.systemUTC())) {
        replicas[0] = dynamoReplica(dynalite, 0, ports[0]);
        List<URI> first = endpoints(replicas[0]);
        createTables(first);
        replicas[1] = dynamoReplica(dynalite, 1, ports[1]);
        int lead = leader(observer, -1);
        if (!options.only.equals("failover")) {
          // Both fresh JVMs warm up through the follower (its forwarding, the leader's commit);
          // the one-replica cells come last, after the follower is stopped, so that no cell
          // runs on colder code than another.
          warmUp(endpoints(replicas[1 - lead]));
          appendCells("dynalite", 2, "leader", endpoints(replicas[lead]), replicas[lead]);
          appendCells("dynalite", 2, "follower", endpoints(replicas[1 - lead]),
              replicas[1 - lead]);
          replicas[1 - lead].close();
          appendCells("dynalite", 1, "leader", endpoints(replicas[lead]), replicas[lead]);
          replicas[1 - lead] = options.only.equals("append") ? null
              : dynamoReplica(dynalite, 1 - lead, ports[1 - lead]);
        }
        if (!options.only.equals("append")) {
          failovers(dynalite, observer, replicas, ports);
        }
      } finally {
        for (Spawned replica : replicas) {
          if (replica != null) {
            replica.close();
          }
        }
      }
    }
  }

  private Spawned dynamoReplica(Dynalite dynalite, int index, int port) throws Exception {
    String node = "m" + (index + 1);
    return Spawned.start(options.jar, logs, "metasrv-" + node, jvm("metasrv-" + node),
        metasrvArgs("--port", Integer.toString(port), "--node-id", node,
        "--data-dir", dir.resolve(node).toString(),
        "--warehouse", dir.resolve("warehouse").toString(),
        "--metastore", "dynamodb", "--dynamodb-endpoint", dynalite.endpoint().toString(),
        "--dynamodb-table", DYNAMO_TABLE, "--dynamodb-region", Dynalite.REGION,
        "--access-key", Dynalite.ACCESS_KEY, "--secret-key", Dynalite.SECRET_KEY));
  }

  /** {@code lake metasrv} with a metrics port, {@code --metasrv-workers} and {@code args}. */
  private String[] metasrvArgs(String... args) {
    List<String> all = new ArrayList<>(List.of("metasrv", "--metrics-port", "0"));
    all.addAll(options.metasrvFlags);
    all.addAll(List.of(args));
    return all.toArray(String[]::new);
  }

  /** The index (0, 1) of the replica holding an unexpired lease other than {@code not}. */
  private static int leader(LeaseElection observer, int not) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      Optional<Integer> holder = observer.observe()
          .filter(lease -> lease.expiresAtMillis() > System.currentTimeMillis())
          .map(LeaseRecord::holder)
          .map(h -> h.startsWith("m1@") ? 0 : h.startsWith("m2@") ? 1 : -1)
          .filter(i -> i >= 0 && i != not);
      if (holder.isPresent()) {
        return holder.get();
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("no metasrv leader other than " + not + " within 120 s");
  }

  private void failovers(Dynalite dynalite, LeaseElection observer, Spawned[] replicas,
      int[] ports) throws Exception {
    List<URI> both = new ArrayList<>();
    for (Spawned replica : replicas) {
      both.addAll(endpoints(replica));
    }
    failoverMillis = new double[options.failovers];
    leaseMillis = new double[options.failovers];
    try (MetasrvClient client = MetasrvClient.connect(both, allocator)) {
      for (int round = 0; round < options.failovers; round++) {
        int lead = leader(observer, -1);
        append(client, table(0)); // the client knows the leader, the table is warm
        java.time.Instant killedAt = java.time.Instant.now();
        long killed = System.nanoTime();
        replicas[lead].kill();
        long[] leaseSeen = {0};
        Thread watcher = new Thread(() -> {
          try {
            leader(observer, lead);
            leaseSeen[0] = System.nanoTime();
          } catch (InterruptedException | RuntimeException e) {
            // reported as 0
          }
        }, "lake-bench-lease-watch");
        watcher.start();
        long deadline = killed + Duration.ofSeconds(120).toNanos();
        while (true) {
          try {
            append(client, table(0));
            break;
          } catch (RegistryUnavailableException e) {
            if (System.nanoTime() > deadline) {
              throw e;
            }
          }
        }
        failoverMillis[round] = (System.nanoTime() - killed) / 1e6;
        watcher.join(120_000);
        leaseMillis[round] = leaseSeen[0] == 0 ? Double.NaN : (leaseSeen[0] - killed) / 1e6;
        System.out.printf("failover %d: killed %s at %s, first append after %.0f ms (new lease"
            + " seen after %.0f ms)%n", round + 1, replicas[lead].name, killedAt,
            failoverMillis[round], leaseMillis[round]);
        replicas[lead] = dynamoReplica(dynalite, lead, ports[lead]);
      }
    }
  }

  // ---- appends -------------------------------------------------------------------------------

  private static List<URI> endpoints(Spawned metasrv) {
    return MetasrvClient.endpoints("127.0.0.1:" + metasrv.port());
  }

  private static TableIdent table(int writer) {
    return TableIdent.of(NAMESPACE, "w" + writer);
  }

  private void createTables(List<URI> endpoints) {
    int tables = Arrays.stream(options.writers).max().orElse(1);
    try (MetasrvClient client = MetasrvClient.connect(endpoints, allocator)) {
      client.createNamespace(NAMESPACE);
      for (int w = 0; w < tables; w++) {
        client.create(table(w), SCHEMA, "log");
      }
    }
  }

  private void appendCells(String store, int replicas, String sentTo, List<URI> endpoints,
      Spawned receiver) throws Exception {
    for (int writers : options.writers) {
      try (MetasrvClient client = MetasrvClient.connect(endpoints, allocator)) {
        run(client, writers, options.warmup, null);
        String before = scrape(receiver.metricsUrl());
        Latencies latencies = new Latencies();
        double wall = run(client, writers, options.seconds, latencies);
        String after = scrape(receiver.metricsUrl());
        double count = sum(after, "lake_grpc_call_seconds_count", DO_PUT)
            - sum(before, "lake_grpc_call_seconds_count", DO_PUT);
        double seconds = sum(after, "lake_grpc_call_seconds_sum", DO_PUT)
            - sum(before, "lake_grpc_call_seconds_sum", DO_PUT);
        AppendRow row = new AppendRow(store, replicas, sentTo, writers,
            latencies.count() / wall, latencies.millis(0.50), latencies.millis(0.99),
            count == 0 ? Double.NaN : seconds * 1000 / count, latencies.count());
        appendRows.add(row);
        System.out.printf("appends %s, %d replica(s), to the %s, %d writer(s): %.1f/s, p50 %.2f"
            + " ms, p99 %.2f ms, server %.2f ms (%d appends)%n", store, replicas, sentTo, writers,
            row.perSecond, row.p50, row.p99, row.serverMillis, row.appends);
      }
    }
  }

  /** A fresh process's warm-up: three cells' warm-up time with the most writers. */
  private void warmUp(List<URI> endpoints) throws Exception {
    try (MetasrvClient client = MetasrvClient.connect(endpoints, allocator)) {
      run(client, Arrays.stream(options.writers).max().orElse(1), 3 * options.warmup, null);
    }
  }

  /** {@code writers} threads append back to back for {@code seconds}; returns the wall seconds. */
  private double run(MetasrvClient client, int writers, double seconds, Latencies latencies)
      throws Exception {
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    for (int w = 0; w < writers; w++) {
      TableIdent ident = table(w);
      Thread thread = new Thread(() -> {
        try {
          while (System.nanoTime() < end) {
            long took = append(client, ident);
            if (latencies != null) {
              latencies.add(took);
            }
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      }, "lake-bench-writer-" + w);
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("an append failed", failures.get(0));
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /** One append of {@code --rows} new rows; returns the nanoseconds until it was acknowledged. */
  private long append(MetasrvClient client, TableIdent ident) {
    long first = nextId.getAndAdd(options.rows);
    AppendOperation operation = AppendOperation.of("bench", "lake." + ident, UuidV7.generate(),
        sha256((ident + "/" + first + "+" + options.rows).getBytes(StandardCharsets.UTF_8)));
    try (ArrowReader reader = new OneBatch(allocator, episodes(first, options.rows))) {
      long started = System.nanoTime();
      client.append(ident, Optional.empty(), operation, reader);
      return System.nanoTime() - started;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Metadata rows: an episode id and the URI of its recording. */
  private VectorSchemaRoot episodes(long first, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector ids = (BigIntVector) root.getVector(0);
    VarCharVector uris = (VarCharVector) root.getVector(1);
    for (int row = 0; row < rows; row++) {
      long episode = first + row;
      ids.setSafe(row, episode);
      uris.setSafe(row, new Text("s3://robots/episodes/" + episode + ".mcap"));
    }
    root.setRowCount(rows);
    return root;
  }

  /** A reader of one batch: the rows of {@code root}, which it owns. */
  private static final class OneBatch extends ArrowReader {
    private final VectorSchemaRoot rows;
    private boolean read;

    OneBatch(BufferAllocator allocator, VectorSchemaRoot rows) {
      super(allocator);
      this.rows = rows;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      prepareLoadNextBatch();
      if (read) {
        return false;
      }
      read = true;
      loadRecordBatch(new VectorUnloader(rows).getRecordBatch());
      return true;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {
      rows.close();
    }

    @Override
    protected Schema readSchema() {
      return rows.getSchema();
    }
  }

  // ---- warm queries ------------------------------------------------------------------------

  private void warmQueries(Spawned metasrv) throws Exception {
    try (Spawned query = Spawned.start(options.jar, logs, "query", jvm("query"), "query",
            "--port", "0", "--metasrv", "127.0.0.1:" + metasrv.port(), "--metrics-port", "0",
            "--data-dir", dir.resolve("query").toString());
        Spawned dev = Spawned.start(options.jar, logs, "dev", jvm("dev"), "dev", "--port", "0",
            "--data-dir", dir.resolve("dev").toString());
        FlightSqlClient viaQuery = sqlClient(query.port());
        FlightSqlClient viaDev = sqlClient(dev.port())) {
      for (FlightSqlClient client : List.of(viaQuery, viaDev)) {
        client.executeUpdate("CREATE SCHEMA bench");
        client.executeUpdate("CREATE TABLE bench.points (id BIGINT NOT NULL, name VARCHAR)");
        StringBuilder insert = new StringBuilder("INSERT INTO bench.points VALUES ");
        for (int i = 0; i < options.pointRows; i++) {
          insert.append(i == 0 ? "" : ", ").append('(').append(i).append(", 'p").append(i)
              .append("')");
        }
        client.executeUpdate(insert.toString());
      }
      interleave(viaDev, viaQuery, Math.max(options.batch, options.queries / 5), null, null);
      devQueries = new Latencies();
      queryQueries = new Latencies();
      String before = scrape(query.metricsUrl());
      interleave(viaDev, viaQuery, options.queries, devQueries, queryQueries);
      String after = scrape(query.metricsUrl());
      queryCalls = String.format("the Query replica's lake_catalog_authority_calls_total grew by"
          + " %.0f, lake_catalog_cache_hits_total by %.0f, lake_catalog_refreshes_total by %.0f"
          + " (background generation checks)",
          delta(before, after, "lake_catalog_authority_calls_total"),
          delta(before, after, "lake_catalog_cache_hits_total"),
          delta(before, after, "lake_catalog_refreshes_total"));
    }
  }

  /** {@code queries} point queries on each server, in batches, the order swapped every batch. */
  private void interleave(FlightSqlClient dev, FlightSqlClient query, int queries,
      Latencies devLatencies, Latencies queryLatencies) {
    int done = 0;
    for (int round = 0; done < queries; round++) {
      int n = Math.min(options.batch, queries - done);
      boolean devFirst = round % 2 == 0;
      pointQueries(devFirst ? dev : query, n, devFirst ? devLatencies : queryLatencies);
      pointQueries(devFirst ? query : dev, n, devFirst ? queryLatencies : devLatencies);
      done += n;
    }
  }

  private void pointQueries(FlightSqlClient client, int n, Latencies latencies) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 0; i < n; i++) {
      long id = random.nextLong(options.pointRows);
      long started = System.nanoTime();
      FlightInfo info = client.execute("SELECT name FROM bench.points WHERE id = " + id);
      long rows = 0;
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream stream = client.getStream(endpoint.getTicket())) {
          while (stream.next()) {
            VectorSchemaRoot root = stream.getRoot();
            if (root.getRowCount() > 0
                && !("p" + id).equals(root.getVector(0).getObject(0).toString())) {
              throw new IllegalStateException("asked for id " + id + ", got "
                  + root.getVector(0).getObject(0));
            }
            rows += root.getRowCount();
          }
        } catch (Exception e) {
          throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
      }
      if (rows != 1) {
        throw new IllegalStateException("id " + id + ": expected one row, got " + rows);
      }
      if (latencies != null) {
        latencies.add(System.nanoTime() - started);
      }
    }
  }

  private FlightSqlClient sqlClient(int port) {
    return new FlightSqlClient(FlightClient.builder(allocator,
        Location.forGrpcInsecure("127.0.0.1", port)).build());
  }

  // ---- report -------------------------------------------------------------------------------

  private void print(String loadBefore, double seconds) {
    System.out.printf("%nMetasrv tier, real processes; %.0f s in all, load average %s before,"
        + " %s after, %d cores%n", seconds, loadBefore, loadAverage(),
        Runtime.getRuntime().availableProcessors());
    if (!appendRows.isEmpty()) {
      System.out.printf("%nAppends through MetasrvClient, %d rows each, %.0f s per cell after %.1f"
          + " s warm-up, each writer on its own table%n", options.rows, options.seconds,
          options.warmup);
      System.out.printf("%-9s %-8s %-9s %-7s %10s %8s %8s %10s %8s%n", "store", "replicas",
          "sent to", "writers", "appends/s", "p50 ms", "p99 ms", "server ms", "appends");
      for (AppendRow r : appendRows) {
        System.out.printf("%-9s %-8d %-9s %-7d %10.1f %8.2f %8.2f %10.2f %8d%n", r.store,
            r.replicas, r.sentTo, r.writers, r.perSecond, r.p50, r.p99, r.serverMillis, r.appends);
      }
      System.out.println("(server ms: mean DoPut time at the replica the client sent to, from"
          + " its lake_grpc_call_seconds; at a follower it includes forwarding to the leader)");
    }
    if (failoverMillis.length > 0) {
      System.out.printf("%nFailover, dynalite, 2 replicas, leader killed with SIGKILL, %d"
          + " rounds:%n", failoverMillis.length);
      System.out.printf("  kill -> first acknowledged append: %s ms%n",
          minMedianMax(failoverMillis));
      System.out.printf("  kill -> new lease holder seen:     %s ms%n",
          minMedianMax(leaseMillis));
    }
    if (devQueries != null) {
      System.out.printf("%nWarm point query (SELECT name FROM bench.points WHERE id = <random>,"
          + " %,d rows), FlightSqlClient, %,d each, interleaved in batches of %d:%n",
          options.pointRows, devQueries.count(), options.batch);
      System.out.printf("  lake dev:   p50 %.2f ms, p99 %.2f ms%n", devQueries.millis(0.5),
          devQueries.millis(0.99));
      System.out.printf("  lake query: p50 %.2f ms, p99 %.2f ms%n", queryQueries.millis(0.5),
          queryQueries.millis(0.99));
      System.out.printf("  query/dev:  p50 %.2fx, p99 %.2fx (goal p50 <= 1.10x)%n",
          queryQueries.millis(0.5) / devQueries.millis(0.5),
          queryQueries.millis(0.99) / devQueries.millis(0.99));
      System.out.println("  meanwhile " + queryCalls);
    }
  }

  private static String minMedianMax(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return String.format("min %.0f, median %.0f, max %.0f", sorted[0],
        sorted[(sorted.length - 1) / 2] / 2 + sorted[sorted.length / 2] / 2,
        sorted[sorted.length - 1]);
  }

  // ---- plumbing -----------------------------------------------------------------------------

  /** JVM options of a spawned process: a JFR recording per process with {@code --jfr}. */
  private List<String> jvm(String name) {
    return options.jvm.stream().map(o -> o.replace("{name}", name)).toList();
  }

  private static String scrape(String url) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(url + " answered " + response.statusCode());
    }
    return response.body();
  }

  /** The sum of a meter's samples whose labels contain {@code label} (any, if empty). */
  private static double sum(String text, String name, String label) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)")
        .matcher(text);
    double sum = 0;
    while (m.find()) {
      if (label.isEmpty() || (m.group(1) != null && m.group(1).contains(label))) {
        sum += Double.parseDouble(m.group(2));
      }
    }
    return sum;
  }

  private static double delta(String before, String after, String name) {
    return sum(after, name, "") - sum(before, name, "");
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim().split(" ")[0];
    } catch (IOException e) {
      return "?";
    }
  }

  private static final List<String> FLAGS = List.of("--seconds", "--warmup", "--rows",
      "--writers", "--failovers", "--queries", "--batch", "--point-rows", "--only", "--jfr",
      "--logs", "--metasrv-workers");

  private static Options parse(String[] args) {
    java.util.Map<String, String> given = new java.util.HashMap<>();
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException("every option takes a value: " + String.join(" ", args));
    }
    for (int i = 0; i < args.length; i += 2) {
      if (!FLAGS.contains(args[i])) {
        throw new IllegalArgumentException("unknown option " + args[i] + "; known: "
            + String.join(" ", FLAGS)
            + " (--only append|failover|query, --jfr DIR, --logs DIR, --metasrv-workers N)");
      }
      given.put(args[i], args[i + 1]);
    }
    String only = given.getOrDefault("--only", "");
    if (!List.of("", "append", "failover", "query").contains(only)) {
      throw new IllegalArgumentException("--only is append, failover or query, got " + only);
    }
    int[] writers = Arrays.stream(given.getOrDefault("--writers", "1,4").split(","))
        .mapToInt(Integer::parseInt).toArray();
    int rows = positive(given, "--rows", 10);
    int failovers = positive(given, "--failovers", 3);
    int queries = positive(given, "--queries", 2_000);
    int batch = positive(given, "--batch", 100);
    int pointRows = positive(given, "--point-rows", 1_000);
    if (Arrays.stream(writers).anyMatch(w -> w < 1)) {
      throw new IllegalArgumentException("--writers must be at least 1 each");
    }
    Path repository = Path.of(System.getProperty("lake.repository", "."));
    Path jar = repository.resolve("cli/target/lake-cli.jar").toAbsolutePath();
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing; bench/metasrv builds it");
    }
    return new Options(Double.parseDouble(given.getOrDefault("--seconds", "4")),
        Double.parseDouble(given.getOrDefault("--warmup", "3")), rows, writers, failovers, queries,
        batch, pointRows, only, jar,
        given.containsKey("--jfr") ? jfr(Path.of(given.get("--jfr"))) : List.of(),
        Optional.ofNullable(given.get("--logs")).map(l -> Path.of(l).toAbsolutePath()),
        given.containsKey("--metasrv-workers")
            ? List.of("--worker-threads", Integer.toString(positive(given, "--metasrv-workers", 1)))
            : List.of());
  }

  private static int positive(java.util.Map<String, String> given, String flag, int fallback) {
    int value = given.containsKey(flag) ? Integer.parseInt(given.get(flag)) : fallback;
    if (value < 1) {
      throw new IllegalArgumentException(flag + " must be at least 1, got " + value);
    }
    return value;
  }

  /** A JFR recording per spawned process, {@code <dir>/<process>.jfr}, written when it exits. */
  private static List<String> jfr(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return List.of("-XX:StartFlightRecording=filename=" + dir.toAbsolutePath()
        + "/{name}.jfr,settings=profile");
  }

  private static void deleteTree(Path directory) throws IOException {
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
