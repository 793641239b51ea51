package dev.lake.bench.flight;

import dev.lake.flight.LakeFlightServer;
import dev.lake.sdk.AppendResult;
import dev.lake.sdk.Credentials;
import dev.lake.sdk.LakeClient;
import dev.lake.sdk.QueryResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Rows/s of the SDK's exactly-once {@code LakeClient.append} of 10,000-row batches (one table
 * version each; the payload serialized once, the operation id sent), beside the stock {@code
 * FlightSqlClient.executeIngest} of the same batches into a twin table (no operation id), against
 * one in-process lake server, alternately for {@code --rounds} rounds of {@code --ops} operations.
 * Prints rows/s of both, the ratio SDK/ingest (above 1: the SDK is faster) and checks each table
 * holds exactly the rows sent.
 *
 * <p>Run: {@code bench/sdk-append [--ops 50] [--rows 10000] [--rounds 3]}.
 */
public final class SdkAppendBench {

  private static final Schema SCHEMA = new Schema(List.of(
      Field.nullable("id", new ArrowType.Int(64, true)),
      Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      Field.nullable("name", ArrowType.Utf8.INSTANCE)));

  private SdkAppendBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new java.util.HashMap<>(Map.of("--ops", "50", "--rows", "10000",
        "--rounds", "3"));
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--help")) {
        System.out.println("bench/sdk-append [--ops 50] [--rows 10000] [--rounds 3]: rows/s of"
            + " LakeClient.append beside FlightSqlClient.executeIngest of the same batches");
        return;
      }
      if (!options.containsKey(args[i]) || i + 1 >= args.length) {
        throw new IllegalArgumentException("unknown option or missing value: " + args[i]
            + " (options: --ops, --rows, --rounds)");
      }
      options.put(args[i], args[++i]);
    }
    int ops = Integer.parseInt(options.get("--ops"));
    int rows = Integer.parseInt(options.get("--rows"));
    int rounds = Integer.parseInt(options.get("--rounds"));
    Path directory = Files.createTempDirectory("lake-sdk-append");
    List<AutoCloseable> opened = new ArrayList<>();
    try (BufferAllocator root = new RootAllocator()) {
      LakeFlightServer server = FlightServers.startLake(directory, root, opened);
      String uri = "grpc://127.0.0.1:" + server.port();
      try (LakeClient lake = LakeClient.connect(uri, Credentials.none());
          FlightClient flight = FlightClient.builder(root,
              Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
        FlightSqlClient ingest = new FlightSqlClient(flight);
        lake.execute("CREATE SCHEMA bench");
        lake.execute("CREATE TABLE bench.sdk (id BIGINT, score DOUBLE, name VARCHAR)");
        lake.execute("CREATE TABLE bench.ingest (id BIGINT, score DOUBLE, name VARCHAR)");
        FlightSqlClient.ExecuteIngestOptions into = new FlightSqlClient.ExecuteIngestOptions(
            "ingest", TableDefinitionOptions.newBuilder()
                .setIfNotExist(TableDefinitionOptions.TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL)
                .setIfExists(TableDefinitionOptions.TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
                .build(), false, null, "bench", Map.of());
        // Warm-up: a few of each.
        run(lake, ingest, into, root, 5, rows, 0);
        System.out.printf("SDK append vs executeIngest, %d ops of %,d rows per round%n", ops, rows);
        System.out.printf("%-6s %14s %14s %8s%n", "round", "sdk rows/s", "ingest rows/s", "ratio");
        long sent = 5L * rows;
        for (int round = 1; round <= rounds; round++) {
          double[] rates = run(lake, ingest, into, root, ops, rows, sent);
          sent += (long) ops * rows;
          System.out.printf("%-6d %,14.0f %,14.0f %7.2fx%n", round, rates[0], rates[1],
              rates[0] / rates[1]);
        }
        for (String table : List.of("bench.sdk", "bench.ingest")) {
          try (QueryResult result = lake.query("SELECT count(*) AS n, count(DISTINCT id) AS d FROM " + table)) {
            var row = result.rows().iterator().next();
            if (row.getLong("n") != sent || row.getLong("d") != sent) {
              throw new IllegalStateException(table + " holds " + row.getLong("n") + " rows ("
                  + row.getLong("d") + " distinct), sent " + sent);
            }
          }
        }
        System.out.printf("checked: each table holds exactly the %,d rows sent%n", sent);
      }
    } finally {
      for (int i = opened.size() - 1; i >= 0; i--) {
        opened.get(i).close();
      }
      FlightStatementBench.deleteTree(directory);
    }
  }

  /** {@code ops} appends through each path, ids from {@code first}; rows/s of SDK, ingest. */
  private static double[] run(LakeClient lake, FlightSqlClient ingest,
      FlightSqlClient.ExecuteIngestOptions into, BufferAllocator allocator, int ops, int rows,
      long first) throws Exception {
    long start = System.nanoTime();
    for (int op = 0; op < ops; op++) {
      try (VectorSchemaRoot batch = fill(VectorSchemaRoot.create(SCHEMA, allocator),
          first + (long) op * rows, rows)) {
        AppendResult done = lake.append("bench.sdk", batch);
        if (done.rows() != rows) {
          throw new IllegalStateException("append answered " + done.rows() + " rows");
        }
      }
    }
    double sdk = (double) ops * rows / ((System.nanoTime() - start) / 1e9);
    start = System.nanoTime();
    for (int op = 0; op < ops; op++) {
      try (VectorSchemaRoot root = fill(VectorSchemaRoot.create(SCHEMA, allocator),
          first + (long) op * rows, rows)) {
        if (ingest.executeIngest(root, into) != rows) {
          throw new IllegalStateException("ingest answered another row count");
        }
      }
    }
    double plain = (double) ops * rows / ((System.nanoTime() - start) / 1e9);
    return new double[] {sdk, plain};
  }

  private static VectorSchemaRoot fill(VectorSchemaRoot root, long from, int rows) {
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    Float8Vector score = (Float8Vector) root.getVector("score");
    VarCharVector name = (VarCharVector) root.getVector("name");
    for (int i = 0; i < rows; i++) {
      id.setSafe(i, from + i);
      score.setSafe(i, (from + i) * 0.5);
      name.setSafe(i, ("robot-" + ((from + i) % 97)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    root.setRowCount(rows);
    return root;
  }
}
