package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.iceberg.IcebergSettings;
import dev.lake.iceberg.LocalFileIO;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lake dev --iceberg-uri}: the options parsed as a user types them, the server they start
 * answering {@code iceberg.<ns>.<table>} from Iceberg's own REST catalog server, joined with a lake
 * table; careless options refused naming the option.
 */
class LakeDevIcebergTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "robot_id", Types.LongType.get()),
      Types.NestedField.optional(2, "site", Types.StringType.get()));

  @TempDir Path dir;

  @Test
  void lakeDevServesTheIcebergCatalogNamedByItsOptions() throws Exception {
    try (LoopbackRestCatalog rest = LoopbackRestCatalog.start(dir.resolve("iceberg"));
        RESTCatalog client = new RESTCatalog()) {
      client.initialize("client", Map.of("uri", rest.uri().toString(),
          "io-impl", LocalFileIO.class.getName()));
      client.createNamespace(Namespace.of("ops"));
      Table robots = client.createTable(TableIdentifier.of("ops", "robots"), SCHEMA,
          PartitionSpec.unpartitioned());
      append(robots, List.of(row(1, "berlin"), row(2, "austin"), row(3, "austin")));

      Optional<IcebergSettings> settings = parse("--iceberg-uri", rest.uri().toString());
      assertTrue(settings.isPresent());
      try (DevServer server = DevServer.start(dir.resolve("lake"), "127.0.0.1", 0,
          QueryLimits.defaults(), null, null, b -> b, settings);
          Connection c = DriverManager.getConnection(server.jdbcUrl("127.0.0.1"));
          Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA fleet");
        s.execute("CREATE TABLE fleet.episodes (robot_id BIGINT, episode VARCHAR)");
        s.execute("INSERT INTO fleet.episodes VALUES (1, 'e1'), (3, 'e3'), (3, 'e3b')");
        try (ResultSet r = s.executeQuery("SELECT r.site, count(*) FROM lake.fleet.episodes e"
            + " JOIN iceberg.ops.robots r ON e.robot_id = r.robot_id GROUP BY r.site"
            + " ORDER BY r.site")) {
          assertTrue(r.next());
          assertEquals("austin", r.getString(1));
          assertEquals(2, r.getLong(2));
          assertTrue(r.next());
          assertEquals("berlin", r.getString(1));
          assertEquals(1, r.getLong(2));
          assertTrue(!r.next());
        }
        SQLException readOnly = assertThrows(SQLException.class,
            () -> s.execute("INSERT INTO iceberg.ops.robots VALUES (9, 'x')"));
        assertTrue(String.valueOf(readOnly.getMessage()).contains("read-only"),
            readOnly.getMessage());
        SQLException missing = assertThrows(SQLException.class,
            () -> s.executeQuery("SELECT * FROM iceberg.ops.nope"));
        assertTrue(String.valueOf(missing.getMessage()).contains("nope"), missing.getMessage());
      }
    }
  }

  @Test
  void anUnreachableIcebergCatalogFailsOnlyIcebergQueries() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Optional<IcebergSettings> settings = parse("--iceberg-uri",
        "http://127.0.0.1:" + closedPort + "/");
    try (DevServer server = DevServer.start(dir.resolve("lake"), "127.0.0.1", 0,
        QueryLimits.defaults(), null, null, b -> b, settings);
        Connection c = DriverManager.getConnection(server.jdbcUrl("127.0.0.1"));
        Statement s = c.createStatement()) {
      SQLException down = assertThrows(SQLException.class,
          () -> s.executeQuery("SELECT * FROM iceberg.ops.robots"));
      assertTrue(String.valueOf(down.getMessage()).toUpperCase().contains("UNAVAILABLE"),
          down.getMessage());
      try (ResultSet r = s.executeQuery("SELECT count(*) FROM demo.episodes")) {
        assertTrue(r.next());
        assertEquals(DemoEpisodes.ROWS, r.getLong(1));
      }
    }
  }

  @Test
  void carelessIcebergOptionsAreRefusedNamingTheOption() {
    assertRefused("--iceberg-uri", "--iceberg-uri", "ftp://catalog:8181/");
    assertRefused("--iceberg-uri", "--iceberg-uri", "not a uri");
    assertRefused("needs --iceberg-uri", "--iceberg-warehouse", "w");
    assertRefused("needs --iceberg-uri", "--iceberg-property", "s3.endpoint=http://x");
    assertRefused("exclusive", "--iceberg-uri", "http://127.0.0.1:1/", "--iceberg-token", "t",
        "--iceberg-credential", "id:secret");
    assertRefused("ID:SECRET", "--iceberg-uri", "http://127.0.0.1:1/",
        "--iceberg-credential", "nocolon");
    assertRefused("--iceberg-property", "--iceberg-uri", "http://127.0.0.1:1/",
        "--iceberg-property", "nokey");
  }

  @Test
  void icebergOptionsCarryTheWarehouseTokenAndProperties() {
    IcebergSettings settings = parse("--iceberg-uri", "http://127.0.0.1:8181/",
        "--iceberg-warehouse", "prod", "--iceberg-token", "tok",
        "--iceberg-property", "s3.endpoint=http://127.0.0.1:9000",
        "--iceberg-property", "s3.path-style-access=true", "--iceberg-cache-ttl", "2m")
        .orElseThrow();
    assertEquals(java.time.Duration.ofMinutes(2), settings.cacheTtl());
    assertEquals(Optional.of("prod"), settings.warehouse());
    assertEquals(Optional.of("tok"), settings.token());
    assertEquals(Map.of("s3.endpoint", "http://127.0.0.1:9000", "s3.path-style-access", "true"),
        settings.properties());
    assertEquals(Optional.empty(), parse().map(IcebergSettings::uri));
  }

  /** {@code args} parsed by the {@code lake dev} command line, its Iceberg settings. */
  private static Optional<IcebergSettings> parse(String... args) {
    Lake.Dev dev = new Lake.Dev();
    new CommandLine(dev).parseArgs(args);
    return dev.iceberg.settings();
  }

  /** {@code lake dev args} exits 2 before starting, its error naming {@code expected}. */
  private static void assertRefused(String expected, String... args) {
    StringWriter err = new StringWriter();
    CommandLine lake = new CommandLine(new Lake()).setErr(new PrintWriter(err));
    String[] all = new String[args.length + 3];
    all[0] = "dev";
    System.arraycopy(args, 0, all, 1, args.length);
    all[args.length + 1] = "--port";
    all[args.length + 2] = "0";
    int exit = lake.execute(all);
    assertEquals(2, exit, String.join(" ", args) + ": " + err);
    assertTrue(err.toString().contains(expected), String.join(" ", args) + ": " + err);
  }

  private static Record row(long robotId, String site) {
    GenericRecord r = GenericRecord.create(SCHEMA);
    r.setField("robot_id", robotId);
    r.setField("site", site);
    return r;
  }

  private static void append(Table table, List<Record> rows) throws Exception {
    String path = table.location() + "/data/" + java.util.UUID.randomUUID() + ".parquet";
    DataWriter<Record> writer = Parquet.writeData(table.io().newOutputFile(path))
        .schema(table.schema()).createWriterFunc(GenericParquetWriter::create)
        .overwrite().withSpec(table.spec()).build();
    try (writer) {
      rows.forEach(writer::write);
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
  }
}
