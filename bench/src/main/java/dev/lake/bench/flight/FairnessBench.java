package dev.lake.bench.flight;

import dev.lake.bench.flight.ClosedLoop.Cell;
import dev.lake.bench.flight.ClosedLoop.Load;
import dev.lake.bench.flight.ClosedLoop.Query;
import dev.lake.catalog.CatalogCache;
import dev.lake.flight.CatalogSqlCatalog;
import dev.lake.flight.LakeFlightServer;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.Secrets;
import dev.lake.sql.SqlEngine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Fairness of the Query tier's admission (issue 20): tenant A floods one lake Flight SQL server
 * with heavy queries while tenant B runs point queries; how much the flood delays B.
 *
 * <p>One process on loopback: lake's registry, a principals file with one token of tenant
 * {@code a} (administrator, loads the data) and one of tenant {@code b} (reader of {@code
 * bench}), and a lake Flight SQL server per admission configuration over that same registry and
 * SQL engine (admission is fixed when a server is built; only one server has load at a time). Data:
 * {@code bench.log}, {@code --rows} rows {@code (id, name, score)} (row {@code i} is {@code (i,
 * 'robot-' + i % 97, i / 4.0)}), and {@code bench.points}, the same for {@code --point-rows}.
 *
 * <p>Tenant A: {@code --heavy-clients} clients, each its own channel and thread, closed loop,
 * {@code SELECT name, count(*), sum(score) FROM bench.log GROUP BY name} (every row read, 97
 * groups). Tenant B: {@code --point-clients} clients, closed loop, {@code SELECT id, name, score
 * FROM bench.points WHERE id = <random>}. Every query is the stock {@code FlightSqlClient}'s
 * {@code GetFlightInfo} with a bearer token, then {@code DoGet} of each endpoint, the stream drained;
 * every result is checked (the 97 groups' counts and sums; the one row asked for).
 *
 * <p>Each round runs, in turn: B alone (the baseline); A alone with one client (the heavy query's
 * own latency, the unit of the bound); A's flood with B at the admission under test ({@code
 * --max-concurrent}, {@code --max-per-tenant}, {@code --max-queued}, {@code --max-wait}, the
 * server's defaults unless given); and A's flood with B with admission effectively off (caps of a
 * million, an hour's wait). A flood runs {@code --warmup} seconds before B's measured window of
 * {@code --seconds} starts. Printed per configuration: B's queries/s, p50/p99/max, each as a ratio
 * to B alone; A's queries/s and p50; refusals ({@code RESOURCE_EXHAUSTED}, A retries); load
 * average.
 *
 * <p>The stated bound: B's p99 under A's flood with admission is at most B's p99 alone plus
 * {@code --bound-turns} (default 2) times the heavy query's p50 alone: admission promises that a
 * flood delays another tenant by at most one turn, and B's query is two calls (planning, then the
 * stream) that may each wait for one heavy query. PASS or FAIL is printed; it is not a test.
 */
public final class FairnessBench {

  private static final String HEAVY =
      "SELECT name, count(*) AS n, sum(score) AS total FROM bench.log GROUP BY name";
  private static final int GROUPS = 97;
  private static final int BATCH_ROWS = 500_000;
  private static final int HUGE = 1_000_000;

  private FairnessBench() {}

  private record Options(double seconds, double warmup, int rounds, int heavyClients,
      int pointClients, long rows, int pointRows, int maxConcurrent, int maxPerTenant,
      int maxQueued, Duration maxWait, int workers, double boundTurns) {}

  /** One admission configuration: its server and label. */
  private record Configuration(String name, LakeFlightServer server) {}

  public static void main(String[] args) throws Exception {
    Options options = parse(args);
    if (options == null) {
      return;
    }
    Path directory = Files.createTempDirectory("lake-fairness-bench");
    List<AutoCloseable> opened = new ArrayList<>();
    BufferAllocator root = new RootAllocator();
    try {
      String tokenA = Secrets.newToken();
      String tokenB = Secrets.newToken();
      Path principals = directory.resolve("principals.json");
      Files.writeString(principals, """
          {"principals": [
            {"name": "trainer-fleet", "tenant": "a", "role": "ADMIN", "namespaces": ["*"],
             "token_sha256": "%s"},
            {"name": "dashboard", "tenant": "b", "role": "READER", "namespaces": ["bench"],
             "token_sha256": "%s"}]}
          """.formatted(Secrets.tokenHash(tokenA), Secrets.tokenHash(tokenB)));
      Authenticator authenticator = Authenticator.load(principals);
      CatalogCache registry = FlightServers.registry(directory, opened);
      SqlEngine sql = new SqlEngine(new CatalogSqlCatalog(registry), 1L << 30,
          Runtime.getRuntime().availableProcessors());
      LakeFlightServer admitted = server(opened, registry, sql, root, authenticator, options,
          LakeFlightServer.builder().admission(options.maxConcurrent(), options.maxPerTenant(),
              options.maxQueued(), options.maxWait()));
      LakeFlightServer unbounded = server(opened, registry, sql, root, authenticator, options,
          LakeFlightServer.builder().admission(HUGE, HUGE, HUGE, Duration.ofHours(1)));
      Tenant a = new Tenant("a", bearer(tokenA));
      Tenant b = new Tenant("b", bearer(tokenB));
      long loadStart = System.nanoTime();
      load(root, admitted.port(), a.call(), options);
      System.out.printf("loaded bench.log (%,d rows) and bench.points (%,d rows) in %.1f s%n",
          options.rows(), options.pointRows(), (System.nanoTime() - loadStart) / 1e9);
      measure(root, options, a, b, new Configuration(admission(options), admitted),
          new Configuration("admission off (caps " + HUGE + ")", unbounded));
    } finally {
      for (int i = opened.size() - 1; i >= 0; i--) {
        opened.get(i).close();
      }
      root.close();
      FlightStatementBench.deleteTree(directory);
    }
  }

  private static String admission(Options options) {
    return "admission " + options.maxConcurrent() + "/" + options.maxPerTenant() + "/"
        + options.maxQueued() + "/" + options.maxWait().toSeconds() + "s";
  }

  private static LakeFlightServer server(List<AutoCloseable> opened, CatalogCache registry,
      SqlEngine sql, BufferAllocator root, Authenticator authenticator, Options options,
      LakeFlightServer.Builder builder) {
    LakeFlightServer server = builder.registry(registry).sqlEngine(sql).allocator(root)
        .authenticator(authenticator).workerThreads(options.workers()).build();
    server.start();
    opened.add(server);
    return server;
  }

  private record Tenant(String name, CallOption call) {}

  private static CallOption bearer(String token) {
    return new CredentialCallOption(new BearerCredentialWriter(token));
  }

  // ---- data --------------------------------------------------------------------------------

  private static void load(BufferAllocator root, int port, CallOption admin, Options options)
      throws Exception {
    try (FlightSqlClient client = ClosedLoop.client(root, port)) {
      client.executeUpdate("CREATE SCHEMA bench", admin);
      ClosedLoop.load(root, client, admin, "bench", "points", options.pointRows(), BATCH_ROWS);
      ClosedLoop.load(root, client, admin, "bench", "log", options.rows(), BATCH_ROWS);
    }
  }

  // ---- queries -----------------------------------------------------------------------------

  /** The heavy query; checks every group's count and sum. */
  private static Query heavy(long rows) {
    long[] counts = new long[GROUPS];
    double[] sums = new double[GROUPS];
    for (int g = 0; g < GROUPS; g++) {
      counts[g] = rows / GROUPS + (g < rows % GROUPS ? 1 : 0);
      // Rows g, g + 97, ..., g + 97 (n - 1), score = id / 4.
      long n = counts[g];
      sums[g] = (n * g + GROUPS * (double) n * (n - 1) / 2) / 4.0;
    }
    return (client, call) -> {
      boolean[] seen = new boolean[GROUPS];
      int[] groups = {0};
      ClosedLoop.drain(client, client.execute(HEAVY, call), call, root -> {
        VarCharVector names = (VarCharVector) root.getVector(0);
        BigIntVector n = (BigIntVector) root.getVector(1);
        Float8Vector total = (Float8Vector) root.getVector(2);
        for (int r = 0; r < root.getRowCount(); r++) {
          String name = new String(names.get(r), StandardCharsets.UTF_8);
          int g = Integer.parseInt(name.substring("robot-".length()));
          if (seen[g] || n.get(r) != counts[g]
              || Math.abs(total.get(r) - sums[g]) > 1e-9 * Math.abs(sums[g])) {
            throw new IllegalStateException("heavy query: group " + name + " n=" + n.get(r)
                + " total=" + total.get(r) + ", expected n=" + counts[g] + " total=" + sums[g]
                + (seen[g] ? " (seen twice)" : ""));
          }
          seen[g] = true;
          groups[0]++;
        }
      });
      if (groups[0] != Math.min(GROUPS, rows)) {
        throw new IllegalStateException("heavy query: " + groups[0] + " groups, expected "
            + Math.min(GROUPS, rows));
      }
    };
  }

  // ---- measuring ---------------------------------------------------------------------------

  /** What one configuration measured: B's and A's cells and the load average around them. */
  private static final class Row {
    final String name;
    final Cell b = new Cell();
    final Cell a = new Cell();
    String load = "";

    Row(String name) {
      this.name = name;
    }
  }

  private static void measure(BufferAllocator root, Options options, Tenant a, Tenant b,
      Configuration admitted, Configuration unbounded) throws Exception {
    Query heavy = heavy(options.rows());
    Query point = ClosedLoop.point("bench.points", options.pointRows());
    int flooders = options.heavyClients();
    int pointers = options.pointClients();
    Row alone = new Row("B alone");
    Row heavyAlone = new Row("A alone, 1 heavy client");
    Row flood = new Row("A flood, " + admitted.name());
    Row floodOff = new Row("A flood, " + unbounded.name());
    // Warm-up (JIT, plan cache): both queries together, then a short flood on each server.
    int port = admitted.server().port();
    ClosedLoop.phase(root, port, 0, options.warmup(), new Load(a.call(), heavy, 1, null),
        new Load(b.call(), point, pointers, null));
    for (Configuration c : List.of(admitted, unbounded)) {
      ClosedLoop.phase(root, c.server().port(), 0, options.warmup(),
          new Load(a.call(), heavy, flooders, null), new Load(b.call(), point, pointers, null));
    }
    for (int round = 0; round < options.rounds(); round++) {
      run(root, port, 0, options, new Load(a.call(), heavy, 0, null),
          new Load(b.call(), point, pointers, alone.b), alone);
      run(root, port, 0, options, new Load(a.call(), heavy, 1, heavyAlone.a),
          new Load(b.call(), point, 0, null), heavyAlone);
      run(root, port, options.warmup(), options, new Load(a.call(), heavy, flooders, flood.a),
          new Load(b.call(), point, pointers, flood.b), flood);
      run(root, unbounded.server().port(), options.warmup(), options,
          new Load(a.call(), heavy, flooders, floodOff.a),
          new Load(b.call(), point, pointers, floodOff.b),
          floodOff);
    }
    report(options, alone, heavyAlone, flood, floodOff);
  }

  private static void run(BufferAllocator root, int port, double warmup, Options options,
      Load heavy, Load point, Row row) throws Exception {
    String before = FlightStatementBench.loadAverage();
    ClosedLoop.phase(root, port, warmup, options.seconds(), heavy, point);
    row.load = (row.load.isEmpty() ? "" : row.load + ", ") + before + "->"
        + FlightStatementBench.loadAverage();
  }

  private static void report(Options options, Row alone, Row heavyAlone, Row flood,
      Row floodOff) {
    System.out.printf("%nFairness: tenant A %d heavy clients (GROUP BY over %,d rows), tenant B %d"
        + " point client(s) (%,d-row table); %d round(s) of %.0f s per configuration, %d server"
        + " workers, %d processors%n", options.heavyClients(), options.rows(),
        options.pointClients(), options.pointRows(), options.rounds(), options.seconds(),
        options.workers(), Runtime.getRuntime().availableProcessors());
    System.out.printf("%-44s | %6s %8s %8s %8s %8s | %21s | %7s %9s | %9s | %s%n",
        "configuration", "B n", "B q/s", "p50 ms", "p99 ms", "max ms", "vs alone q/s p50 p99", "A q/s", "A p50 ms",
        "refused A/B", "load avg");
    for (Row row : List.of(alone, heavyAlone, flood, floodOff)) {
      Cell b = row.b;
      String ratios = b.count() == 0 || row == alone ? ""
          : String.format("%5.2fx %6.1fx %6.1fx", b.rate() / alone.b.rate(),
              b.percentile(0.5) / alone.b.percentile(0.5),
              b.percentile(0.99) / alone.b.percentile(0.99));
      System.out.printf("%-44s | %6s %8s %8s %8s %8s | %21s | %7s %9s | %4d/%-4d | %s%n",
          row.name, b.count() == 0 ? "" : Integer.toString(b.count()),
          b.count() == 0 ? "" : String.format("%.1f", b.rate()), figure(b, 0.5), figure(b, 0.99),
          figure(b, 1.0), ratios,
          row.a.count() == 0 ? "" : String.format("%.2f", row.a.rate()), figure(row.a, 0.5),
          row.a.refusals(), b.refusals(), row.load);
    }
    System.out.printf("A's queries/s, admission / off: %.2fx; B's p99 admission / off: %.2fx%n",
        flood.a.rate() / floodOff.a.rate(), flood.b.percentile(0.99)
            / floodOff.b.percentile(0.99));
    double bound = alone.b.percentile(0.99)
        + options.boundTurns() * heavyAlone.a.percentile(0.5);
    double measured = flood.b.percentile(0.99);
    System.out.printf("bound: B's p99 under A's flood with %s <= B alone p99 + %.1f x heavy"
        + " query p50 alone = %.1f + %.1f x %.1f = %.1f ms; measured %.1f ms: %s%n",
        admission(options), options.boundTurns(), alone.b.percentile(0.99),
        options.boundTurns(), heavyAlone.a.percentile(0.5), bound, measured,
        measured <= bound ? "PASS" : "FAIL");
  }

  private static String figure(Cell cell, double p) {
    return cell.count() == 0 ? "" : String.format("%.1f", cell.percentile(p));
  }

  // ---- options -----------------------------------------------------------------------------

  private static final String USAGE = """
      bench/fairness [options]: tenant A floods one lake Flight SQL server with heavy queries while
      tenant B runs point queries; B's latency alone, under the flood with admission, and under the
      flood with admission off (see docs/benchmarks.md).
        --seconds S         measured window per configuration and round (default 15)
        --warmup S          flood before B's window starts, and the warm-up (default 2)
        --rounds N          rounds of the four configurations (default 2)
        --heavy-clients N   tenant A's concurrent clients (default 32)
        --point-clients N   tenant B's concurrent clients (default 1)
        --rows N            rows of bench.log, which each heavy query reads (default 4000000)
        --point-rows N      rows of bench.points (default 10000)
        --max-concurrent N  admission under test: places in the server (default %d)
        --max-per-tenant N  places of one tenant (default %d)
        --max-queued N      waiting queries (default %d)
        --max-wait S        longest wait in seconds (default %d)
        --workers N         the server's worker threads (default: processors, at least 2)
        --bound-turns X     the bound: B alone p99 + X heavy query p50s (default 2)
      """;

  private static Options parse(String[] args) {
    Flags flags = Flags.parse(args, usage(), List.of("--seconds", "--warmup", "--rounds",
        "--heavy-clients", "--point-clients", "--rows", "--point-rows", "--max-concurrent",
        "--max-per-tenant", "--max-queued", "--max-wait", "--workers", "--bound-turns"));
    if (flags == null) {
      return null;
    }
    double seconds = flags.number("--seconds", 15);
    double warmup = flags.number("--warmup", 2);
    int rounds = flags.integer("--rounds", 2);
    int heavyClients = flags.integer("--heavy-clients", 32);
    int pointClients = flags.integer("--point-clients", 1);
    long rows = flags.count("--rows", 4_000_000);
    int pointRows = flags.integer("--point-rows", 10_000);
    int maxConcurrent =
        flags.integer("--max-concurrent", LakeFlightServer.DEFAULT_MAX_CONCURRENT_QUERIES);
    int maxPerTenant =
        flags.integer("--max-per-tenant", LakeFlightServer.DEFAULT_MAX_QUERIES_PER_TENANT);
    int maxQueued = flags.integer("--max-queued", LakeFlightServer.DEFAULT_MAX_QUEUED_QUERIES);
    Duration maxWait = Duration.ofMillis((long) (flags.number("--max-wait",
        LakeFlightServer.DEFAULT_MAX_QUEUE_WAIT.toMillis() / 1000.0) * 1000));
    int workers =
        flags.integer("--workers", Math.max(2, Runtime.getRuntime().availableProcessors()));
    double boundTurns = flags.number("--bound-turns", 2);
    if (seconds <= 0 || rounds < 1 || heavyClients < 1 || pointClients < 1 || rows < 1
        || pointRows < 1) {
      throw new IllegalArgumentException("--seconds, --rounds, --heavy-clients, --point-clients,"
          + " --rows and --point-rows must be positive\n" + usage());
    }
    return new Options(seconds, warmup, rounds, heavyClients, pointClients, rows, pointRows,
        maxConcurrent, maxPerTenant, maxQueued, maxWait, workers, boundTurns);
  }

  private static String usage() {
    return USAGE.formatted(LakeFlightServer.DEFAULT_MAX_CONCURRENT_QUERIES,
        LakeFlightServer.DEFAULT_MAX_QUERIES_PER_TENANT,
        LakeFlightServer.DEFAULT_MAX_QUEUED_QUERIES,
        LakeFlightServer.DEFAULT_MAX_QUEUE_WAIT.toSeconds());
  }
}
