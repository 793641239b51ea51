package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.RestNamespace;
import org.lance.namespace.errors.LanceNamespaceException;
import org.lance.namespace.model.CountTableRowsRequest;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeregisterTableRequest;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListTablesRequest;
import org.lance.namespace.model.RegisterTableRequest;
import org.lance.namespace.model.RenameTableRequest;
import org.lance.namespace.model.TableExistsRequest;

/**
 * {@code lake dev --lance-rest-port}: the stock REST namespace client inside lance-core 7.0.0
 * ({@code LanceNamespace.connect("rest", ...)}) and stock {@code Dataset.write()} by namespace and
 * table id drive lake's registry, and lake's Flight SQL sees what they wrote.
 */
class LanceRestStockClientTest {

  private static final Schema EPISODES = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.nullable("robot", ArrowType.Utf8.INSTANCE)));
  private static final List<String> ROBOTS = List.of("robots");
  private static final List<String> RUNS = List.of("robots", "runs");

  @TempDir Path dir;
  private BufferAllocator allocator;
  private DevServer server;
  private RestNamespace client;

  @BeforeEach
  void start() {
    allocator = new RootAllocator();
    server = DevServer.start(dir, "127.0.0.1", 0, QueryLimits.defaults(), null, 0);
    client = connect();
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    server.close();
    allocator.close();
  }

  @Test
  void stockClientCreatesWritesAppendsDeregistersRegistersRenamesAndDropsAndSqlSeesIt() throws Exception {
    client.createNamespace(new CreateNamespaceRequest().id(ROBOTS));
    assertTrue(client.listNamespaces(new ListNamespacesRequest().id(List.of())).getNamespaces().contains("robots"));

    write(client, RUNS, WriteParams.WriteMode.CREATE, 0, 3).close();
    assertEquals(List.of("runs"), List.copyOf(client.listTables(new ListTablesRequest().id(ROBOTS)).getTables()));

    DescribeTableResponse described = client.describeTable(new DescribeTableRequest().id(RUNS).loadDetailedMetadata(true));
    assertEquals("runs", described.getTable());
    assertEquals(ROBOTS, described.getNamespace());
    assertEquals(1L, described.getVersion(), "Lance numbers the first write version 1");
    assertEquals(List.of("id", "robot"), described.getSchema().getFields().stream().map(f -> f.getName()).toList());
    assertEquals("int64", described.getSchema().getFields().get(0).getType().getType());
    assertEquals(1, described.getStats().getNumFragments());
    assertFalse(described.getManagedVersioning());
    assertEquals(3L, client.countTableRows(new CountTableRowsRequest().id(RUNS)));

    try (RestNamespace second = connect()) {
      write(second, RUNS, WriteParams.WriteMode.APPEND, 3, 2).close();
    }
    assertEquals(5L, client.countTableRows(new CountTableRowsRequest().id(RUNS)));
    assertEquals(2L, client.describeTable(new DescribeTableRequest().id(RUNS).loadDetailedMetadata(true)).getVersion());
    awaitSqlCount("lake.robots.runs", 5);

    try (Dataset opened = Dataset.open().allocator(allocator).namespaceClient(client).tableId(RUNS).build()) {
      assertEquals(5, opened.countRows());
    }

    String location = client.deregisterTable(new DeregisterTableRequest().id(RUNS)).getLocation();
    assertCode(4, () -> client.tableExists(new TableExistsRequest().id(RUNS)));
    assertTrue(Files.isDirectory(Path.of(java.net.URI.create(location))), "deregister keeps the data");

    client.registerTable(new RegisterTableRequest().id(RUNS).location(location));
    assertEquals(5L, client.countTableRows(new CountTableRowsRequest().id(RUNS)));

    client.renameTable(new RenameTableRequest().id(RUNS).newTableName("trials"));
    assertCode(4, () -> client.tableExists(new TableExistsRequest().id(RUNS)));
    List<String> trials = List.of("robots", "trials");
    assertEquals(5L, client.countTableRows(new CountTableRowsRequest().id(trials)));
    awaitSqlCount("lake.robots.trials", 5);

    client.dropTable(new DropTableRequest().id(trials));
    assertCode(4, () -> client.describeTable(new DescribeTableRequest().id(trials)));
    assertFalse(Files.exists(Path.of(java.net.URI.create(location))), "drop deletes the data");
    client.dropNamespace(new DropNamespaceRequest().id(ROBOTS));
    assertFalse(client.listNamespaces(new ListNamespacesRequest().id(List.of())).getNamespaces().contains("robots"));
  }

  @Test
  void refusalsCarryTheSpecsCodesAndChangeNothing() throws IOException {
    client.createNamespace(new CreateNamespaceRequest().id(ROBOTS));
    assertCode(2, () -> client.createNamespace(new CreateNamespaceRequest().id(ROBOTS)));
    client.createNamespace(new CreateNamespaceRequest().id(ROBOTS).mode("ExistOk"));
    assertCode(1, () -> client.listTables(new ListTablesRequest().id(List.of("nowhere"))));
    assertCode(4, () -> client.describeTable(new DescribeTableRequest().id(List.of("robots", "missing"))));
    assertCode(13, () -> client.createNamespace(new CreateNamespaceRequest().id(List.of("bad-name"))));
    assertCode(13, () -> client.describeTable(new DescribeTableRequest().id(List.of("a", "b", "c"))));
    // demo.episodes is a log table: same identifier space, not served as Lance
    LanceNamespaceException logTable = assertCode(19,
        () -> client.describeTable(new DescribeTableRequest().id(List.of("demo", "episodes"))));
    assertTrue(logTable.getMessage().contains("log table"), logTable.getMessage());
    assertFalse(client.listTables(new ListTablesRequest().id(List.of("demo"))).getTables().contains("episodes"));
    assertCode(5, () -> write(client, List.of("demo", "episodes"), WriteParams.WriteMode.CREATE, 0, 1).close());

    write(client, RUNS, WriteParams.WriteMode.CREATE, 0, 1).close();
    assertCode(5, () -> write(client, RUNS, WriteParams.WriteMode.CREATE, 0, 1).close());
    assertCode(3, () -> client.dropNamespace(new DropNamespaceRequest().id(ROBOTS)));
    assertCode(13, () -> client.registerTable(new RegisterTableRequest().id(List.of("robots", "copy"))
        .location(dir.resolve("nothing-here").toString())));
    assertCode(13, () -> client.registerTable(new RegisterTableRequest().id(List.of("robots", "copy"))
        .location(dir.resolve("wild*").toString())));
    assertEquals(1L, client.countTableRows(new CountTableRowsRequest().id(RUNS)));
    client.dropNamespace(new DropNamespaceRequest().id(ROBOTS).behavior("Cascade"));
    assertCode(1, () -> client.listTables(new ListTablesRequest().id(ROBOTS)));
  }

  @Test
  void eightStockWritersAppendingAtOnceLoseNoCommitAndSqlSeesEveryRow() throws Exception {
    client.createNamespace(new CreateNamespaceRequest().id(ROBOTS));
    write(client, RUNS, WriteParams.WriteMode.CREATE, 0, 1).close();
    int writers = 8;
    int rowsEach = 10;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int first = 1 + w * rowsEach;
        done.add(pool.submit((Callable<Void>) () -> {
          try (RestNamespace own = connect()) {
            write(own, RUNS, WriteParams.WriteMode.APPEND, first, rowsEach).close();
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    long expected = 1 + (long) writers * rowsEach;
    assertEquals(expected, client.countTableRows(new CountTableRowsRequest().id(RUNS)));
    assertEquals(1L + writers, // the create is Lance version 1, each append one more
        client.describeTable(new DescribeTableRequest().id(RUNS).loadDetailedMetadata(true)).getVersion());
    awaitSqlCount("lake.robots.runs", expected);
    try (Connection sql = DriverManager.getConnection(server.jdbcUrl("127.0.0.1"));
        Statement st = sql.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(DISTINCT id), min(id), max(id) FROM lake.robots.runs")) {
      assertTrue(rs.next());
      assertEquals(expected, rs.getLong(1));
      assertEquals(0, rs.getLong(2));
      assertEquals(expected - 1, rs.getLong(3));
    }
  }

  // ---- helpers ----

  private RestNamespace connect() {
    return (RestNamespace) LanceNamespace.connect("rest", Map.of("uri", "http://127.0.0.1:" + server.lanceRestPort()), allocator);
  }

  private Dataset write(LanceNamespace namespace, List<String> table, WriteParams.WriteMode mode,
      long firstId, int rows) throws IOException {
    try (ArrowReader reader = rows(firstId, rows)) {
      return Dataset.write().allocator(allocator).reader(reader).namespaceClient(namespace)
          .tableId(table).mode(mode).execute();
    }
  }

  private ArrowReader rows(long firstId, int rows) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(EPISODES, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      VarCharVector robot = (VarCharVector) root.getVector("robot");
      for (int i = 0; i < rows; i++) {
        id.setSafe(i, firstId + i);
        robot.setSafe(i, ("r" + (firstId + i) % 3).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      root.setRowCount(rows);
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  private void awaitSqlCount(String table, long expected) throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    long seen = -1;
    try (Connection sql = DriverManager.getConnection(server.jdbcUrl("127.0.0.1"))) {
      while (System.nanoTime() < deadline) {
        try (Statement st = sql.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
          rs.next();
          seen = rs.getLong(1);
          if (seen == expected) {
            return;
          }
        } catch (SQLException notYet) {
          // the table may not be in the catalog cache yet
        }
        Thread.sleep(100);
      }
    }
    assertEquals(expected, seen, "rows of " + table + " seen through Flight SQL");
  }

  private static LanceNamespaceException assertCode(int code, org.junit.jupiter.api.function.Executable call) {
    LanceNamespaceException e = assertThrows(LanceNamespaceException.class, call);
    assertEquals(code, e.getCode(), e.toString());
    return e;
  }
}
