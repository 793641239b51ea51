package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.CatalogSettings;
import dev.lake.catalog.LanceNamespaces;
import dev.lake.catalog.Placement;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.lance.S3ProxyServer;
import dev.lake.flight.lancerest.LanceRestServer;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
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
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;
import org.lance.namespace.model.DropTableRequest;

/**
 * S3-located lance tables behind the Lance Namespace REST API, against S3Proxy: the stock client
 * gets the location and the {@code storage_options} it needs (endpoint, region, allow_http for the
 * plain-HTTP endpoint, credentials) from DeclareTable and DescribeTable, writes and appends at the
 * location with them, and lake's registry follows.
 */
class LanceRestS3Test {

  private static final Schema IDS = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));
  private static final List<String> RUNS = List.of("robots", "runs");

  @TempDir Path dir;
  private BufferAllocator allocator;
  private S3ProxyServer s3;
  private RocksDbMetaStore store;
  private TableEngine lance;
  private Catalog catalog;
  private LanceRestServer rest;

  @BeforeEach
  void start() throws Exception {
    allocator = new RootAllocator();
    s3 = new S3ProxyServer(java.nio.file.Files.createDirectories(dir.resolve("s3")));
    store = RocksDbMetaStore.open(dir.resolve("meta"));
    lance = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("lance")).findFirst().orElseThrow().create(s3.engineProperties());
    catalog = Catalog.open(store, Map.of("lance", lance),
        CatalogSettings.of(Placement.of(URI.create("s3://" + S3ProxyServer.BUCKET + "/warehouse"))));
    rest = LanceRestServer.start(new LanceNamespaces(catalog, LanceStorageOptions.of(s3.engineProperties())),
        "127.0.0.1", 0, Duration.ofMillis(200));
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {rest, catalog, lance, store, s3, allocator}) {
      if (c != null) {
        c.close();
      }
    }
  }

  @Test
  void stockWritersReachS3LocatedTablesWithTheVendedStorageOptions() throws Exception {
    try (RestNamespace client = connect(); RestNamespace second = connect()) {
      client.createNamespace(new CreateNamespaceRequest().id(List.of("robots")));
      write(client, WriteParams.WriteMode.CREATE, 0, 3);
      DescribeTableResponse described = client.describeTable(new DescribeTableRequest().id(RUNS)
          .loadDetailedMetadata(true).vendCredentials(true));
      assertTrue(described.getLocation().startsWith("s3://lake/warehouse/robots/runs-"), described.getLocation());
      assertEquals(s3.endpoint(), described.getStorageOptions().get("aws_endpoint"));
      assertEquals("true", described.getStorageOptions().get("allow_http"));
      assertEquals(S3ProxyServer.ACCESS_KEY, described.getStorageOptions().get("aws_access_key_id"));
      assertEquals(1L, described.getVersion());

      write(second, WriteParams.WriteMode.APPEND, 3, 2);
      assertEquals(5L, client.countTableRows(new CountTableRowsRequest().id(RUNS)));
      try (Dataset opened = Dataset.open().allocator(allocator).namespaceClient(client).tableId(RUNS).build()) {
        assertEquals(5, opened.countRows());
      }
      assertEquals(5, catalog.readHandle(TableIdent.of("robots", "runs")).orElseThrow().latestSnapshot().rowCount(),
          "lake's own engine reads what the stock writers wrote");

      client.dropTable(new DropTableRequest().id(RUNS));
      LanceNamespaceException gone = assertThrows(LanceNamespaceException.class,
          () -> client.describeTable(new DescribeTableRequest().id(RUNS)));
      assertEquals(4, gone.getCode());
    }
  }

  private RestNamespace connect() {
    return (RestNamespace) LanceNamespace.connect("rest", Map.of("uri", "http://127.0.0.1:" + rest.port()), allocator);
  }

  private void write(LanceNamespace namespace, WriteParams.WriteMode mode, long first, int rows) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      for (int i = 0; i < rows; i++) {
        ((BigIntVector) root.getVector(0)).setSafe(i, first + i);
      }
      root.setRowCount(rows);
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
        Dataset written = Dataset.write().allocator(allocator).reader(reader).namespaceClient(namespace)
            .tableId(RUNS).mode(mode).execute()) {
      assertEquals(first + rows, written.countRows());
    }
  }
}
