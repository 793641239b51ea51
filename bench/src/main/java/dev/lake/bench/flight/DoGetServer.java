package dev.lake.bench.flight;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One server of the DoGet benchmark, in its own JVM so its CPU time is its own:
 * {@code lake <rows> <dir>} starts lake's Flight SQL server and appends the rows to the log table
 * {@code bench.wide (a BIGINT NOT NULL, b DOUBLE NOT NULL)}; {@code reference <rows>} starts
 * Arrow's grpc-java {@link FlightServer} whose {@code getStream} serves the same rows from
 * memory, in batches of the log engine's block size. Row {@code i} is {@code (i, i / 4.0)}.
 * Either prints {@code DOGET-READY <port>} once it serves, then runs until its stdin closes.
 */
public final class DoGetServer {

  /** The rows of one record batch on both servers: the log engine's default block. */
  static final int BATCH_ROWS = 65_536;
  static final Schema SCHEMA = new Schema(List.of(
      Field.notNullable("a", new ArrowType.Int(64, true)),
      Field.notNullable("b", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
  static final String READY = "DOGET-READY ";
  static final String QUERY = "SELECT a, b FROM bench.wide";

  private DoGetServer() {}

  public static void main(String[] args) throws Exception {
    long rows = Long.parseLong(args[1]);
    BufferAllocator root = new RootAllocator();
    List<AutoCloseable> opened = new ArrayList<>();
    int port;
    if ("lake".equals(args[0])) {
      port = FlightServers.startLake(Path.of(args[2]), root, opened).port();
      loadLake(root, port, rows);
    } else {
      List<ArrowRecordBatch> batches = new ArrayList<>();
      opened.add(() -> batches.forEach(ArrowRecordBatch::close));
      for (long from = 0; from < rows; from += BATCH_ROWS) {
        try (VectorSchemaRoot data = rows(root, from, (int) Math.min(BATCH_ROWS, rows - from))) {
          batches.add(new VectorUnloader(data).getRecordBatch());
        }
      }
      FlightServer server = FlightServer.builder(root, Location.forGrpcInsecure("127.0.0.1", 0),
          new Reference(root, batches)).build().start();
      opened.add(server);
      port = server.getPort();
    }
    System.out.println(READY + port);
    System.out.flush();
    while (System.in.read() >= 0) {
      // runs until the benchmark closes stdin
    }
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    root.close();
  }

  /** Rows {@code [from, from + count)}; the caller closes the root. */
  static VectorSchemaRoot rows(BufferAllocator allocator, long from, int count) {
    VectorSchemaRoot data = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector a = (BigIntVector) data.getVector(0);
    Float8Vector b = (Float8Vector) data.getVector(1);
    a.allocateNew(count);
    b.allocateNew(count);
    for (int i = 0; i < count; i++) {
      a.set(i, from + i);
      b.set(i, (from + i) / 4.0);
    }
    data.setRowCount(count);
    return data;
  }

  // Appended through lake's own CommandStatementIngest, 16 blocks per call (one version each).
  private static void loadLake(BufferAllocator root, int port, long rows) throws Exception {
    try (FlightSqlClient client = new FlightSqlClient(FlightClient.builder(root,
        Location.forGrpcInsecure("127.0.0.1", port)).build())) {
      client.executeUpdate("CREATE SCHEMA bench");
      client.executeUpdate("CREATE TABLE bench.wide (a BIGINT NOT NULL, b DOUBLE NOT NULL)");
      int chunk = 16 * BATCH_ROWS;
      for (long from = 0; from < rows; from += chunk) {
        try (VectorSchemaRoot data = rows(root, from, (int) Math.min(chunk, rows - from))) {
          client.executeIngest(data, new FlightSqlClient.ExecuteIngestOptions("wide",
              TableDefinitionOptions.newBuilder()
                  .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL)
                  .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND).build(),
              false, null, "bench", Map.of()));
        }
      }
    }
  }

  /**
   * Arrow's reference producer as its documentation writes one: the batches are loaded into a
   * root (the buffers are retained, not copied) and put only while the listener is ready. The
   * readiness is polled (every 20 microseconds): Arrow's {@code CallbackBackpressureStrategy}
   * waits for an on-ready callback that gRPC delivers on the call's serialized executor, which
   * this very {@code getStream} occupies, so each wait would run to its timeout.
   */
  private static final class Reference extends NoOpFlightProducer {
    private final BufferAllocator allocator;
    private final List<ArrowRecordBatch> batches;

    Reference(BufferAllocator allocator, List<ArrowRecordBatch> batches) {
      this.allocator = allocator;
      this.batches = batches;
    }

    @Override
    public void getStream(FlightProducer.CallContext context, Ticket ticket,
        FlightProducer.ServerStreamListener listener) {
      try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
        VectorLoader loader = new VectorLoader(root);
        listener.start(root);
        for (ArrowRecordBatch batch : batches) {
          while (!listener.isReady()) {
            if (listener.isCancelled()) {
              return;
            }
            LockSupport.parkNanos(20_000);
          }
          loader.load(batch);
          listener.putNext();
        }
        listener.completed();
      }
    }
  }
}
