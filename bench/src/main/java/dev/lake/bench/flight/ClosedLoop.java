package dev.lake.bench.flight;

import dev.lake.bench.metasrv.Latencies;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Closed-loop stock {@code FlightSqlClient}s over a measured window, shared by the fairness and
 * read-flood benchmarks: each client its own channel and thread, every query {@code
 * GetFlightInfo} then {@code DoGet} of each endpoint, the stream drained and checked.
 */
final class ClosedLoop {

  private ClosedLoop() {}

  /** One kind of query of one client: runs one, checks its result. */
  interface Query {
    void run(FlightSqlClient client, CallOption call) throws Exception;
  }

  /** Latencies (ns) of one load's queries, over every window it was measured in. */
  static final class Cell {
    final Latencies latencies = new Latencies();
    /** Queries that finished inside the measured windows. */
    private long completed;
    private double seconds;
    private long refused;

    synchronized void finished() {
      completed++;
    }

    synchronized void refused() {
      refused++;
    }

    synchronized long completed() {
      return completed;
    }

    synchronized long refusals() {
      return refused;
    }

    synchronized double rate() {
      return completed / seconds;
    }

    int count() {
      return latencies.count();
    }

    double percentile(double p) {
      return latencies.millis(p);
    }
  }

  /** One group of clients in a phase: the call option each call carries, the query, the cell. */
  record Load(CallOption call, Query query, int clients, Cell cell) {}

  /** What to do when a phase's measured window opens and when it closes (e.g. sample CPU). */
  interface Window {
    Window NONE = new Window() {};

    default void opened() {}

    default void closed() {}
  }

  /** {@code rows} rows of {@code FlightServers.points} starting at {@code from}, batch by batch. */
  static void load(BufferAllocator root, FlightSqlClient client, CallOption call, String schema,
      String table, long rows, int batchRows) {
    for (long from = 0; from < rows; from += batchRows) {
      ingest(root, client, call, schema, table, from, (int) Math.min(batchRows, rows - from),
          from == 0);
    }
  }

  /** Ingests rows {@code [from, from + rows)}, creating the table when {@code create}. */
  static void ingest(BufferAllocator root, FlightSqlClient client, CallOption call, String schema,
      String table, long from, int rows, boolean create) {
    try (VectorSchemaRoot batch = FlightServers.points(root, from, rows)) {
      TableDefinitionOptions definition = TableDefinitionOptions.newBuilder()
          .setIfNotExist(create ? TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE
              : TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL)
          .setIfExists(create ? TableExistsOption.TABLE_EXISTS_OPTION_FAIL
              : TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
          .build();
      long written = client.executeIngest(batch, new FlightSqlClient.ExecuteIngestOptions(table,
          definition, false, null, schema, Map.of()), call);
      if (written != rows) {
        throw new IllegalStateException("ingest into " + schema + "." + table + " wrote "
            + written + " of " + rows + " rows");
      }
    }
  }

  /** A new plaintext client of {@code 127.0.0.1:port}, its own channel; the caller closes it. */
  static FlightSqlClient client(BufferAllocator root, int port) {
    return new FlightSqlClient(FlightClient.builder(root,
        Location.forGrpcInsecure("127.0.0.1", port)).build());
  }

  /**
   * The point query {@code SELECT id, name, score FROM <table> WHERE id = <random below rows>}
   * of a table of {@code FlightServers.points}; checks the one row.
   */
  static Query point(String table, long rows) {
    return (client, call) -> {
      long id = ThreadLocalRandom.current().nextLong(rows);
      long[] found = {0};
      drain(client, client.execute("SELECT id, name, score FROM " + table + " WHERE id = " + id,
          call), call, root -> {
            for (int r = 0; r < root.getRowCount(); r++) {
              long got = ((BigIntVector) root.getVector(0)).get(r);
              String name = new String(((VarCharVector) root.getVector(1)).get(r),
                  StandardCharsets.UTF_8);
              if (got != id || !name.equals(FlightServers.name(id))) {
                throw new IllegalStateException("point query for id " + id + " got (" + got
                    + ", " + name + ")");
              }
              found[0]++;
            }
          });
      if (found[0] != 1) {
        throw new IllegalStateException("point query for id " + id + ": " + found[0] + " rows");
      }
    };
  }

  /** {@code DoGet} of every endpoint of {@code info}, each batch given to {@code check}. */
  static void drain(FlightSqlClient client, FlightInfo info, CallOption call,
      Consumer<VectorSchemaRoot> check) throws Exception {
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      try (FlightStream stream = client.getStream(endpoint.getTicket(), call)) {
        while (stream.next()) {
          check.accept(stream.getRoot());
        }
      }
    }
  }

  /** {@link #phase(BufferAllocator, int, double, double, Load, Load, Window)} with no window hook. */
  static void phase(BufferAllocator root, int port, double warmup, double seconds, Load first,
      Load second) throws Exception {
    phase(root, port, warmup, seconds, first, second, Window.NONE);
  }

  /**
   * The {@code first} clients start; after {@code warmup} seconds the {@code second} clients
   * start, and both run for {@code seconds} more, the measured window: queries that end within it
   * count toward the rates, and the latency of every query that starts or ends within it is
   * recorded (a query started in the window is waited for). Refused queries ({@code
   * RESOURCE_EXHAUSTED}) are counted and retried after 10 ms.
   */
  static void phase(BufferAllocator root, int port, double warmup, double seconds, Load first,
      Load second, Window hook) throws Exception {
    phase(root, new int[] {port}, warmup, seconds, first, second, hook);
  }

  /** As above, the clients of each load spread over {@code ports} in turn. */
  static void phase(BufferAllocator root, int[] ports, double warmup, double seconds, Load first,
      Load second, Window hook) throws Exception {
    ExecutorService threads =
        Executors.newFixedThreadPool(Math.max(1, first.clients() + second.clients()));
    List<FlightSqlClient> clients = new ArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLongArray window = new AtomicLongArray(new long[] {Long.MAX_VALUE, Long.MAX_VALUE});
    try {
      List<Future<?>> running = new ArrayList<>();
      for (Load load : List.of(first, second)) {
        for (int i = 0; i < load.clients(); i++) {
          clients.add(client(root, ports[i % ports.length]));
        }
      }
      for (int i = 0; i < first.clients(); i++) {
        FlightSqlClient client = clients.get(i);
        running.add(threads.submit(() -> loop(client, first, stop, window)));
      }
      Thread.sleep((long) (warmup * 1000));
      hook.opened();
      long start = System.nanoTime();
      window.set(1, start + (long) (seconds * 1e9));
      window.set(0, start);
      for (int i = 0; i < second.clients(); i++) {
        FlightSqlClient client = clients.get(first.clients() + i);
        running.add(threads.submit(() -> loop(client, second, stop, window)));
      }
      long left;
      while ((left = window.get(1) - System.nanoTime()) > 0) {
        Thread.sleep(Math.max(1, left / 1_000_000));
      }
      hook.closed();
      stop.set(true);
      for (Future<?> future : running) {
        future.get();
      }
      for (Load load : List.of(first, second)) {
        if (load.cell() != null) {
          synchronized (load.cell()) {
            load.cell().seconds += seconds;
          }
        }
      }
    } finally {
      stop.set(true);
      threads.shutdownNow();
      for (FlightSqlClient client : clients) {
        client.close();
      }
    }
  }

  private static Void loop(FlightSqlClient client, Load load, AtomicBoolean stop,
      AtomicLongArray window) throws Exception {
    Cell cell = load.cell();
    while (!stop.get()) {
      long begin = System.nanoTime();
      try {
        load.query().run(client, load.call());
      } catch (FlightRuntimeException e) {
        if (e.status().code() != FlightStatusCode.RESOURCE_EXHAUSTED) {
          throw e;
        }
        if (cell != null) {
          cell.refused();
        }
        Thread.sleep(10);
        continue;
      }
      long end = System.nanoTime();
      boolean endedInWindow = end >= window.get(0) && end <= window.get(1);
      if (cell != null && (begin >= window.get(0) || endedInWindow)) {
        cell.latencies.add(end - begin);
        if (endedInWindow) {
          cell.finished();
        }
      }
    }
    return null;
  }
}
