package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.Secrets;
import dev.lake.iceberg.IcebergFederation;
import dev.lake.iceberg.IcebergSettings;
import dev.lake.iceberg.LocalFileIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog {@code iceberg} through the stock Flight SQL JDBC driver: Iceberg's own REST
 * catalog server on loopback, a table created and appended to with the stock Iceberg client
 * (partitioned by day), and lake's answers compared with Iceberg's generic reader.
 */
class FlightIcebergTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(3, "name", Types.StringType.get()));
  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).day("ts").build();
  static final OffsetDateTime DAY1 = OffsetDateTime.of(2024, 5, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  @TempDir Path dir;
  LoopbackRestCatalog server;
  RESTCatalog client;
  IcebergFederation federation;
  Table table;
  LakeServerFixture lake;
  Connection jdbc;

  @BeforeEach
  void start() throws Exception {
    server = LoopbackRestCatalog.start(dir.resolve("warehouse"));
    client = new RESTCatalog();
    client.initialize("client", Map.of("uri", server.uri().toString(),
        "io-impl", LocalFileIO.class.getName()));
    client.createNamespace(Namespace.of("ops"));
    table = client.createTable(TableIdentifier.of("ops", "robots"), SCHEMA, SPEC,
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    append(0, 10);
    federation = IcebergFederation.connect(
        IcebergSettings.of(server.uri()).withCache(Duration.ZERO, 0));
    lake = new LakeServerFixture(dir.resolve("lake"), LakeFlightServer.builder().tickets(sealer()),
        IcebergSqlCatalog.federated(federation));
    jdbc = DriverManager.getConnection(lake.jdbcUrl());
    try (Statement s = jdbc.createStatement()) {
      s.execute("CREATE SCHEMA robots");
      s.execute("CREATE TABLE robots.episodes (robot_id BIGINT, episode VARCHAR)");
      s.execute("INSERT INTO robots.episodes VALUES (1, 'e1'), (4, 'e4'), (4, 'e4b'), (99, 'e99')");
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (jdbc != null) {
      jdbc.close();
    }
    if (lake != null) {
      lake.close();
    }
    federation.close();
    client.close();
    server.close();
  }

  /** Appends rows id in [from, to), row i on day i % 3, one data file per day partition. */
  void append(long from, long to) throws Exception {
    table.refresh();
    Map<PartitionKey, List<Record>> byDay = new HashMap<>();
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    for (long id = from; id < to; id++) {
      GenericRecord r = GenericRecord.create(SCHEMA);
      r.setField("id", id);
      r.setField("ts", DAY1.plusDays(id % 3).plusMinutes(id));
      r.setField("name", "robot-" + id);
      PartitionKey key = new PartitionKey(table.spec(), table.schema());
      key.partition(wrapper.wrap(r));
      byDay.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    var commit = table.newAppend();
    for (var e : byDay.entrySet()) {
      DataWriter<Record> writer = Parquet.writeData(table.io().newOutputFile(
              table.location() + "/data/" + UUID.randomUUID() + ".parquet"))
          .schema(table.schema()).createWriterFunc(GenericParquetWriter::create)
          .withSpec(table.spec()).withPartition(e.getKey()).overwrite().build();
      try (writer) {
        e.getValue().forEach(writer::write);
      }
      commit.appendFile(writer.toDataFile());
    }
    commit.commit();
    table.refresh();
  }

  List<String> rows(String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement s = jdbc.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= columns; i++) {
          row.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        rows.add(row.toString());
      }
    }
    return rows;
  }

  @Test
  void filterAndProjectionMatchIcebergsGenericReader() throws Exception {
    List<String> expected = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table)
        .where(Expressions.and(Expressions.greaterThanOrEqual("id", 3L), Expressions.lessThan("id", 8L)))
        .select("id", "name").build()) {
      for (Record r : records) {
        expected.add(r.getField("id") + "|" + r.getField("name"));
      }
    }
    expected.sort(null);
    assertEquals(5, expected.size());
    assertEquals(expected, rows("SELECT id, name FROM iceberg.ops.robots WHERE id >= 3 AND id < 8 ORDER BY id"));
  }

  @Test
  void joinsALakeTableWithAnIcebergTable() throws Exception {
    assertEquals(List.of("e1|robot-1", "e4|robot-4", "e4b|robot-4"), rows(
        "SELECT e.episode, r.name FROM lake.robots.episodes e JOIN iceberg.ops.robots r"
            + " ON e.robot_id = r.id ORDER BY e.episode"));
  }

  @Test
  void aTicketReplaysThePlannedSnapshotAfterACommit() throws Exception {
    FlightInfo info = lake.client().execute("SELECT count(*) FROM iceberg.ops.robots");
    append(10, 15);
    try (FlightStream stream = lake.client().getStream(info.getEndpoints().getFirst().getTicket())) {
      long count = -1;
      while (stream.next()) {
        if (stream.getRoot().getRowCount() > 0) {
          count = ((Number) stream.getRoot().getVector(0).getObject(0)).longValue();
        }
      }
      assertEquals(10L, count, "the snapshot planned at GetFlightInfo");
    }
    assertEquals(List.of("15"), rows("SELECT count(*) FROM iceberg.ops.robots"));
  }

  @Test
  void timeTravelBySnapshotId() throws Exception {
    long first = table.currentSnapshot().snapshotId();
    append(10, 15);
    assertEquals(List.of("10"), rows("SELECT count(*) FROM iceberg.ops.robots FOR VERSION AS OF " + first));
    assertEquals(List.of("15"), rows("SELECT count(*) FROM iceberg.ops.robots"));
  }

  @Test
  void timeTravelByTimestampReadsTheSnapshotCommittedAtOrBeforeIt() throws Exception {
    long firstMillis = table.currentSnapshot().timestampMillis();
    do {
      append(10, 15);
    } while (table.currentSnapshot().timestampMillis() == firstMillis);
    String at = java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(firstMillis, 1000L),
        (int) Math.floorMod(firstMillis, 1000L) * 1_000_000, ZoneOffset.UTC).toString()
        .replace('T', ' ');
    assertEquals(List.of("10"),
        rows("SELECT count(*) FROM iceberg.ops.robots FOR TIMESTAMP AS OF TIMESTAMP '" + at + "'"));
    FlightRuntimeException before = assertThrows(FlightRuntimeException.class,
        () -> lake.client().execute("SELECT count(*) FROM iceberg.ops.robots"
            + " FOR TIMESTAMP AS OF TIMESTAMP '2000-01-01 00:00:00'"));
    assertEquals(FlightStatusCode.NOT_FOUND, before.status().code(), before.getMessage());
    assertTrue(before.getMessage().contains("iceberg.ops.robots"), before.getMessage());
  }

  @Test
  void aTicketPlannedOnOneReplicaReplaysItsSnapshotOnAnother() throws Exception {
    try (IcebergFederation other = IcebergFederation.connect(
            IcebergSettings.of(server.uri()).withCache(Duration.ZERO, 0));
        LakeServerFixture replica = new LakeServerFixture(dir.resolve("replica"),
            LakeFlightServer.builder().tickets(sealer()), IcebergSqlCatalog.federated(other))) {
      FlightInfo info = lake.client().execute("SELECT count(*), max(id) FROM iceberg.ops.robots");
      append(10, 15);
      try (FlightStream stream = replica.client().getStream(
          info.getEndpoints().getFirst().getTicket())) {
        long count = -1;
        while (stream.next()) {
          if (stream.getRoot().getRowCount() > 0) {
            count = ((Number) stream.getRoot().getVector(0).getObject(0)).longValue();
          }
        }
        assertEquals(10L, count, "the snapshot planned on the first replica");
      }
    }
  }

  @Test
  void aDataFileMissingFromStorageFailsNamingItAndTheServerStaysUp() throws Exception {
    String missing;
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan().planFiles()) {
      missing = tasks.iterator().next().file().location();
    }
    table.io().deleteFile(missing);
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> {
      FlightInfo info = lake.client().execute("SELECT count(*), sum(id) FROM iceberg.ops.robots");
      try (FlightStream stream = lake.client().getStream(info.getEndpoints().getFirst().getTicket())) {
        while (stream.next()) {
          // drained: the error is raised mid-stream
        }
      }
    });
    assertTrue(e.getMessage().contains(missing), e.getMessage());
    // gRPC DATA_LOSS, which Arrow's FlightClient renders as INTERNAL; the message is lake's own.
    assertEquals(FlightStatusCode.INTERNAL, e.status().code(), e.getMessage());
    assertTrue(e.getMessage().contains("of iceberg.ops.robots at snapshot"), e.getMessage());
    assertEquals(List.of("4"), rows("SELECT count(*) FROM lake.robots.episodes"));
  }

  private final dev.lake.flight.ticket.KeyRing ring = dev.lake.flight.ticket.KeyRing.generate("k1");

  /** Seals as every replica of one deployment does: one key ring, one audience. */
  private dev.lake.flight.ticket.TicketSealer sealer() {
    return new dev.lake.flight.ticket.TicketSealer(() -> ring, "cluster-a",
        java.time.Clock.systemUTC(), Duration.ofHours(1), Duration.ofHours(24));
  }

  @Test
  void writesAndDdlOnIcebergAreRefusedAndChangeNothing() throws Exception {
    long before = table.currentSnapshot().snapshotId();
    for (String sql : List.of("INSERT INTO iceberg.ops.robots (id, name) VALUES (100, 'x')",
        "CREATE TABLE iceberg.ops.other (id BIGINT)", "DROP TABLE iceberg.ops.robots")) {
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> lake.client().executeUpdate(sql), sql);
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
      assertTrue(e.getMessage().contains("catalog iceberg is read-only"), e.getMessage());
    }
    table.refresh();
    assertEquals(before, table.currentSnapshot().snapshotId());
    assertEquals(List.of("10"), rows("SELECT count(*) FROM iceberg.ops.robots"));
  }

  @Test
  void unknownIcebergTableIsNotFoundNamingIt() {
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
        () -> lake.client().execute("SELECT * FROM iceberg.ops.nosuch"));
    assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
    assertTrue(e.getMessage().contains("iceberg.ops.nosuch"), e.getMessage());
    e = assertThrows(FlightRuntimeException.class,
        () -> lake.client().execute("SELECT * FROM iceberg.nons.robots"));
    assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
    assertTrue(e.getMessage().contains("iceberg.nons.robots"), e.getMessage());
  }

  @Test
  void anUnreachableCatalogIsUnavailableWhileLakeStillAnswers() throws Exception {
    server.close();
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
        () -> lake.client().execute("SELECT count(*) FROM iceberg.ops.robots"));
    assertEquals(FlightStatusCode.UNAVAILABLE, e.status().code(), e.getMessage());
    assertEquals(List.of("4"), rows("SELECT count(*) FROM lake.robots.episodes"));
    assertEquals(List.of("4"), rows("SELECT count(*) FROM robots.episodes"));
  }

  @Test
  void discoveryListsTheIcebergCatalogNamespacesAndTables() throws Exception {
    List<String> catalogs = new ArrayList<>();
    try (ResultSet rs = jdbc.getMetaData().getCatalogs()) {
      while (rs.next()) {
        catalogs.add(rs.getString(1));
      }
    }
    assertEquals(List.of("lake", "iceberg"), catalogs);
    List<String> schemas = new ArrayList<>();
    try (ResultSet rs = jdbc.getMetaData().getSchemas("iceberg", null)) {
      while (rs.next()) {
        schemas.add(rs.getString("TABLE_CATALOG") + "." + rs.getString("TABLE_SCHEM"));
      }
    }
    assertEquals(List.of("iceberg.ops"), schemas);
    List<String> tables = new ArrayList<>();
    try (ResultSet rs = jdbc.getMetaData().getTables(null, null, "%", null)) {
      while (rs.next()) {
        tables.add(rs.getString("TABLE_CAT") + "." + rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME"));
      }
    }
    assertEquals(List.of("lake.robots.episodes", "iceberg.ops.robots"), tables);
    List<String> columns = new ArrayList<>();
    try (ResultSet rs = jdbc.getMetaData().getColumns("iceberg", "ops", "robots", "%")) {
      while (rs.next()) {
        columns.add(rs.getString("COLUMN_NAME"));
      }
    }
    assertEquals(List.of("id", "ts", "name"), columns);
  }

  /**
   * Grants reach the {@code iceberg} catalog only by name ({@code iceberg.ops}, {@code iceberg.*}):
   * a principal reads and discovers exactly the Iceberg namespaces granted, {@code "*"} (every
   * lake namespace) does not reach it, and a refusal comes before the catalog is asked, so it
   * says nothing about whether the table exists.
   */
  @Test
  void grantsDecideWhichIcebergNamespacesAPrincipalReadsAndDiscovers() throws Exception {
    client.createNamespace(Namespace.of("hr"));
    client.createTable(TableIdentifier.of("hr", "people"), SCHEMA, SPEC,
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    Path principals = Files.writeString(dir.resolve("principals.json"), """
        {"principals": [
          {"name": "admin", "tenant": "ops", "role": "ADMIN", "namespaces": ["*"],
           "token_sha256": "%s"},
          {"name": "ops-reader", "tenant": "t1", "role": "READER",
           "namespaces": ["robots", "iceberg.ops"], "token_sha256": "%s"},
          {"name": "lake-only", "tenant": "t2", "role": "READER", "namespaces": ["*"],
           "token_sha256": "%s"},
          {"name": "all-iceberg", "tenant": "t3", "role": "READER", "namespaces": ["iceberg.*"],
           "token_sha256": "%s"}]}
        """.formatted(Secrets.tokenHash("admin-token"), Secrets.tokenHash("ops-token"),
        Secrets.tokenHash("lake-token"), Secrets.tokenHash("all-token")));
    try (LakeServerFixture secured = new LakeServerFixture(dir.resolve("lake-secured"),
        LakeFlightServer.builder().authenticator(Authenticator.load(principals, Clock.systemUTC())),
        IcebergSqlCatalog.federated(federation));
        FlightClient flight = FlightClient.builder(secured.clientAllocator(),
            Location.forGrpcInsecure("127.0.0.1", secured.port())).build()) {
      secured.registry.create(TableIdent.of("robots", "episodes"), IngestData.EPISODES, "log");
      FlightSqlClient sql = new FlightSqlClient(flight);

      assertEquals(10, FlightAuthTest.count(sql, "SELECT * FROM iceberg.ops.robots",
          FlightAuthTest.bearer("ops-token")));
      FlightRuntimeException other = FlightAuthTest.refused(FlightStatusCode.UNAUTHORIZED,
          () -> sql.execute("SELECT * FROM iceberg.hr.people", FlightAuthTest.bearer("ops-token")));
      assertTrue(other.getMessage().contains("iceberg.hr.people")
          && other.getMessage().contains("not granted"), other.getMessage());
      FlightRuntimeException lakeOnly = FlightAuthTest.refused(FlightStatusCode.UNAUTHORIZED,
          () -> sql.execute("SELECT * FROM iceberg.ops.robots", FlightAuthTest.bearer("lake-token")));
      assertTrue(lakeOnly.getMessage().contains("iceberg.ops.robots"), lakeOnly.getMessage());
      // Refused before the catalog is asked: a missing table answers as an existing one does.
      FlightRuntimeException missing = FlightAuthTest.refused(FlightStatusCode.UNAUTHORIZED,
          () -> sql.execute("SELECT * FROM iceberg.hr.nothing", FlightAuthTest.bearer("ops-token")));
      assertTrue(missing.getMessage().contains("not granted"), missing.getMessage());
      assertEquals(0, FlightAuthTest.count(sql, "SELECT * FROM iceberg.hr.people",
          FlightAuthTest.bearer("all-token")));
      assertEquals(0, FlightAuthTest.count(sql, "SELECT * FROM iceberg.hr.people",
          FlightAuthTest.bearer("admin-token")));

      String base = secured.jdbcUrl();
      assertEquals(List.of("lake", "iceberg"), discovered(base, "ops-token", "catalogs"));
      assertEquals(List.of("iceberg.ops"), discovered(base, "ops-token", "schemas"));
      assertEquals(List.of("lake.robots.episodes", "iceberg.ops.robots"),
          discovered(base, "ops-token", "tables"));
      assertEquals(List.of("lake"), discovered(base, "lake-token", "catalogs"));
      assertEquals(List.of(), discovered(base, "lake-token", "schemas"));
      assertEquals(List.of("lake.robots.episodes"), discovered(base, "lake-token", "tables"));
      assertEquals(List.of("iceberg.hr", "iceberg.ops"), discovered(base, "all-token", "schemas"));
      assertEquals(List.of("iceberg.hr.people", "iceberg.ops.robots"),
          discovered(base, "all-token", "tables"));
      assertEquals(List.of("iceberg.hr", "iceberg.ops"), discovered(base, "admin-token", "schemas"));
    }
  }

  /** What JDBC discovery shows the holder of {@code token}: catalogs, iceberg schemas or tables. */
  private static List<String> discovered(String base, String token, String what) throws Exception {
    List<String> found = new ArrayList<>();
    try (Connection connection = DriverManager.getConnection(base + "&token=" + token);
        ResultSet rs = switch (what) {
          case "catalogs" -> connection.getMetaData().getCatalogs();
          case "schemas" -> connection.getMetaData().getSchemas("iceberg", null);
          default -> connection.getMetaData().getTables(null, null, "%", null);
        }) {
      while (rs.next()) {
        found.add(switch (what) {
          case "catalogs" -> rs.getString(1);
          case "schemas" -> rs.getString("TABLE_CATALOG") + "." + rs.getString("TABLE_SCHEM");
          default -> rs.getString("TABLE_CAT") + "." + rs.getString("TABLE_SCHEM") + "."
              + rs.getString("TABLE_NAME");
        });
      }
    }
    return found;
  }
}
