package dev.lake.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.Version;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Comparison;
import dev.lake.engine.expr.Literal;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
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
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
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

class IcebergFederationTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(3, "name", Types.StringType.get()),
      Types.NestedField.optional(4, "price", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(5, "tags", Types.ListType.ofOptional(6, Types.StringType.get())),
      Types.NestedField.optional(7, "attrs", Types.MapType.ofOptional(8, 9, Types.StringType.get(), Types.IntegerType.get())),
      Types.NestedField.optional(10, "uid", Types.UUIDType.get()));
  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).day("ts").bucket("id", 4).build();
  static final OffsetDateTime DAY1 = OffsetDateTime.of(2024, 5, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  @TempDir Path dir;
  LoopbackRestCatalog server;
  RESTCatalog client;
  IcebergFederation federation;
  BufferAllocator allocator;
  Table table;

  @BeforeEach
  void start() throws Exception {
    server = startServer();
    client = new RESTCatalog();
    Map<String, String> properties = new HashMap<>(clientIo());
    properties.put("uri", server.uri().toString());
    client.initialize("client", properties);
    client.createNamespace(Namespace.of("ops"));
    table = client.createTable(TableIdentifier.of("ops", "robots"), SCHEMA, SPEC,
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    federation = IcebergFederation.connect(
        IcebergSettings.of(server.uri()).withProperties(io()).withCache(java.time.Duration.ZERO, 0));
    allocator = new RootAllocator();
  }

  /** The catalog server the tables live in; here with a local warehouse. */
  LoopbackRestCatalog startServer() throws Exception {
    return LoopbackRestCatalog.start(dir.resolve("warehouse"));
  }

  /** The FileIO properties lake is given. */
  Map<String, String> io() {
    return Map.of();
  }

  /** The FileIO properties of the stock Iceberg client. */
  Map<String, String> clientIo() {
    return Map.of("io-impl", LocalFileIO.class.getName());
  }

  @AfterEach
  void stop() throws Exception {
    if (federation != null) {
      federation.close();
    }
    client.close();
    server.close();
    allocator.close();
  }

  static Record row(long id, int day) {
    GenericRecord r = GenericRecord.create(SCHEMA);
    r.setField("id", id);
    r.setField("ts", DAY1.plusDays(day).plusMinutes(id));
    r.setField("name", id % 3 == 0 ? null : "robot-" + id);
    r.setField("price", BigDecimal.valueOf(id * 125, 2));
    r.setField("tags", List.of("t" + id, "x"));
    r.setField("attrs", Map.of("k" + id, (int) id));
    r.setField("uid", new UUID(id, -id));
    return r;
  }

  /** Appends rows through the stock client and generic Parquet writer, one file per partition. */
  List<DataFile> append(List<Record> rows) throws Exception {
    table.refresh();
    Map<PartitionKey, List<Record>> byPartition = new HashMap<>();
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    for (Record r : rows) {
      PartitionKey key = new PartitionKey(table.spec(), table.schema());
      key.partition(wrapper.wrap(r));
      byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    List<DataFile> files = new ArrayList<>();
    var append = table.newAppend();
    for (var e : byPartition.entrySet()) {
      DataWriter<Record> writer = Parquet.writeData(table.io().newOutputFile(
              table.location() + "/data/" + UUID.randomUUID() + ".parquet"))
          .schema(table.schema()).createWriterFunc(GenericParquetWriter::create)
          .withSpec(table.spec()).withPartition(e.getKey()).overwrite().build();
      try (writer) {
        e.getValue().forEach(writer::write);
      }
      files.add(writer.toDataFile());
      append.appendFile(writer.toDataFile());
    }
    append.commit();
    return files;
  }

  PartitionKey partitionOf(Record r) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(r));
    return key;
  }

  List<List<Object>> lake(Snapshot snapshot, ScanRequest request) throws Exception {
    return read(snapshot, snapshot.plan(request).units(), request);
  }

  /** The rows of {@code units}, sorted by id. */
  List<List<Object>> read(Snapshot snapshot, List<ScanUnit> units, ScanRequest request) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    for (ScanUnit unit : units) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          for (int i = 0; i < root.getRowCount(); i++) {
            List<Object> row = new ArrayList<>();
            for (FieldVector v : root.getFieldVectors()) {
              row.add(fromArrow(v, i));
            }
            rows.add(row);
          }
        }
      }
    }
    rows.sort(Comparator.comparing(r -> (Long) r.getFirst()));
    return rows;
  }

  static Object fromArrow(FieldVector v, int i) {
    Object o = v.getObject(i);
    if (o == null) {
      return null;
    }
    if (o instanceof org.apache.arrow.vector.util.Text t) {
      return t.toString();
    }
    return switch (v.getName()) {
      case "tags" -> ((List<?>) o).stream().map(String::valueOf).toList();
      case "attrs" -> {
        TreeMap<String, Object> m = new TreeMap<>();
        for (Object e : (List<?>) o) {
          Map<?, ?> entry = (Map<?, ?>) e;
          m.put(entry.get("key").toString(), entry.get("value"));
        }
        yield m;
      }
      case "uid" -> {
        ByteBuffer b = ByteBuffer.wrap((byte[]) o);
        yield new UUID(b.getLong(), b.getLong());
      }
      default -> o;
    };
  }

  List<List<Object>> iceberg(long snapshotId, List<String> columns) throws Exception {
    table.refresh();
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      for (Record r : records) {
        List<Object> row = new ArrayList<>();
        for (String c : columns) {
          Object o = r.getField(c);
          row.add(switch (o) {
            case OffsetDateTime t -> ChronoUnit.MICROS.between(LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC),
                t.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime());
            case Map<?, ?> m -> new TreeMap<>(m);
            case null, default -> o;
          });
        }
        rows.add(row);
      }
    }
    rows.sort(Comparator.comparing(r -> (Long) r.getFirst()));
    return rows;
  }

  static final List<String> ALL = List.of("id", "ts", "name", "price", "tags", "attrs", "uid");

  List<Record> rows(int from, int to, int day) {
    List<Record> rows = new ArrayList<>();
    for (long id = from; id < to; id++) {
      rows.add(row(id, day));
    }
    return rows;
  }

  @Test
  void scansEveryTypeAsTheIcebergGenericReaderDoes() throws Exception {
    append(rows(0, 40, 0));
    append(rows(40, 80, 1));
    TableHandle handle = federation.open("ops", "robots").orElseThrow();
    Snapshot snapshot = handle.latestSnapshot();
    assertEquals(table.currentSnapshot().snapshotId(), snapshot.version().number());
    List<List<Object>> expected = iceberg(table.currentSnapshot().snapshotId(), ALL);
    assertEquals(80, expected.size());
    assertEquals(expected, lake(snapshot, ScanRequest.of(ALL)));
    assertEquals(new ArrowType.Decimal(10, 2, 128), snapshot.schema().findField("price").getType());
    assertEquals(new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.MICROSECOND, "UTC"),
        snapshot.schema().findField("ts").getType());
  }

  @Test
  void prunesPartitionsWithThePushedDownPredicate() throws Exception {
    append(rows(0, 40, 0));
    append(rows(40, 80, 1));
    Snapshot snapshot = federation.open("ops", "robots").orElseThrow().latestSnapshot();
    long day2 = ChronoUnit.MICROS.between(DAY1.toInstant().minusSeconds(0).atOffset(ZoneOffset.UTC).toLocalDateTime()
        .atOffset(ZoneOffset.UTC), DAY1.plusDays(1));
    long micros = DAY1.toEpochSecond() * 1_000_000L + day2;
    ScanRequest request = ScanRequest.of(List.of("id", "ts")).withFilter(new Comparison(Comparison.Op.GE,
        new ColumnRef("ts"), new Literal(new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.MICROSECOND, "UTC"), micros)));
    Snapshot.ScanPlan plan = snapshot.plan(request);
    Snapshot.ScanPlan all = snapshot.plan(ScanRequest.of(List.of("id", "ts")));
    assertTrue(plan.units().size() < all.units().size(), plan + " vs " + all);
    assertTrue(plan.blocksPruned() > 0);
    List<List<Object>> rows = lake(snapshot, request);
    assertEquals(40, rows.size());
    assertTrue(rows.stream().allMatch(r -> (Long) r.get(1) >= micros));
  }

  @Test
  void appliesPositionAndEqualityDeletes() throws Exception {
    List<DataFile> files = append(rows(0, 40, 0));
    DataFile first = files.getFirst();
    PositionDeleteWriter<Record> positions = Parquet.writeDeletes(table.io().newOutputFile(
            table.location() + "/data/pos-" + UUID.randomUUID() + ".parquet"))
        .createWriterFunc(GenericParquetWriter::create).overwrite().withSpec(table.spec())
        .withPartition(first.partition()).buildPositionWriter();
    try (positions) {
      positions.write(PositionDelete.<Record>create().set(first.location(), 0L, null));
    }
    table.newRowDelta().addDeletes(positions.toDeleteFile()).commit();
    List<List<Object>> afterPosition = iceberg(table.currentSnapshot().snapshotId(), ALL);
    assertEquals(39, afterPosition.size());
    assertEquals(afterPosition, lake(federation.open("ops", "robots").orElseThrow().latestSnapshot(), ScanRequest.of(ALL)));
    long victim = (Long) afterPosition.get(5).getFirst();
    Schema idOnly = table.schema().select("id");
    EqualityDeleteWriter<Record> equality = Parquet.writeDeletes(table.io().newOutputFile(
            table.location() + "/data/eq-" + UUID.randomUUID() + ".parquet"))
        .createWriterFunc(GenericParquetWriter::create).overwrite().rowSchema(idOnly)
        .withSpec(table.spec()).withPartition(partitionOf(row(victim, 0))).equalityFieldIds(1).buildEqualityWriter();
    try (equality) {
      GenericRecord r = GenericRecord.create(idOnly);
      r.setField("id", victim);
      equality.write(r);
    }
    DeleteFile eq = equality.toDeleteFile();
    table.newRowDelta().addDeletes(eq).commit();
    Snapshot snapshot = federation.open("ops", "robots").orElseThrow().latestSnapshot();
    List<List<Object>> expected = iceberg(table.currentSnapshot().snapshotId(), ALL);
    assertEquals(38, expected.size());
    assertEquals(expected, lake(snapshot, ScanRequest.of(ALL)));
  }

  @Test
  void readsEvolvedSchemasByFieldIdAndPinsSnapshots() throws Exception {
    append(rows(0, 10, 0));
    long before = table.currentSnapshot().snapshotId();
    table.updateSchema().renameColumn("name", "label").addColumn("score", Types.DoubleType.get()).deleteColumn("tags").commit();
    table.refresh();
    GenericRecord r = GenericRecord.create(table.schema());
    r.setField("id", 100L);
    r.setField("ts", DAY1);
    r.setField("label", "new");
    r.setField("score", 1.5);
    append(List.of(r));
    TableHandle handle = federation.open("ops", "robots").orElseThrow();
    Snapshot now = handle.latestSnapshot();
    List<List<Object>> rows = lake(now, ScanRequest.of(List.of("id", "label", "score")));
    assertEquals(iceberg(table.currentSnapshot().snapshotId(), List.of("id", "label", "score")), rows);
    assertEquals("robot-1", rows.get(1).get(1));
    assertEquals(null, rows.get(1).get(2));
    Snapshot old = handle.snapshot(Version.of(before));
    assertEquals(10, lake(old, ScanRequest.of(List.of("id", "name", "tags"))).size());
    assertEquals(2, handle.versions().size());
    assertThrows(dev.lake.engine.VersionNotFoundException.class, () -> handle.snapshot(Version.of(12345)));
  }

  @Test
  void aPinnedSnapshotIdReadsTheSameRowsAfterLaterCommits() throws Exception {
    append(rows(0, 20, 0));
    TableHandle planned = federation.open("ops", "robots").orElseThrow();
    Version pinned = planned.currentVersion();
    Snapshot snapshot = planned.snapshot(pinned);
    ScanRequest request = ScanRequest.of(ALL);
    List<ScanUnit> units = snapshot.plan(request).units();
    List<List<Object>> before = lake(snapshot, request);
    append(rows(20, 30, 1));
    table.newDelete().deleteFile(table.currentSnapshot().addedDataFiles(table.io()).iterator().next()).commit();
    // The units planned before the commits, and a fresh handle pinned to the same id (as a DoGet
    // on another replica opens it), both read exactly the planned snapshot.
    List<List<Object>> fromUnits = read(snapshot, units, request);
    assertEquals(before, fromUnits);
    TableHandle replica = federation.open("ops", "robots").orElseThrow();
    assertTrue(replica.currentVersion().number() != pinned.number());
    assertEquals(before, lake(replica.snapshot(pinned), request));
    assertEquals(iceberg(pinned.number(), ALL), before);
  }

  @Test
  void aMissingDataFileIsNamed() throws Exception {
    List<DataFile> files = append(rows(0, 5, 0));
    table.io().deleteFile(files.getFirst().location());
    Snapshot snapshot = federation.open("ops", "robots").orElseThrow().latestSnapshot();
    CorruptTableException e = assertThrows(CorruptTableException.class,
        () -> lake(snapshot, ScanRequest.of(List.of("id"))));
    assertTrue(e.getMessage().contains(files.getFirst().location()), e.getMessage());
  }

  @Test
  void unknownNamesAreEmptyAndWritesAreRefused() throws Exception {
    assertEquals(List.of("ops"), federation.namespaces());
    assertEquals(List.of("robots"), federation.tables("ops"));
    assertEquals(List.of(), federation.tables("nope"));
    assertFalse(federation.open("ops", "nope").isPresent());
    assertFalse(federation.open("nope", "robots").isPresent());
    TableHandle handle = federation.open("ops", "robots").orElseThrow();
    assertEquals(Version.INITIAL, handle.currentVersion());
    assertEquals(0, handle.latestSnapshot().plan(ScanRequest.of(List.of("id"))).units().size());
    IllegalArgumentException column = assertThrows(IllegalArgumentException.class,
        () -> handle.latestSnapshot().plan(ScanRequest.of(List.of("id", "nope"))));
    assertTrue(column.getMessage().contains("'nope'"), column.getMessage());
    ReadOnlyException e = assertThrows(ReadOnlyException.class, () -> handle.append(null, null));
    assertTrue(e.getMessage().contains("iceberg.ops.robots"), e.getMessage());
  }

  @Test
  void anUnreachableCatalogIsUnavailable() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    try (IcebergFederation down = IcebergFederation.connect(IcebergSettings.of(URI.create("http://127.0.0.1:" + port + "/")))) {
      assertThrows(CatalogUnavailableException.class, down::namespaces);
      assertThrows(CatalogUnavailableException.class, () -> down.open("ops", "robots"));
    }
  }
}
