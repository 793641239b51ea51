package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.TableIdent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Catalog metadata over the stock FlightSqlClient. */
@SuppressWarnings("try")
class FlightMetadataTest {

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() {
    lake = new LakeServerFixture(directory);
    lake.registry.create(TableIdent.of("demo", "episodes"), IngestData.EPISODES, "log");
    lake.registry.create(TableIdent.of("demo", "frames"), IngestData.EPISODES, "log");
    lake.registry.create(TableIdent.of("lab", "runs"), IngestData.EPISODES, "log");
  }

  @AfterEach
  void stop() throws Exception {
    lake.close();
  }

  @Test
  void getCatalogsListsLake() throws Exception {
    FlightSqlClient client = lake.client();
    assertEquals(List.of(List.of("lake")), rows(client, client.getCatalogs()));
  }

  @Test
  void getDbSchemasFiltersWithLikePatterns() throws Exception {
    FlightSqlClient client = lake.client();
    assertEquals(List.of(List.of("lake", "demo"), List.of("lake", "lab")),
        rows(client, client.getSchemas(null, null)));
    assertEquals(List.of(List.of("lake", "lab")), rows(client, client.getSchemas("lake", "l_b")));
    assertEquals(List.of(), rows(client, client.getSchemas("other", null)));
  }

  @Test
  void getTablesFiltersAndIncludesTheIpcSchema() throws Exception {
    FlightSqlClient client = lake.client();
    assertEquals(List.of(
            List.of("lake", "demo", "episodes", "TABLE"),
            List.of("lake", "demo", "frames", "TABLE"),
            List.of("lake", "lab", "runs", "TABLE")),
        rows(client, client.getTables(null, null, null, null, false)));
    assertEquals(List.of(List.of("lake", "demo", "episodes", "TABLE")),
        rows(client, client.getTables("lake", "de%", "%sod%", List.of("TABLE"), false)));
    assertEquals(List.of(), rows(client, client.getTables(null, null, null, List.of("VIEW"),
        false)));

    FlightInfo info = client.getTables(null, "lab", "runs", null, true);
    assertEquals(FlightSqlProducer.Schemas.GET_TABLES_SCHEMA, info.getSchemaOptional().orElseThrow());
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      assertTrue(stream.next());
      VectorSchemaRoot root = stream.getRoot();
      assertEquals(1, root.getRowCount());
      byte[] ipc = ((VarBinaryVector) root.getVector("table_schema")).get(0);
      Schema schema = MessageSerializer.deserializeSchema(
          new ReadChannel(new ByteArrayReadableSeekableByteChannel(ipc)));
      assertEquals(IngestData.EPISODES, withoutColumnMetadata(schema));
      Field id = schema.findField("id");
      assertEquals("BIGINT", id.getMetadata().get("ARROW:FLIGHT:SQL:TYPE_NAME"));
      assertEquals("runs", id.getMetadata().get("ARROW:FLIGHT:SQL:TABLE_NAME"));
    }
  }

  @Test
  void getTableTypesListsTable() throws Exception {
    FlightSqlClient client = lake.client();
    assertEquals(List.of(List.of("TABLE")), rows(client, client.getTableTypes()));
  }

  @Test
  void getSqlInfoReportsBulkIngestionAndTheServerName() throws Exception {
    FlightSqlClient client = lake.client();
    FlightInfo info = client.getSqlInfo(FlightSql.SqlInfo.FLIGHT_SQL_SERVER_NAME,
        FlightSql.SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION,
        FlightSql.SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED,
        FlightSql.SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY);
    List<Object> values = new ArrayList<>();
    List<Integer> names = new ArrayList<>();
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        UInt4Vector infoName = (UInt4Vector) root.getVector("info_name");
        DenseUnionVector value = (DenseUnionVector) root.getVector("value");
        for (int i = 0; i < root.getRowCount(); i++) {
          names.add(infoName.get(i));
          values.add(value.getObject(i));
        }
      }
    }
    assertEquals(List.of(FlightSql.SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE,
        FlightSql.SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION_VALUE,
        FlightSql.SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED_VALUE,
        FlightSql.SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY_VALUE), names);
    assertEquals("lake", values.get(0).toString());
    assertEquals(true, values.get(1));
    assertEquals(false, values.get(2));
    assertEquals(false, values.get(3));
  }

  /** {@code schema} without field metadata (the Flight SQL column metadata lake adds). */
  static Schema withoutColumnMetadata(Schema schema) {
    return new Schema(schema.getFields().stream()
        .map(f -> new Field(f.getName(),
            new FieldType(f.isNullable(), f.getType(), f.getDictionary()), f.getChildren()))
        .toList(), schema.getCustomMetadata());
  }

  /** Every row of the result as strings, in order; binary columns are left out. */
  static List<List<String>> rows(FlightSqlClient client, FlightInfo info,
      org.apache.arrow.flight.CallOption... options) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(),
        options)) {
      assertEquals(info.getSchemaOptional().orElseThrow(), stream.getSchema());
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<String> row = new ArrayList<>();
          for (var vector : root.getFieldVectors()) {
            if (!(vector instanceof VarBinaryVector) && !(vector instanceof BitVector)) {
              Object value = vector.getObject(r);
              row.add(value == null ? null : value.toString());
            }
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }
}
