package dev.lake.bench.flight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lake.bench.flight.ClosedLoop.Cell;
import dev.lake.bench.flight.ClosedLoop.Load;
import dev.lake.bench.flight.ClosedLoop.Query;
import dev.lake.bench.metasrv.Spawned;
import dev.lake.bench.tpch.ProcessCpu;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Read flood through the production shape (issue 20): {@code --clients} concurrent stock {@code
 * FlightSqlClient}s issue selective point queries through nginx {@code grpc_pass} to one and to
 * two {@code lake query} replicas; queries/s, p50/p99/max of each and the ratio two/one.
 *
 * <p>Two clusters, each exactly what {@code lake cluster --data-dir <tmp> --queries N} starts
 * from the packaged jar (dynalite, two {@code lake metasrv}, N {@code lake query} sharing a key
 * ring, nginx in front), N = 1 and N = 2, both up for the whole run; the client endpoint and every
 * member's pid are read from {@code cluster.json}. Each cluster's {@code bench.log} holds {@code
 * --rows} rows {@code (id, name, score)} (row {@code i} is {@code (i, 'robot-' + i % 97, i /
 * 4.0)}), appended in id order through the balancer, so {@code WHERE id = ?} prunes to one block
 * of the log engine by its min/max statistics.
 *
 * <p>Each client is its own channel (HTTP/2 connection to nginx) and thread, closed loop, {@code
 * SELECT id, name, score FROM bench.log WHERE id = <random>}: {@code GetFlightInfo}, then {@code
 * DoGet} of its endpoint, the one row checked. nginx balances per call, so a query is often
 * planned by one replica and streamed by the other (tickets sealed by the shared key ring). After
 * a first warm-up of 4 x {@code --warmup} s per replica of each cluster, each round runs three
 * shapes, the order reversed every round: one replica and two replicas through nginx, and the
 * two replicas directly (no nginx, half the clients on each, both calls of a query on one
 * replica: what the second replica costs apart from the balancer). Each shape gets {@code
 * --warmup} s of flood, then a measured window of {@code --seconds}. Around each window the CPU
 * time of every process is read from {@code /proc} (each replica, nginx's master and workers, the
 * metasrvs and dynalite, the idle cluster, this client JVM) and the machine's from {@code
 * /proc/stat}, so the report shows where the cores went: on a 2-core machine the clients and
 * nginx share the cores with the replicas, which caps what a second replica can add.
 */
public final class ReadFloodBench {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int BATCH_ROWS = 500_000;
  /**
   * Each cluster's first warm-up per replica, in {@code --warmup}s: every replica JVM gets as
   * many warm-up queries (its JIT settles) whichever the shape.
   */
  private static final int FIRST_WARMUPS = 4;
  private static final String TABLE = "bench.log";
  /** Each call's deadline: generous, so a loaded machine slows the flood but never fails it. */
  private static final CallOption DEADLINE = CallOptions.timeout(120, TimeUnit.SECONDS);
  /** USER_HZ of /proc/stat on Linux. */
  private static final long TICK_NANOS = 10_000_000;

  private ReadFloodBench() {}

  private record Options(double seconds, double warmup, int rounds, int clients, long rows,
      Path jar) {}

  /** One member process of a cluster, as cluster.json names it. */
  private record Member(String role, String name, long pid, int port) {}

  /** One running {@code lake cluster}: its supervisor, endpoint port and members. */
  private record Cluster(Spawned supervisor, int port, long supervisorPid,
      List<Member> members) {

    /**
     * The CPU groups of this cluster, by label: each replica, nginx, the metasrvs, dynalite, and
     * the supervisor. A pid counts with its descendants (nginx's workers, dynalite's node) except
     * the supervisor's, whose descendants are the members themselves.
     */
    Map<String, List<Long>> groups() {
      Map<String, List<Long>> groups = new LinkedHashMap<>();
      for (Member m : members) {
        String label = switch (m.role()) {
          case "query" -> m.name();
          case "balancer" -> "nginx";
          case "metastore" -> "dynalite";
          default -> m.role();
        };
        groups.computeIfAbsent(label, k -> new ArrayList<>()).add(m.pid());
      }
      groups.put("supervisor", List.of(-supervisorPid));
      return groups;
    }

    long replicas() {
      return replicaPorts().length;
    }

    int[] replicaPorts() {
      return members.stream().filter(m -> m.role().equals("query")).mapToInt(Member::port)
          .toArray();
    }

    /** Every process of the cluster, as {@link #groups} counts them. */
    List<Long> pids() {
      return groups().values().stream().flatMap(List::stream).toList();
    }
  }

  /** What one shape measured over every round. */
  private static final class Shape {
    final String name;
    final Cluster cluster;
    final int[] ports;
    final Cell cell = new Cell();
    final Map<String, Long> cpu = new LinkedHashMap<>();
    /** Per round: queries/s and the replicas' CPU ms per query. */
    final List<String> rounds = new ArrayList<>();
    /** Seconds between the CPU samples at the windows' ends (a little over the windows). */
    double sampledSeconds;
    String load = "";

    Shape(String name, Cluster cluster, int... ports) {
      this.name = name;
      this.cluster = cluster;
      this.ports = ports;
    }

    double cores(String label) {
      return cpu.getOrDefault(label, 0L) / 1e9 / sampledSeconds;
    }
  }

  public static void main(String[] args) throws Exception {
    Options options = parse(args);
    if (options == null) {
      return;
    }
    Path directory = Files.createTempDirectory("lake-read-flood");
    Path logs = directory.resolve("logs");
    boolean done = false;
    long starting = System.nanoTime();
    String loadAtStart = FlightStatementBench.loadAverage();
    CompletableFuture<Cluster> one = CompletableFuture.supplyAsync(
        () -> start(options.jar(), directory, logs, 1));
    CompletableFuture<Cluster> two = CompletableFuture.supplyAsync(
        () -> start(options.jar(), directory, logs, 2));
    try (BufferAllocator root = new RootAllocator()) {
      Cluster single = one.join();
      Cluster pair = two.join();
      // The third shape bypasses nginx, half the clients on each replica: both calls of a query
      // on one replica, which tells the cost of the second replica from that of the balancer.
      List<Shape> shapes = List.of(new Shape("1 replica", single, single.port()),
          new Shape("2 replicas", pair, pair.port()),
          new Shape("2 direct", pair, pair.replicaPorts()));
      System.out.printf("two clusters ready in %.1f s (load average %s before)%n",
          (System.nanoTime() - starting) / 1e9, loadAtStart);
      long loading = System.nanoTime();
      for (Cluster cluster : List.of(single, pair)) {
        try (FlightSqlClient client = ClosedLoop.client(root, cluster.port())) {
          client.executeUpdate("CREATE SCHEMA bench", DEADLINE);
          ClosedLoop.load(root, client, DEADLINE, "bench", "log", options.rows(), BATCH_ROWS);
        }
      }
      System.out.printf("loaded %s (%,d rows) into each cluster through nginx in %.1f s%n", TABLE,
          options.rows(), (System.nanoTime() - loading) / 1e9);
      measure(root, options, shapes);
      done = true;
    } finally {
      for (CompletableFuture<Cluster> cluster : List.of(one, two)) {
        Optional.ofNullable(cluster.exceptionally(e -> null).join())
            .ifPresent(c -> close(c.supervisor()));
      }
      if (done) {
        FlightStatementBench.deleteTree(directory);
      } else {
        System.err.println("read-flood: the clusters' logs are kept in " + logs);
      }
    }
  }

  private static Cluster start(Path jar, Path directory, Path logs, int queries) {
    String name = "cluster-" + queries;
    Path data = directory.resolve(name);
    try {
      // The members inherit the supervisor's JVM options: one recording per process (%p: pid).
      String jfr = System.getenv("LAKE_BENCH_JFR");
      List<String> jvm = jfr == null || jfr.isEmpty() ? List.of()
          : List.of("-XX:StartFlightRecording=filename=" + Files.createDirectories(Path.of(jfr))
              .toAbsolutePath() + "/" + name + "-%p.jfr,settings=profile");
      Spawned supervisor = Spawned.start(jar, logs, name, jvm, "cluster", "--data-dir",
          data.toString(), "--queries", Integer.toString(queries));
      JsonNode file = JSON.readTree(data.resolve("cluster.json").toFile());
      List<Member> members = new ArrayList<>();
      for (JsonNode p : file.path("processes")) {
        members.add(new Member(p.path("role").asText(), p.path("name").asText(""),
            p.path("pid").asLong(), p.path("port").asInt()));
      }
      if (members.stream().noneMatch(m -> m.role().equals("balancer"))) {
        close(supervisor);
        throw new IllegalStateException("lake cluster started no nginx (not installed?"
            + " apt-get install nginx, or set LAKE_NGINX); see " + logs.resolve(name + ".log"));
      }
      return new Cluster(supervisor,
          supervisor.port(), file.path("pid").asLong(), members);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void close(Spawned spawned) {
    try {
      spawned.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- measuring ---------------------------------------------------------------------------

  private static void measure(BufferAllocator root, Options options, List<Shape> shapes)
      throws Exception {
    Query point = ClosedLoop.point(TABLE, options.rows());
    Load none = new Load(DEADLINE, point, 0, null);
    for (Shape shape : shapes.subList(0, 2)) {
      ClosedLoop.phase(root, shape.cluster.port(), 0,
          FIRST_WARMUPS * options.warmup() * shape.cluster.replicas(),
          new Load(DEADLINE, point, options.clients(), null), none);
    }
    for (int round = 0; round < options.rounds(); round++) {
      for (int i = 0; i < shapes.size(); i++) {
        Shape shape = shapes.get(round % 2 == 0 ? i : shapes.size() - 1 - i);
        Cluster idle = shape.cluster == shapes.get(0).cluster ? shapes.get(1).cluster
            : shapes.get(0).cluster;
        Map<String, List<Long>> groups = new LinkedHashMap<>(shape.cluster.groups());
        groups.put("idle cluster", idle.pids());
        CpuWindow window = new CpuWindow(groups);
        long before = shape.cell.completed();
        String loadBefore = FlightStatementBench.loadAverage();
        ClosedLoop.phase(root, shape.ports, options.warmup(), options.seconds(),
            new Load(DEADLINE, point, options.clients(), shape.cell), none, window);
        shape.sampledSeconds += window.seconds();
        Map<String, Long> cpu = new LinkedHashMap<>();
        window.addTo(cpu);
        cpu.forEach((label, nanos) -> shape.cpu.merge(label, nanos, Long::sum));
        long queries = shape.cell.completed() - before;
        double replicaCores = (cpu.getOrDefault("query-1", 0L) + cpu.getOrDefault("query-2", 0L))
            / 1e9 / window.seconds();
        shape.rounds.add(String.format("%.0f q/s %.2f ms", queries / options.seconds(),
            replicaCores * 1000 / (queries / options.seconds())));
        shape.load = (shape.load.isEmpty() ? "" : shape.load + ", ") + loadBefore + "->"
            + FlightStatementBench.loadAverage();
      }
    }
    report(options, shapes);
  }

  /** CPU nanoseconds of process groups, the client JVM and the machine, sampled at a window's ends. */
  private static final class CpuWindow implements ClosedLoop.Window {
    private final Map<String, List<Long>> groups;
    private Map<String, Long> opened;
    private Map<String, Long> closed;
    private long openedAt;
    private long closedAt;

    CpuWindow(Map<String, List<Long>> groups) {
      this.groups = groups;
    }

    @Override
    public void opened() {
      opened = sample();
      openedAt = System.nanoTime();
    }

    @Override
    public void closed() {
      closedAt = System.nanoTime();
      closed = sample();
    }

    /** Seconds between the samples (each taken as close to the window as it can be). */
    double seconds() {
      return (closedAt - openedAt) / 1e9 + (sampleNanos(opened) + sampleNanos(closed)) / 2e9;
    }

    private static long sampleNanos(Map<String, Long> sample) {
      return sample.get("sampled in");
    }

    void addTo(Map<String, Long> totals) {
      long ours = 0;
      for (Map.Entry<String, Long> entry : closed.entrySet()) {
        if (entry.getKey().equals("sampled in")) {
          continue;
        }
        long delta = entry.getValue() - opened.get(entry.getKey());
        totals.merge(entry.getKey(), delta, Long::sum);
        if (!entry.getKey().equals("machine")) {
          ours += delta;
        }
      }
      long machine = closed.get("machine") - opened.get("machine");
      totals.merge("others", Math.max(0, machine - ours), Long::sum);
    }

    private Map<String, Long> sample() {
      long begin = System.nanoTime();
      Map<String, Long> sample = new LinkedHashMap<>();
      for (Map.Entry<String, List<Long>> group : groups.entrySet()) {
        sample.put(group.getKey(), group.getValue().stream().mapToLong(CpuWindow::tree).sum());
      }
      sample.put("client JVM", ProcessCpu.nanos());
      sample.put("machine", machineBusy());
      sample.put("sampled in", System.nanoTime() - begin);
      return sample;
    }

    /**
     * CPU nanoseconds of a process and its live descendants (nginx's workers, dynalite's node);
     * of the process alone for a negative pid.
     */
    private static long tree(long pid) {
      return ProcessHandle.of(Math.abs(pid)).map(h -> Stream.concat(Stream.of(h),
              pid < 0 ? Stream.<ProcessHandle>empty() : h.descendants())
          .mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L)).sum())
          .orElse(0L);
    }

    /** Busy CPU nanoseconds of every core since boot (/proc/stat: all but idle and iowait). */
    private static long machineBusy() {
      try {
        String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long busy = 0;
        // cpu user nice system idle iowait irq softirq steal (guest time is within user)
        for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
          busy += Long.parseLong(cpu[i]);
        }
        return busy * TICK_NANOS;
      } catch (IOException | RuntimeException e) {
        return 0;
      }
    }
  }

  private static void report(Options options, List<Shape> shapes) {
    int cores = Runtime.getRuntime().availableProcessors();
    System.out.printf("%nRead flood: %d stock FlightSqlClients (each its own connection to nginx"
        + " grpc_pass), closed loop, SELECT id, name, score FROM %s WHERE id = <random> over %,d"
        + " rows (GetFlightInfo + DoGet, one row checked); %d round(s) of %.0f s per shape after"
        + " %.0f s of flood; %d cores%n", options.clients(), TABLE, options.rows(),
        options.rounds(), options.seconds(), options.warmup(), cores);
    List<String> labels = List.of("query-1", "query-2", "nginx", "client JVM", "metasrv",
        "dynalite", "supervisor", "idle cluster", "others", "machine");
    StringBuilder header = new StringBuilder(String.format("%-10s | %7s %8s %7s %7s %7s %4s |",
        "shape", "queries", "q/s", "p50 ms", "p99 ms", "max ms", "refd"));
    for (String label : labels) {
      header.append(String.format(" %8s", label.replace("idle cluster", "idle-cl")
          .replace("client JVM", "client").replace("supervisor", "superv")));
    }
    System.out.println(header.append(" | load avg"));
    System.out.printf("%-10s | %47s | %s%n", "", "", "cores busy in the windows (CPU s / s)");
    for (Shape shape : shapes) {
      Cell cell = shape.cell;
      StringBuilder row = new StringBuilder(String.format(
          "%-10s | %7d %8.1f %7.1f %7.1f %7.1f %4d |", shape.name, cell.count(),
          cell.rate(), cell.percentile(0.5), cell.percentile(0.99), cell.percentile(1.0),
          cell.refusals()));
      for (String label : labels) {
        row.append(shape.cpu.containsKey(label)
            ? String.format(" %8.2f", shape.cores(label)) : String.format(" %8s", "-"));
      }
      System.out.println(row.append(" | ").append(shape.load));
    }
    Shape one = shapes.get(0);
    Shape two = shapes.get(1);
    Shape direct = shapes.get(2);
    System.out.printf("two/one: queries/s %.2fx (goal 1.8x where the cores allow), p50 %.2fx,"
        + " p99 %.2fx; 2 direct/2 replicas: queries/s %.2fx%n",
        two.cell.rate() / one.cell.rate(), two.cell.percentile(0.5) / one.cell.percentile(0.5),
        two.cell.percentile(0.99) / one.cell.percentile(0.99),
        direct.cell.rate() / two.cell.rate());
    System.out.printf("per round (queries/s, replicas' CPU ms per query): 1 replica %s;"
        + " 2 replicas %s; 2 direct %s%n", rates(one), rates(two), rates(direct));
    for (Shape shape : shapes) {
      double rate = shape.cell.rate();
      double replicas = shape.cores("query-1") + shape.cores("query-2");
      double front = shape.cores("nginx") + shape.cores("client JVM");
      System.out.printf("%s: CPU ms per query: replicas %.2f, nginx %.2f, client %.2f; the"
          + " machine %.0f%% busy (%.2f of %d cores), of which others %.2f%n",
          shape.name, replicas * 1000 / rate, shape.cores("nginx") * 1000 / rate,
          shape.cores("client JVM") * 1000 / rate, 100 * shape.cores("machine") / cores,
          shape.cores("machine"), cores, shape.cores("others"));
      if (shape == two) {
        System.out.printf("ceiling if the replicas, nginx and the client had every core to"
            + " themselves: %.0f queries/s (%d cores / %.2f CPU ms per query)%n",
            cores * rate / (replicas + front), cores, (replicas + front) * 1000 / rate);
      }
    }
  }

  private static String rates(Shape shape) {
    return String.join(", ", shape.rounds);
  }

  // ---- options -----------------------------------------------------------------------------

  private static final String USAGE = """
      bench/read-flood [options]: concurrent stock FlightSqlClients issue point queries through
      nginx grpc_pass to one and to two lake query replicas (two clusters as lake cluster starts
      them, from cli/target/lake-cli.jar); queries/s, p50/p99/max, the ratio two/one and where the
      CPU went (see docs/benchmarks.md).
        --seconds S   measured window per shape and round (default 6)
        --warmup S    flood before each window (default 2); the first warm-up of a cluster
                      is 4x that per replica
        --rounds N    rounds of the three shapes (1 replica, 2 replicas, 2 direct without
                      nginx), the order reversed each round (default 2)
        --clients N   concurrent clients, each its own connection and thread (default 64)
        --rows N      rows of bench.log in each cluster (default 1000000)
      A bigger run: --seconds 30 --rounds 3 --rows 4000000
      """;

  private static Options parse(String[] args) {
    Flags flags = Flags.parse(args, USAGE,
        List.of("--seconds", "--warmup", "--rounds", "--clients", "--rows"));
    if (flags == null) {
      return null;
    }
    double seconds = flags.number("--seconds", 6);
    double warmup = flags.number("--warmup", 2);
    int rounds = flags.integer("--rounds", 2);
    int clients = flags.integer("--clients", 64);
    long rows = flags.count("--rows", 1_000_000);
    if (seconds <= 0 || warmup < 0 || rounds < 1 || clients < 1 || rows < 1) {
      throw new IllegalArgumentException("--seconds, --rounds, --clients and --rows must be"
          + " positive, --warmup not negative\n" + USAGE);
    }
    Path jar = Path.of(System.getProperty("lake.repository", "."))
        .resolve("cli/target/lake-cli.jar").toAbsolutePath();
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing; bench/read-flood builds it");
    }
    return new Options(seconds, warmup, rounds, clients, rows, jar);
  }
}
