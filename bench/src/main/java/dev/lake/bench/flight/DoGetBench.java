package dev.lake.bench.flight;

import dev.lake.bench.tpch.ProcessCpu;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * {@code DoGet} of a large int64/float64 result: lake (a {@code SELECT a, b} of a log table) and
 * Arrow's reference grpc-java {@code FlightServer} (the same rows, in batches of the same size,
 * from memory), each in its own child JVM ({@link DoGetServer}), read by the stock {@code
 * FlightClient} in this process with 1 and 2 concurrent clients, the two servers alternately for
 * {@code --rounds} rounds after one warm-up read each.
 *
 * <p>Per cell: GB/s (GiB of column values over wall time, every client reading the whole
 * result), the server's CPU seconds per GiB (the child's user + system time around the reads,
 * every thread: gRPC, Netty, workers, GC, JIT), the client's (this process's) CPU per GiB, the
 * ratios lake/reference and the load average. Every read is checked: row count, the sum of
 * {@code a} and the sum of the bits of {@code b}. lake's {@code GetFlightInfo} (planning) runs
 * before the measured window; its {@code DoGet} scans the table (mmapped segments, CRC check of
 * every block) and encodes each batch, which the reference does not have to do.
 *
 * <p>Run: {@code bench/doget [--gb 0.25] [--rounds 2] [--clients 1,2]}; the figure is
 * {@code --gb 1}. {@code LAKE_BENCH_JFR=/tmp/doget.jfr} records lake's server with JFR.
 */
public final class DoGetBench {

  private static final long GIB = 1L << 30;

  private DoGetBench() {}

  private record Options(double gb, int rounds, int[] clients) {}

  /** What one server did over every measured read of a cell. */
  private static final class Cell {
    long bytes;
    long nanos;
    long serverCpu;
    long clientCpu;
    long batches;

    double gbPerSecond() {
      return bytes / (double) GIB / (nanos / 1e9);
    }

    double serverCpuPerGb() {
      return serverCpu / 1e9 / (bytes / (double) GIB);
    }

    double clientCpuPerGb() {
      return clientCpu / 1e9 / (bytes / (double) GIB);
    }
  }

  public static void main(String[] args) throws Exception {
    Options options = parse(args);
    long rows = Math.round(options.gb() * GIB / 16);
    Path directory = Files.createTempDirectory("lake-doget-bench");
    List<String> lakeJvm = new ArrayList<>();
    String jfr = System.getenv("LAKE_BENCH_JFR");
    if (jfr != null && !jfr.isEmpty()) {
      lakeJvm.add("-XX:StartFlightRecording=filename=" + jfr + ",settings=profile");
    }
    long loading = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator();
        Child lake = Child.start("lake", lakeJvm, Long.toString(rows),
            directory.toString());
        Child reference = Child.start("reference", List.of(), Long.toString(rows))) {
      System.out.printf("%nDoGet of %,d rows (a int64, b float64: %.2f GiB of values), batches"
          + " of %,d rows; lake (log table, SELECT a, b) beside Arrow's reference FlightServer"
          + " (same batches from memory), stock FlightClient, each server its own JVM;"
          + " servers ready in %.1f s%n", rows, rows * 16.0 / GIB, DoGetServer.BATCH_ROWS,
          (System.nanoTime() - loading) / 1e9);
      Expected expected = Expected.of(rows);
      Server lakeServer = new Server(lake, allocator, true);
      Server referenceServer = new Server(reference, allocator, false);
      read(lakeServer, 1, expected, null);
      read(referenceServer, 1, expected, null);
      System.out.printf("%7s | %9s %9s %7s | %11s %11s %7s | %11s %11s | %-13s | %s%n",
          "clients", "lake GB/s", "ref GB/s", "ratio", "lake srv s/GB", "ref srv s/GB",
          "ratio", "lake cli s/GB", "ref cli s/GB", "load avg", "batches lake ref");
      for (int clients : options.clients()) {
        String loadBefore = FlightStatementBench.loadAverage();
        Cell lakeCell = new Cell();
        Cell referenceCell = new Cell();
        for (int round = 0; round < options.rounds(); round++) {
          read(lakeServer, clients, expected, lakeCell);
          read(referenceServer, clients, expected, referenceCell);
        }
        System.out.printf("%7d | %9.3f %9.3f %6.2fx | %13.3f %12.3f %6.2fx | %13.3f %12.3f |"
            + " %-13s | %d %d%n", clients, lakeCell.gbPerSecond(), referenceCell.gbPerSecond(),
            lakeCell.gbPerSecond() / referenceCell.gbPerSecond(), lakeCell.serverCpuPerGb(),
            referenceCell.serverCpuPerGb(),
            lakeCell.serverCpuPerGb() / referenceCell.serverCpuPerGb(),
            lakeCell.clientCpuPerGb(), referenceCell.clientCpuPerGb(),
            loadBefore + " -> " + FlightStatementBench.loadAverage(),
            lakeCell.batches / options.rounds() / clients,
            referenceCell.batches / options.rounds() / clients);
      }
      System.out.println("GB = GiB of column values; ratio = lake/reference (throughput: above 1"
          + " is lake faster; server CPU: below 1 is lake cheaper); goals 1.3x (1 stream),"
          + " 1.6x (2 clients), CPU 0.5x");
    } finally {
      FlightStatementBench.deleteTree(directory);
    }
  }

  /** The row count and checksums every read must give. */
  private record Expected(long rows, long sumA, long sumBBits) {
    static Expected of(long rows) {
      long sumA = 0;
      long sumBBits = 0;
      for (long i = 0; i < rows; i++) {
        sumA += i;
        sumBBits += Double.doubleToRawLongBits(i / 4.0);
      }
      return new Expected(rows, sumA, sumBBits);
    }
  }

  /** A server child and how its clients get a ticket. */
  private record Server(Child child, BufferAllocator allocator, boolean lake) {
    FlightClient client() {
      return FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", child.port))
          .maxInboundMessageSize(Integer.MAX_VALUE).build();
    }

    /** lake plans the query (GetFlightInfo); the reference serves any ticket. */
    Ticket ticket(FlightClient client) {
      if (!lake) {
        return new Ticket(new byte[] {1});
      }
      FlightSqlClient sql = new FlightSqlClient(client);
      return sql.execute(DoGetServer.QUERY).getEndpoints().get(0).getTicket();
    }
  }

  /**
   * {@code clients} stock FlightClients, each on its own channel and thread, read the whole
   * result at once; with a cell, the wall time, bytes and both processes' CPU are added to it.
   */
  private static void read(Server server, int clients, Expected expected, Cell cell)
      throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(clients);
    List<FlightClient> opened = new ArrayList<>();
    try {
      List<Ticket> tickets = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        FlightClient client = server.client();
        opened.add(client);
        tickets.add(server.ticket(client));
      }
      CyclicBarrier start = new CyclicBarrier(clients + 1);
      List<Future<long[]>> futures = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        FlightClient client = opened.get(i);
        Ticket ticket = tickets.get(i);
        futures.add(threads.submit(() -> {
          start.await();
          return readAll(client, ticket, expected, server.lake() ? "lake" : "reference");
        }));
      }
      long serverCpu = server.child().cpuNanos();
      long clientCpu = ProcessCpu.nanos();
      long begin = System.nanoTime();
      start.await();
      long batches = 0;
      for (Future<long[]> future : futures) {
        batches += future.get()[0];
      }
      long elapsed = System.nanoTime() - begin;
      if (cell != null) {
        cell.nanos += elapsed;
        cell.serverCpu += server.child().cpuNanos() - serverCpu;
        cell.clientCpu += ProcessCpu.nanos() - clientCpu;
        cell.bytes += expected.rows() * 16 * clients;
        cell.batches += batches;
      }
    } finally {
      for (FlightClient client : opened) {
        client.close();
      }
      threads.shutdownNow();
    }
  }

  /** Reads one stream to its end, checking rows and checksums; returns {batches}. */
  private static long[] readAll(FlightClient client, Ticket ticket, Expected expected,
      String name) throws Exception {
    long rows = 0;
    long batches = 0;
    long sumA = 0;
    long sumBBits = 0;
    try (FlightStream stream = client.getStream(ticket)) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        int count = root.getRowCount();
        ArrowBuf a = root.getVector(0).getDataBuffer();
        ArrowBuf b = root.getVector(1).getDataBuffer();
        for (int i = 0; i < count; i++) {
          sumA += a.getLong((long) i * 8);
          sumBBits += b.getLong((long) i * 8);
        }
        rows += count;
        batches++;
      }
    }
    if (rows != expected.rows() || sumA != expected.sumA() || sumBBits != expected.sumBBits()) {
      throw new IllegalStateException(name + " answered " + rows + " rows, sums " + sumA + "/"
          + sumBBits + "; expected " + expected);
    }
    return new long[] {batches};
  }

  /** A server JVM started from this classpath; killed when this JVM exits. */
  private static final class Child implements AutoCloseable {
    private final Process process;
    private final int port;

    private Child(Process process, int port) {
      this.process = process;
      this.port = port;
    }

    static Child start(String kind, List<String> jvmOptions, String... args) throws Exception {
      List<String> command = new ArrayList<>(List.of(
          ProcessHandle.current().info().command().orElse("java"), "-Xmx2g",
          "-XX:MaxDirectMemorySize=8g", "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
          "--add-modules=jdk.incubator.vector", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
      command.addAll(jvmOptions);
      command.addAll(List.of("-cp", System.getProperty("java.class.path"),
          DoGetServer.class.getName(), kind));
      command.addAll(List.of(args));
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
      CompletableFuture<Integer> port = new CompletableFuture<>();
      Thread pump = new Thread(() -> {
        try (BufferedReader lines = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = lines.readLine()) != null) {
            if (line.startsWith(DoGetServer.READY)) {
              port.complete(Integer.parseInt(line.substring(DoGetServer.READY.length()).trim()));
            } else {
              System.err.println("[" + kind + "] " + line);
            }
          }
        } catch (IOException ignored) {
          // the process ended
        }
        port.completeExceptionally(new IllegalStateException(kind + " server exited"));
      }, "doget-" + kind + "-output");
      pump.setDaemon(true);
      pump.start();
      try {
        return new Child(process, port.get(600, TimeUnit.SECONDS));
      } catch (Exception e) {
        process.destroyForcibly();
        throw e;
      }
    }

    /** The child's CPU time so far (user + system, all threads; /proc, 10 ms ticks). */
    long cpuNanos() {
      return process.toHandle().info().totalCpuDuration()
          .orElseThrow(() -> new IllegalStateException("no CPU time for the server process"))
          .toNanos();
    }

    @Override
    public void close() throws Exception {
      process.getOutputStream().close();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private static Options parse(String[] args) {
    double gb = 0.25;
    int rounds = 2;
    int[] clients = {1, 2};
    for (int i = 0; i < args.length; i += 2) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      if (value == null) {
        throw new IllegalArgumentException("option " + args[i] + " needs a value");
      }
      switch (args[i]) {
        case "--gb" -> gb = Double.parseDouble(value);
        case "--rounds" -> rounds = Integer.parseInt(value);
        case "--clients" -> clients =
            Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; known: --gb --rounds --clients");
      }
    }
    return new Options(gb, rounds, clients);
  }
}
