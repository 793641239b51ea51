package dev.lake.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.flight.LakeFlightServer;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LakeClient against a real in-process lake server without a principals file. */
class LakeClientTest {

  static final Instant AT = Instant.parse("2026-03-01T10:15:30.123456Z");

  @TempDir Path directory;
  private LakeTestServer server;
  private LakeClient lake;

  @BeforeEach
  void start() {
    server = new LakeTestServer(directory, LakeFlightServer.builder());
    lake = LakeClient.connect(server.uri(), Credentials.none());
    assertEquals(0, lake.execute("CREATE SCHEMA demo"));
    assertEquals(0, lake.execute("CREATE TABLE demo.robots (id BIGINT NOT NULL, name VARCHAR,"
        + " score DOUBLE, active BOOLEAN, day DATE, seen TIMESTAMP WITH TIME ZONE)"));
  }

  @AfterEach
  void stop() {
    lake.close();
    server.close();
  }

  private void insertTwo() {
    String insert = "INSERT INTO demo.robots (id, name, score, active, day, seen)"
        + " VALUES (?, ?, ?, ?, ?, ?)";
    assertEquals(1, lake.execute(insert, 1L, "atlas", 0.5, true, LocalDate.of(2026, 3, 1), AT));
    assertEquals(1, lake.execute(insert, 2, null, null, false, null, null));
  }

  @Test
  void insertWithParametersThenQueryBackAsRows() {
    insertTwo();
    List<Row> rows = new ArrayList<>();
    try (QueryResult result = lake.query(
        "SELECT id, name, score, active, day, seen FROM demo.robots WHERE id >= ? ORDER BY id",
        1L)) {
      result.rows().forEach(rows::add);
    }
    assertEquals(2, rows.size());
    Row atlas = rows.get(0);
    assertEquals(1L, atlas.getLong("id"));
    assertEquals("atlas", atlas.getString("name"));
    assertEquals(0.5, atlas.getDouble("score"));
    assertEquals(true, atlas.getObject("active"));
    assertEquals(LocalDate.of(2026, 3, 1), atlas.getObject("day"));
    assertEquals(AT, atlas.getObject("seen"));
    Row nulls = rows.get(1);
    assertEquals(2L, nulls.getLong("id"));
    assertNull(nulls.getString("name"));
    assertNull(nulls.getDouble("score"));
    assertNull(nulls.getObject("day"));
    assertNull(nulls.getObject("seen"));
    assertThrows(IllegalArgumentException.class, () -> atlas.getLong("name"));
    IllegalArgumentException missing =
        assertThrows(IllegalArgumentException.class, () -> atlas.getObject("nosuch"));
    assertTrue(missing.getMessage().contains("nosuch"), missing.getMessage());
  }

  @Test
  void queryWithStringParameterAsArrowReader() throws Exception {
    insertTwo();
    List<Long> ids = new ArrayList<>();
    List<String> names = new ArrayList<>();
    try (QueryResult result = lake.query("SELECT id, name FROM demo.robots WHERE name = ?",
        "atlas")) {
      ArrowReader reader = result.reader();
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        for (int i = 0; i < root.getRowCount(); i++) {
          ids.add(id.get(i));
          names.add(name.getObject(i).toString());
        }
      }
    }
    assertEquals(List.of(1L), ids);
    assertEquals(List.of("atlas"), names);
  }

  @Test
  void queryWithoutParametersAndEmptyResult() {
    try (QueryResult result = lake.query("SELECT id FROM demo.robots")) {
      assertFalse(result.rows().iterator().hasNext());
    }
    insertTwo();
    long count;
    try (QueryResult result = lake.query("SELECT count(*) AS n FROM demo.robots")) {
      count = result.rows().iterator().next().getLong("n");
    }
    assertEquals(2, count);
  }

  @Test
  void wrongPlaceholderCountIsInvalidArgumentAndInsertsNothing() {
    LakeException.InvalidArgument tooFew = assertThrows(LakeException.InvalidArgument.class,
        () -> lake.execute("INSERT INTO demo.robots (id, name) VALUES (?, ?)", 1L));
    assertTrue(tooFew.getMessage().contains("2 parameters and 1 value"), tooFew.getMessage());
    assertFalse(tooFew.retrySafe());
    assertThrows(LakeException.InvalidArgument.class,
        () -> lake.query("SELECT id FROM demo.robots WHERE id = ?", 1L, 2L));
    LakeException.InvalidArgument wrongType = assertThrows(LakeException.InvalidArgument.class,
        () -> lake.execute("INSERT INTO demo.robots (id) VALUES (?)", "one"));
    assertTrue(wrongType.getMessage().contains("parameter 1"), wrongType.getMessage());
    try (QueryResult result = lake.query("SELECT id FROM demo.robots")) {
      assertFalse(result.rows().iterator().hasNext());
    }
  }

  @Test
  void unknownTableIsNotFoundNamingIt() {
    LakeException.NotFound query = assertThrows(LakeException.NotFound.class,
        () -> lake.query("SELECT * FROM demo.nosuchtable"));
    assertTrue(query.getMessage().contains("nosuchtable"), query.getMessage());
    LakeException.NotFound insert = assertThrows(LakeException.NotFound.class,
        () -> lake.execute("INSERT INTO demo.nosuchtable (id) VALUES (?)", 1L));
    assertTrue(insert.getMessage().contains("nosuchtable"), insert.getMessage());
    assertEquals(1, lake.execute("INSERT INTO demo.robots (id) VALUES (?)", 7L));
  }

  @Test
  void badSqlIsInvalidArgument() {
    assertThrows(LakeException.InvalidArgument.class, () -> lake.query("SELECT id FORM demo.robots"));
  }

  @Test
  void badUriIsRefusedNamingIt() {
    IllegalArgumentException scheme = assertThrows(IllegalArgumentException.class,
        () -> LakeClient.connect("http://127.0.0.1:1234", Credentials.none()));
    assertTrue(scheme.getMessage().contains("'http'"), scheme.getMessage());
    IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
        () -> LakeClient.connect("grpc://127.0.0.1", Credentials.none()));
    assertTrue(port.getMessage().contains("port"), port.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> LakeClient.connect("grpc://bad host:1", Credentials.none()));
    assertThrows(IllegalArgumentException.class, () -> Credentials.bearer(" "));
  }

  @Test
  void unreachableServerIsUnavailableAndRetrySafe() {
    String uri = server.uri();
    lake.close();
    server.close(); // nothing listens on its port any more
    try (LakeClient gone = LakeClient.connect(uri, Credentials.none())) {
      LakeException.Unavailable e = assertThrows(LakeException.Unavailable.class,
          () -> gone.query("SELECT 1"));
      assertTrue(e.retrySafe());
    }
  }

  @Test
  void closedClientAndResultRefuseUse() {
    insertTwo();
    QueryResult open = lake.query("SELECT id FROM demo.robots");
    lake.close();
    lake.close();
    assertThrows(IllegalStateException.class, () -> lake.query("SELECT 1"));
    assertThrows(IllegalStateException.class, () -> lake.execute("DROP TABLE demo.robots"));
    // Closing the client closed the open result (and its buffers: the allocator closed clean).
    assertThrows(IllegalStateException.class, open::reader);
    open.close();
  }
}
