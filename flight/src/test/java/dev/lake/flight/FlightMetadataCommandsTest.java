package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.lake.catalog.TableIdent;
import java.util.Optional;
import java.nio.file.Path;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import dev.lake.engine.AppendOperation;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.flight.sql.util.TableRef;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GetXdbcTypeInfo, the key commands, GetSqlInfo's edges and hostile command bytes, over the stock FlightSqlClient. */
class FlightMetadataCommandsTest {

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    lake.registry.create(TableIdent.of("demo", "episodes"), IngestData.EPISODES, "log");
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 1, 20)) {
      lake.registry.append(TableIdent.of("demo", "episodes"), Optional.empty(), new AppendOperation("default",
          "demo.episodes", UUID.randomUUID(), "0".repeat(64)), rows);
    }
  }

  @AfterEach
  void stop() throws Exception {
    try (FlightClient closing = raw) {
      raw = null;
    } finally {
      lake.close();
    }
  }

  private FlightClient raw;

  /** A plain Flight client, for descriptors FlightSqlClient would not build. */
  private FlightClient raw() {
    if (raw == null) {
      raw = FlightClient.builder(lake.clientAllocator(), Location.forGrpcInsecure("127.0.0.1", lake.port())).build();
    }
    return raw;
  }

  @Test
  void xdbcTypeInfoListsEveryStoredTypeOrderedByJdbcType() throws Exception {
    FlightSqlClient client = lake.client();
    FlightInfo info = client.getXdbcTypeInfo();
    assertEquals(FlightSqlProducer.Schemas.GET_TYPE_INFO_SCHEMA, info.getSchemaOptional().orElseThrow());
    List<String> names = new ArrayList<>();
    List<Integer> types = new ArrayList<>();
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          String name = ((VarCharVector) root.getVector("type_name")).getObject(i).toString();
          names.add(name);
          types.add(((IntVector) root.getVector("data_type")).get(i));
          if (name.equals("DECIMAL")) {
            assertEquals(38, ((IntVector) root.getVector("column_size")).get(i));
            assertEquals(10, ((IntVector) root.getVector("num_prec_radix")).get(i));
            assertEquals(38, ((IntVector) root.getVector("maximum_scale")).get(i));
            assertEquals(List.of("precision", "scale"),
                ((List<?>) root.getVector("create_params").getObject(i)).stream().map(Object::toString).toList());
          }
          if (name.equals("VARCHAR")) {
            assertEquals("'", root.getVector("literal_prefix").getObject(i).toString());
            assertEquals(1, ((BitVector) root.getVector("case_sensitive")).get(i));
            assertEquals(3, ((IntVector) root.getVector("searchable")).get(i));
          }
          if (name.equals("DATE")) {
            assertEquals("DATE '", root.getVector("literal_prefix").getObject(i).toString());
            assertEquals(9, ((IntVector) root.getVector("sql_data_type")).get(i));
            assertEquals(1, ((IntVector) root.getVector("datetime_subcode")).get(i));
          }
          assertEquals(1, ((IntVector) root.getVector("nullable")).get(i));
        }
      }
    }
    assertEquals(Set.of("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "REAL", "DOUBLE", "BOOLEAN",
        "VARCHAR", "DECIMAL", "DATE", "TIMESTAMP", "VARBINARY", "ARRAY", "STRUCT"),
        new HashSet<>(names));
    List<Integer> sorted = new ArrayList<>(types);
    sorted.sort(null);
    assertEquals(sorted, types, "rows are ordered by data_type");
    assertEquals(Types.TIMESTAMP_WITH_TIMEZONE, types.get(names.indexOf("TIMESTAMP")));
    assertEquals(Types.BIGINT, types.get(names.indexOf("BIGINT")));
  }

  @Test
  void xdbcTypeInfoHonoursTheDataTypeFilter() throws Exception {
    FlightSqlClient client = lake.client();
    assertEquals(List.of(List.of("DECIMAL")), typeNames(client, client.getXdbcTypeInfo(Types.DECIMAL)));
    assertEquals(List.of(), typeNames(client, client.getXdbcTypeInfo(Types.CLOB)));
  }

  @Test
  void keyCommandsAnswerNoRowsWithTheFlightSqlSchemas() throws Exception {
    FlightSqlClient client = lake.client();
    TableRef episodes = TableRef.of("lake", "demo", "episodes");
    assertNoRows(client, client.getPrimaryKeys(episodes), FlightSqlProducer.Schemas.GET_PRIMARY_KEYS_SCHEMA);
    assertNoRows(client, client.getExportedKeys(episodes), FlightSqlProducer.Schemas.GET_EXPORTED_KEYS_SCHEMA);
    assertNoRows(client, client.getImportedKeys(episodes), FlightSqlProducer.Schemas.GET_IMPORTED_KEYS_SCHEMA);
    assertNoRows(client, client.getCrossReference(episodes, TableRef.of("lake", "demo", "frames")),
        FlightSqlProducer.Schemas.GET_CROSS_REFERENCE_SCHEMA);
    assertEquals(FlightSqlProducer.Schemas.GET_PRIMARY_KEYS_SCHEMA,
        client.getPrimaryKeysSchema().getSchema());
  }

  @Test
  void sqlInfoWithAnUnknownIdIsNotFoundNamingIt() {
    FlightSqlClient client = lake.client();
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> {
      FlightInfo info = client.getSqlInfo(new int[] {FlightSql.SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE, 9_999});
      try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
        stream.next();
      }
    });
    assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
    assertTrue(e.getMessage().contains("9999"), e.getMessage());
  }

  @Test
  void sqlInfoReportsDdlNoTransactionsCaseAndTheFunctions() throws Exception {
    FlightSqlClient client = lake.client();
    List<Object> all = sqlInfo(client);
    assertFalse(all.isEmpty());
    assertEquals(true, sqlInfo(client, FlightSql.SqlInfo.SQL_DDL_TABLE).getFirst());
    assertEquals(true, sqlInfo(client, FlightSql.SqlInfo.SQL_DDL_SCHEMA).getFirst());
    assertEquals(false, sqlInfo(client, FlightSql.SqlInfo.SQL_DDL_CATALOG).getFirst());
    assertEquals(false, sqlInfo(client, FlightSql.SqlInfo.SQL_TRANSACTIONS_SUPPORTED).getFirst());
    assertEquals(FlightSql.SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE_VALUE,
        ((Number) sqlInfo(client, FlightSql.SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION).getFirst()).intValue());
    assertEquals(FlightSql.SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_LOWERCASE_VALUE,
        ((Number) sqlInfo(client, FlightSql.SqlInfo.SQL_IDENTIFIER_CASE).getFirst()).intValue());
    assertEquals(128L, sqlInfo(client, FlightSql.SqlInfo.SQL_MAX_TABLE_NAME_LENGTH).getFirst());
    String keywords = sqlInfo(client, FlightSql.SqlInfo.SQL_KEYWORDS).getFirst().toString();
    assertTrue(keywords.contains("LIMIT"), keywords);
    String strings = sqlInfo(client, FlightSql.SqlInfo.SQL_STRING_FUNCTIONS).getFirst().toString();
    assertTrue(strings.contains("UPPER") && strings.contains("SUBSTRING"), strings);
  }

  @Test
  void everyListedFunctionRuns() throws Exception {
    FlightSqlClient client = lake.client();
    List<String> listed = new ArrayList<>();
    for (FlightSql.SqlInfo id : List.of(FlightSql.SqlInfo.SQL_NUMERIC_FUNCTIONS,
        FlightSql.SqlInfo.SQL_STRING_FUNCTIONS, FlightSql.SqlInfo.SQL_DATETIME_FUNCTIONS,
        FlightSql.SqlInfo.SQL_SYSTEM_FUNCTIONS)) {
      for (Object name : (List<?>) sqlInfo(client, id).getFirst()) {
        listed.add(name.toString());
      }
    }
    for (String function : listed) {
      String call = switch (function) {
        case "MOD" -> "MOD(id, 3)";
        case "SUBSTRING" -> "SUBSTRING(robot FROM 1 FOR 2)";
        case "EXTRACT" -> "EXTRACT(YEAR FROM DATE '2026-01-05')";
        case "COALESCE" -> "COALESCE(robot, 'none')";
        default -> function + "(robot)";
      };
      FlightInfo info = client.execute("SELECT " + call + " FROM demo.episodes");
      int rows = 0;
      try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
        while (stream.next()) {
          rows += stream.getRoot().getRowCount();
        }
      }
      assertEquals(20, rows, function);
    }
    assertTrue(listed.size() >= 5, listed.toString());
  }

  @Test
  void garbageInsideEveryMetadataCommandIsInvalidArgumentNeverInternal() throws Exception {
    List<Message> prototypes = List.of(FlightSql.CommandGetCatalogs.getDefaultInstance(),
        FlightSql.CommandGetDbSchemas.getDefaultInstance(),
        FlightSql.CommandGetTables.getDefaultInstance(),
        FlightSql.CommandGetTableTypes.getDefaultInstance(),
        FlightSql.CommandGetSqlInfo.getDefaultInstance(),
        FlightSql.CommandGetXdbcTypeInfo.getDefaultInstance(),
        FlightSql.CommandGetPrimaryKeys.getDefaultInstance(),
        FlightSql.CommandGetExportedKeys.getDefaultInstance(),
        FlightSql.CommandGetImportedKeys.getDefaultInstance(),
        FlightSql.CommandGetCrossReference.getDefaultInstance());
    // A length-delimited field 1 claiming far more bytes than follow: never parses.
    byte[] truncated = {0x0a, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0x01};
    long seed = 17L;
    Random random = new Random(seed);
    for (Message prototype : prototypes) {
      Any garbage = Any.pack(prototype).toBuilder().setValue(ByteString.copyFrom(truncated)).build();
      FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
          () -> raw().getSchema(FlightDescriptor.command(garbage.toByteArray())));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.getMessage());
      assertTrue(e.getMessage().contains(prototype.getClass().getSimpleName()), e.getMessage());
      // The same garbage in a ticket (sealed as the server seals: only a key holder could) is
      // refused by DoGet alike.
      Ticket ticket = new Ticket(lake.sealTicket(TicketCodec.encodeCommand(garbage)));
      FlightRuntimeException get = assertThrows(FlightRuntimeException.class, () -> {
        try (FlightStream stream = lake.client().getStream(ticket)) {
          stream.next();
        }
      });
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, get.status().code(), get.getMessage());
      for (int round = 0; round < 30; round++) {
        byte[] bytes = new byte[random.nextInt(40)];
        random.nextBytes(bytes);
        Any any = Any.pack(prototype).toBuilder().setValue(ByteString.copyFrom(bytes)).build();
        try {
          FlightInfo info = raw().getInfo(FlightDescriptor.command(any.toByteArray()));
          try (FlightStream stream = raw().getStream(info.getEndpoints().get(0).getTicket())) {
            while (stream.next()) {
              assertTrue(stream.getRoot().getRowCount() >= 0);
            }
          }
        } catch (FlightRuntimeException refused) {
          assertNotEquals(FlightStatusCode.INTERNAL, refused.status().code(),
              "seed " + seed + " " + prototype.getClass().getSimpleName() + ": " + refused);
          assertNotEquals(FlightStatusCode.UNKNOWN, refused.status().code(),
              "seed " + seed + " " + prototype.getClass().getSimpleName() + ": " + refused);
        }
      }
    }
  }

  @Test
  void hostileSearchPatternsAnswerAtOnceOrAreRefusedNamingTheLimit() throws Exception {
    FlightSqlClient client = lake.client();
    String manyPercents = "%".repeat(LikePattern.MAX_LENGTH - 1) + "x";
    assertEquals(List.of(), FlightMetadataTest.rows(client, client.getSchemas(null, manyPercents)));
    assertEquals(List.of(), FlightMetadataTest.rows(client,
        client.getTables(null, "%d%e%m%o%", "%e".repeat(500) + "x", null, false)));
    FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () ->
        FlightMetadataTest.rows(client, client.getTables(null, null, "%".repeat(5_000), null, false)));
    assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
    assertTrue(e.getMessage().contains("table_name_filter_pattern"), e.getMessage());
  }

  private static List<Object> sqlInfo(FlightSqlClient client, FlightSql.SqlInfo... ids) throws Exception {
    FlightInfo info = client.getSqlInfo(ids);
    List<Object> values = new ArrayList<>();
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        UInt4Vector names = (UInt4Vector) root.getVector("info_name");
        DenseUnionVector value = (DenseUnionVector) root.getVector("value");
        for (int i = 0; i < root.getRowCount(); i++) {
          if (ids.length > 0) {
            assertEquals(ids[values.size()].getNumber(), names.get(i));
          }
          values.add(value.getObject(i));
        }
      }
    }
    return values;
  }

  private static List<List<String>> typeNames(FlightSqlClient client, FlightInfo info) throws Exception {
    List<List<String>> names = new ArrayList<>();
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          names.add(List.of(root.getVector("type_name").getObject(i).toString()));
        }
      }
    }
    return names;
  }

  private static void assertNoRows(FlightSqlClient client, FlightInfo info,
      org.apache.arrow.vector.types.pojo.Schema expected) throws Exception {
    assertEquals(expected, info.getSchemaOptional().orElseThrow());
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      assertEquals(expected, stream.getSchema());
      int rows = 0;
      while (stream.next()) {
        rows += stream.getRoot().getRowCount();
      }
      assertEquals(0, rows);
    }
  }
}
