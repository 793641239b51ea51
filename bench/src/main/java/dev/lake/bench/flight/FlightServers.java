package dev.lake.bench.flight;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.CatalogCache;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.flight.CatalogSqlCatalog;
import dev.lake.flight.LakeFlightServer;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import dev.lake.sql.SqlEngine;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.example.FlightSqlExample;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The two Flight SQL servers the statement benchmark compares, both in this process on loopback:
 * lake's (RocksDB registry, every discovered engine, as {@code lake dev} wires it) and Arrow's own
 * Derby-backed {@link FlightSqlExample}. Both hold the same {@code points} table: row {@code i}
 * is {@code (i, 'robot-' + i % 97, i / 4.0)}.
 */
final class FlightServers implements AutoCloseable {

  /** The benchmark table's columns, as lake stores them and the clients bind them. */
  static final Schema POINTS = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.nullable("name", ArrowType.Utf8.INSTANCE),
      Field.nullable("score", new ArrowType.FloatingPoint(
          org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE))));

  final BufferAllocator root = new RootAllocator();
  private final List<AutoCloseable> opened = new ArrayList<>();
  final int lakePort;
  final int examplePort;

  FlightServers(Path directory, int rows) throws Exception {
    lakePort = startLake(directory, root, opened).port();

    // FlightSqlExample keeps its Derby database under target/ relative to derby.system.home.
    System.setProperty("derby.system.home", directory.toString());
    examplePort = freePort();
    Location location = Location.forGrpcInsecure("127.0.0.1", examplePort);
    FlightSqlExample example = new FlightSqlExample(location, FlightSqlExample.DB_NAME);
    // The example closes its own allocator, which still holds the result sets its statement
    // caches keep: its leak report is the peer's, not lake's, and does not fail the run.
    opened.add(() -> {
      try {
        example.close();
      } catch (IllegalStateException leakedByThePeer) {
        // ignored, see above
      }
    });
    BufferAllocator exampleAllocator = new RootAllocator();
    opened.add(exampleAllocator);
    FlightServer exampleServer =
        FlightServer.builder(exampleAllocator, location, example).build().start();
    opened.add(exampleServer);

    loadLake(rows);
    loadDerby(rows);
  }

  /**
   * lake's registry under {@code directory} as {@code lake dev} wires it (RocksDB, every
   * discovered engine); what it opens is added to {@code opened}, to be closed in reverse order.
   */
  static CatalogCache registry(Path directory, List<AutoCloseable> opened) {
    RocksDbMetaStore store = RocksDbMetaStore.open(directory.resolve("meta"));
    opened.add(store);
    java.util.HashMap<String, TableEngine> engines = new java.util.HashMap<>();
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      TableEngine engine = factory.create(Map.of());
      engines.put(factory.name(), engine);
      opened.add(engine);
    }
    Catalog catalog = Catalog.open(store, engines, directory.resolve("warehouse"));
    opened.add(catalog);
    CatalogCache registry = CatalogCache.start(catalog, engines);
    opened.add(registry);
    return registry;
  }

  /**
   * Starts lake's Flight SQL server on a free loopback port over {@link #registry}; what it opened
   * (the server last) is added to {@code opened} for the caller to close in reverse order.
   */
  static LakeFlightServer startLake(Path directory, BufferAllocator root,
      List<AutoCloseable> opened) throws Exception {
    CatalogCache registry = registry(directory, opened);
    LakeFlightServer lake = LakeFlightServer.builder().registry(registry)
        .sqlEngine(new SqlEngine(new CatalogSqlCatalog(registry), 1L << 30,
            Runtime.getRuntime().availableProcessors()))
        .allocator(root)
        .build();
    lake.start();
    opened.add(lake);
    return lake;
  }

  /** A new client of lake's server; the caller closes it. */
  FlightSqlClient lakeClient() {
    return client(lakePort);
  }

  /** A new client of the example server; the caller closes it. */
  FlightSqlClient exampleClient() {
    return client(examplePort);
  }

  private FlightSqlClient client(int port) {
    return new FlightSqlClient(FlightClient.builder(root,
        Location.forGrpcInsecure("127.0.0.1", port)).build());
  }

  private void loadLake(int rows) throws Exception {
    try (FlightSqlClient client = lakeClient();
        VectorSchemaRoot data = points(root, 0, rows)) {
      client.executeUpdate("CREATE SCHEMA bench");
      client.executeIngest(data, new FlightSqlClient.ExecuteIngestOptions("points",
          TableDefinitionOptions.newBuilder()
              .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
              .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_FAIL).build(),
          false, null, "bench", Map.of()));
    }
  }

  /** Derby keeps the same rows with {@code id} as its primary key, as a user of Derby would. */
  private static void loadDerby(int rows) throws SQLException {
    try (Connection connection = DriverManager.getConnection(
        "jdbc:derby:target/" + FlightSqlExample.DB_NAME)) {
      try (Statement ddl = connection.createStatement()) {
        ddl.execute("CREATE TABLE points (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(64),"
            + " score DOUBLE)");
      }
      connection.setAutoCommit(false);
      try (PreparedStatement insert =
          connection.prepareStatement("INSERT INTO points VALUES (?, ?, ?)")) {
        for (int i = 0; i < rows; i++) {
          insert.setLong(1, i);
          insert.setString(2, name(i));
          insert.setDouble(3, i / 4.0);
          insert.addBatch();
          if (i % 1000 == 999) {
            insert.executeBatch();
          }
        }
        insert.executeBatch();
      }
      connection.commit();
    }
  }

  static String name(long i) {
    return "robot-" + (i % 97);
  }

  /** Rows {@code [from, from + count)} of the points table; the caller closes the root. */
  static VectorSchemaRoot points(BufferAllocator allocator, long from, int count) {
    VectorSchemaRoot data = VectorSchemaRoot.create(POINTS, allocator);
    BigIntVector id = (BigIntVector) data.getVector(0);
    VarCharVector name = (VarCharVector) data.getVector(1);
    Float8Vector score = (Float8Vector) data.getVector(2);
    id.allocateNew(count);
    name.allocateNew(count * 10L, count);
    score.allocateNew(count);
    for (int i = 0; i < count; i++) {
      long row = from + i;
      id.set(i, row);
      name.setSafe(i, name(row).getBytes(StandardCharsets.UTF_8));
      score.set(i, row / 4.0);
    }
    data.setRowCount(count);
    return data;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    Exception failure = null;
    for (int i = opened.size() - 1; i >= 0; i--) {
      try {
        opened.get(i).close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    root.close();
    if (failure != null) {
      throw failure;
    }
  }
}
