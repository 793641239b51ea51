package dev.lake.bench.flight;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.apache.arrow.adbc.core.AdbcConnection;
import org.apache.arrow.adbc.core.AdbcDatabase;
import org.apache.arrow.adbc.core.AdbcDriver;
import org.apache.arrow.adbc.core.AdbcStatement;
import org.apache.arrow.adbc.core.BulkIngestMode;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlDriver;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Flight SQL statement overhead and ingest rates through the stock clients, lake beside Arrow's
 * Derby-backed {@code FlightSqlExample} measured in the same run on the same rows.
 *
 * <p>Statements ({@code FlightSqlClient}, one client per connection, closed loop): {@code SELECT
 * 1}; a point lookup by a random id as plain statement text; and a prepared lookup re-executed
 * with a new bound id. Each cell runs lake and the example alternately for {@code --rounds}
 * rounds of {@code --seconds} after a warm-up, and prints statements/s, p50 and p99 latency of
 * both, the ratio lake/example of statements/s (above 1 means lake is faster) and the load
 * average. Every result is checked (one row, the id asked for).
 *
 * <p>Ingest (lake only): the same batches appended by {@code CommandStatementIngest}, by ADBC's
 * bulk ingest and by a prepared {@code INSERT} bound to the batch, each operation one table
 * version; rows/s and the ratio to {@code CommandStatementIngest}.
 *
 * <p>Run: {@code bench/flight [--seconds 3] [--warmup 2] [--rounds 2] [--rows 10000]
 * [--connections 1,16] [--ingest-rows 10000] [--ingest-ops 10] [--only statements|ingest]}.
 */
public final class FlightStatementBench {

  private FlightStatementBench() {}

  private record Options(double seconds, double warmup, int rounds, int rows, int[] connections,
      int ingestRows, int ingestOps, String only) {}

  /** One statement kind: how each system runs one execution on one connection. */
  private interface Kind {
    String name();

    /** Per-connection state (a prepared statement) and one execution; returns rows read. */
    Connection open(FlightSqlClient client, boolean lake);
  }

  private interface Connection extends AutoCloseable {
    void execute(long id) throws Exception;

    @Override
    default void close() throws Exception {}
  }

  public static void main(String[] args) throws Exception {
    Options options = parse(args);
    Path directory = Files.createTempDirectory("lake-flight-bench");
    try (FlightServers servers = new FlightServers(directory, options.rows())) {
      if (!"ingest".equals(options.only())) {
        statements(servers, options);
      }
      if (!"statements".equals(options.only())) {
        ingest(servers, options);
      }
    } finally {
      deleteTree(directory);
    }
  }

  // ---- statements ------------------------------------------------------------------------

  private static void statements(FlightServers servers, Options options) throws Exception {
    List<Kind> kinds = List.of(
        kind("SELECT 1", (client, lake) -> id -> expectRows(client,
            client.execute(lake ? "SELECT 1" : "SELECT 1 FROM SYSIBM.SYSDUMMY1"), -1)),
        kind("point lookup", (client, lake) -> id -> expectRows(client, client.execute(
            "SELECT id, name, score FROM " + (lake ? "bench.points" : "points") + " WHERE id = "
                + id), id)),
        kind("prepared lookup", FlightStatementBench::prepared));
    System.out.printf("%nFlight SQL statements through FlightSqlClient, %,d-row table; lake beside"
        + " Arrow's FlightSqlExample (Derby), same run%n", options.rows());
    System.out.printf("%-16s %5s | %10s %8s %8s | %10s %8s %8s | %8s | %-13s | %s%n", "statement",
        "conns",
        "lake st/s", "p50 ms", "p99 ms", "peer st/s", "p50 ms", "p99 ms", "lake/peer", "load avg",
        "mean ms info+stream: lake peer");
    for (Kind kind : kinds) {
      for (int connections : options.connections()) {
        String loadBefore = loadAverage();
        Cell lake = new Cell();
        Cell peer = new Cell();
        run(servers::lakeClient, true, kind, connections, options.warmup(), options.rows(), null);
        run(servers::exampleClient, false, kind, connections, options.warmup(), options.rows(),
            null);
        for (int round = 0; round < options.rounds(); round++) {
          run(servers::lakeClient, true, kind, connections, options.seconds(), options.rows(),
              lake);
          run(servers::exampleClient, false, kind, connections, options.seconds(),
              options.rows(), peer);
        }
        System.out.printf("%-16s %5d | %10.0f %8.2f %8.2f | %10.0f %8.2f %8.2f | %7.2fx | %-13s"
            + " | %s %s%n",
            kind.name(), connections, lake.rate(), lake.percentile(0.50), lake.percentile(0.99),
            peer.rate(), peer.percentile(0.50), peer.percentile(0.99), lake.rate() / peer.rate(),
            loadBefore + " -> " + loadAverage(), lake.split(), peer.split());
      }
    }
  }

  private static Kind kind(String name, java.util.function.BiFunction<FlightSqlClient, Boolean,
      Connection> open) {
    return new Kind() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Connection open(FlightSqlClient client, boolean lake) {
        return open.apply(client, lake);
      }
    };
  }

  private static Connection prepared(FlightSqlClient client, boolean lake) {
    FlightSqlClient.PreparedStatement statement = client.prepare(
        "SELECT id, name, score FROM " + (lake ? "bench.points" : "points") + " WHERE id = ?");
    Schema parameters = statement.getParameterSchema();
    if (parameters.getFields().size() != 1) {
      throw new IllegalStateException("expected one parameter, the server declared " + parameters);
    }
    // Bind the type the server declared (Derby: int32 or int64, lake: int64).
    Field field = parameters.getFields().get(0);
    Field bound = new Field(field.getName() == null || field.getName().isEmpty() ? "p0" : field.getName(),
        field.getFieldType(), null);
    VectorSchemaRoot values = VectorSchemaRoot.create(new Schema(List.of(bound)),
        new org.apache.arrow.memory.RootAllocator());
    return new Connection() {
      @Override
      public void execute(long id) throws Exception {
        FieldVector vector = values.getVector(0);
        vector.allocateNew();
        if (vector instanceof BigIntVector longs) {
          longs.set(0, id);
        } else if (vector instanceof IntVector ints) {
          ints.set(0, (int) id);
        } else {
          throw new IllegalStateException("parameter type " + field.getType());
        }
        values.setRowCount(1);
        statement.setParameters(values);
        expectRows(client, statement.execute(), id);
      }

      @Override
      public void close() {
        statement.close();
        var allocator = values.getVector(0).getAllocator();
        values.close();
        allocator.close();
      }
    };
  }

  /** Reads every endpoint; with {@code id >= 0} checks that exactly that row came back. */
  private static void expectRows(FlightSqlClient client, FlightInfo info, long id)
      throws Exception {
    long planned = System.nanoTime();
    INFO_NANOS.add(planned - EXECUTION_BEGIN.get()[0]);
    long rows = 0;
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      try (FlightStream stream = client.getStream(endpoint.getTicket())) {
        while (stream.next()) {
          VectorSchemaRoot root = stream.getRoot();
          if (id >= 0 && root.getRowCount() > 0) {
            Object got = root.getVector(0).getObject(0);
            if (((Number) got).longValue() != id) {
              throw new IllegalStateException("asked for id " + id + ", got " + got);
            }
          }
          rows += root.getRowCount();
        }
      }
    }
    if (rows != 1) {
      throw new IllegalStateException("expected one row, got " + rows);
    }
    STREAM_NANOS.add(System.nanoTime() - planned);
  }

  /** When the calling thread's current execution began (for the split into its two phases). */
  private static final ThreadLocal<long[]> EXECUTION_BEGIN = ThreadLocal.withInitial(() -> new long[1]);
  /** Time until the FlightInfo came back (DoPut of parameters, GetFlightInfo), all threads. */
  private static final java.util.concurrent.atomic.LongAdder INFO_NANOS =
      new java.util.concurrent.atomic.LongAdder();
  /** Time reading the streams (DoGet), all threads. */
  private static final java.util.concurrent.atomic.LongAdder STREAM_NANOS =
      new java.util.concurrent.atomic.LongAdder();

  /** Latencies and counts of one system over all its rounds. */
  private static final class Cell {
    private long[] latencies = new long[1024];
    private int count;
    private long nanos;
    private long infoNanos;
    private long streamNanos;

    /** Mean ms per statement until the FlightInfo, and reading the stream. */
    String split() {
      return String.format("%.2f+%.2f", infoNanos / 1e6 / count, streamNanos / 1e6 / count);
    }

    synchronized void add(long[] more, int n) {
      if (count + n > latencies.length) {
        latencies = Arrays.copyOf(latencies, Math.max(latencies.length * 2, count + n));
      }
      System.arraycopy(more, 0, latencies, count, n);
      count += n;
    }

    double rate() {
      return count / (nanos / 1e9);
    }

    double percentile(double p) {
      long[] sorted = Arrays.copyOf(latencies, count);
      Arrays.sort(sorted);
      return count == 0 ? Double.NaN
          : sorted[Math.min(count - 1, (int) Math.ceil(p * count) - 1)] / 1e6;
    }
  }

  /**
   * {@code connections} clients, each on its own thread and channel, run {@code kind} back to
   * back for {@code seconds}; with a cell, their latencies and the wall time are added to it.
   */
  private static void run(Supplier<FlightSqlClient> clients, boolean lake, Kind kind,
      int connections, double seconds, int rows, Cell cell) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(connections);
    List<FlightSqlClient> opened = new ArrayList<>();
    List<Connection> states = new ArrayList<>();
    try {
      for (int i = 0; i < connections; i++) {
        FlightSqlClient client = clients.get();
        opened.add(client);
        states.add(kind.open(client, lake));
      }
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(connections + 1);
      long[] deadline = new long[1];
      List<Future<long[]>> futures = new ArrayList<>();
      for (Connection state : states) {
        futures.add(threads.submit(() -> {
          long[] latencies = new long[4096];
          int n = 0;
          start.await();
          ThreadLocalRandom random = ThreadLocalRandom.current();
          long[] executionBegin = EXECUTION_BEGIN.get();
          while (true) {
            long begin = System.nanoTime();
            executionBegin[0] = begin;
            if (begin >= deadline[0]) {
              break;
            }
            state.execute(random.nextLong(rows));
            if (n == latencies.length) {
              latencies = Arrays.copyOf(latencies, n * 2);
            }
            latencies[n++] = System.nanoTime() - begin;
          }
          long[] result = Arrays.copyOf(latencies, n + 1);
          result[n] = n;
          return result;
        }));
      }
      INFO_NANOS.reset();
      STREAM_NANOS.reset();
      long begin = System.nanoTime();
      deadline[0] = begin + (long) (seconds * 1e9);
      start.await();
      List<long[]> results = new ArrayList<>();
      for (Future<long[]> future : futures) {
        results.add(future.get());
      }
      long elapsed = System.nanoTime() - begin;
      if (cell != null) {
        for (long[] result : results) {
          int n = (int) result[result.length - 1];
          cell.add(result, n);
        }
        cell.nanos += elapsed;
        cell.infoNanos += INFO_NANOS.sum();
        cell.streamNanos += STREAM_NANOS.sum();
      }
    } finally {
      for (Connection state : states) {
        state.close();
      }
      for (FlightSqlClient client : opened) {
        client.close();
      }
      threads.shutdownNow();
    }
  }

  // ---- ingest ----------------------------------------------------------------------------

  private static void ingest(FlightServers servers, Options options) throws Exception {
    int rows = options.ingestRows();
    String[] methods = {"CommandStatementIngest", "ADBC bulk ingest", "prepared INSERT batch"};
    String[] tables = {"ingest_command", "ingest_adbc", "ingest_prepared"};
    long[] nanos = new long[methods.length];
    long[][] perOp = new long[methods.length][options.ingestOps()];
    String loadBefore = loadAverage();
    Map<String, Object> adbcOptions = new HashMap<>();
    AdbcDriver.PARAM_URI.set(adbcOptions, "grpc+tcp://127.0.0.1:" + servers.lakePort);
    try (FlightSqlClient client = servers.lakeClient();
        AdbcDatabase database = new FlightSqlDriver(servers.root).open(adbcOptions);
        AdbcConnection adbc = database.connect()) {
      for (String table : tables) {
        client.executeUpdate("CREATE TABLE bench." + table
            + " (id BIGINT NOT NULL, name VARCHAR, score DOUBLE)");
      }
      try (FlightSqlClient.PreparedStatement insert =
          client.prepare("INSERT INTO bench.ingest_prepared VALUES (?, ?, ?)")) {
        // One warm-up operation per method, then ops rounds with the methods in turn.
        for (int op = -1; op < options.ingestOps(); op++) {
          long from = (long) (op + 1) * rows;
          for (int m = 0; m < methods.length; m++) {
            try (VectorSchemaRoot batch = FlightServers.points(servers.root, from, rows)) {
              long begin = System.nanoTime();
              long written = switch (m) {
                case 0 -> client.executeIngest(batch, new FlightSqlClient.ExecuteIngestOptions(
                    tables[0], TableDefinitionOptions.newBuilder()
                        .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL)
                        .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND).build(),
                    false, null, "bench", Map.of()));
                case 1 -> {
                  try (AdbcStatement statement =
                      adbc.bulkIngest("bench." + tables[1], BulkIngestMode.APPEND)) {
                    statement.bind(batch);
                    yield statement.executeUpdate().getAffectedRows();
                  }
                }
                default -> {
                  insert.setParameters(batch);
                  yield insert.executeUpdate();
                }
              };
              long took = System.nanoTime() - begin;
              if (written != rows) {
                throw new IllegalStateException(methods[m] + " wrote " + written + " of " + rows);
              }
              if (op >= 0) {
                nanos[m] += took;
                perOp[m][op] = took;
              }
            }
          }
        }
      }
    }
    System.out.printf("%nIngest into lake, %,d rows (bigint, varchar, double) per operation, %d"
        + " operations each, methods in turn; load avg %s -> %s%n", rows, options.ingestOps(),
        loadBefore, loadAverage());
    System.out.printf("%-24s %12s %10s %12s%n", "method", "rows/s", "p50 ms", "vs ingest");
    double base = (double) rows * options.ingestOps() / (nanos[0] / 1e9);
    for (int m = 0; m < methods.length; m++) {
      double rate = (double) rows * options.ingestOps() / (nanos[m] / 1e9);
      long[] sorted = perOp[m].clone();
      Arrays.sort(sorted);
      System.out.printf("%-24s %12.0f %10.1f %11.2fx%n", methods[m], rate,
          sorted[(sorted.length - 1) / 2] / 1e6, rate / base);
    }
  }

  // ---- plumbing --------------------------------------------------------------------------

  static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return fields[0];
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  private static Options parse(String[] args) {
    double seconds = 3;
    double warmup = 2;
    int rounds = 2;
    int rows = 10_000;
    int[] connections = {1, 16};
    int ingestRows = 10_000;
    int ingestOps = 10;
    String only = "";
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      if (value == null) {
        throw new IllegalArgumentException("option " + args[i] + " needs a value");
      }
      switch (args[i]) {
        case "--seconds" -> seconds = Double.parseDouble(value);
        case "--warmup" -> warmup = Double.parseDouble(value);
        case "--rounds" -> rounds = Integer.parseInt(value);
        case "--rows" -> rows = Integer.parseInt(value);
        case "--connections" -> connections =
            Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
        case "--ingest-rows" -> ingestRows = Integer.parseInt(value);
        case "--ingest-ops" -> ingestOps = Integer.parseInt(value);
        case "--only" -> only = value;
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; known: --seconds --warmup --rounds --rows --connections --ingest-rows"
            + " --ingest-ops --only statements|ingest");
      }
      i++;
    }
    return new Options(seconds, warmup, rounds, rows, connections, ingestRows, ingestOps, only);
  }

  static void deleteTree(Path directory) throws java.io.IOException {
    try (var paths = Files.walk(directory)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
