package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.Version;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DDL and INSERT through {@link SqlEngine} over real {@code log} tables. */
class SqlUpdateTest {

  @TempDir Path dir;
  private RootAllocator allocator;
  private LogTablesCatalog catalog;
  private SqlEngine engine;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    catalog = new LogTablesCatalog(dir);
    engine = new SqlEngine(catalog, Long.MAX_VALUE, 2);
  }

  @AfterEach
  void close() {
    catalog.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  private long update(String sql) {
    return engine.executeUpdate(sql, allocator);
  }

  private SqlException refused(String sql) {
    return assertThrows(SqlException.class, () -> update(sql));
  }

  private List<List<Object>> rows(String sql) {
    List<List<Object>> out = new ArrayList<>();
    try (ArrowReader reader = engine.prepare(sql).execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(SqlFixture.value(v, r));
          }
          out.add(row);
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }

  private Version version(String schema, String table) {
    return catalog.openTable(new TableName(schema, table)).orElseThrow().currentVersion();
  }

  @Test
  void createInsertAndQueryAsSqlLogicTestDoes() {
    assertEquals(0, update("CREATE TABLE t1(a INTEGER, b INTEGER, c INTEGER, d INTEGER, e INTEGER)"));
    assertEquals(1, update("INSERT INTO t1(e,c,b,d,a) VALUES(103,102,100,101,104)"));
    assertEquals(2, update("INSERT INTO t1 VALUES(1,2,3,4,5), (6,NULL,8,9,10)"));
    assertEquals(List.of(List.of(1, 2, 3, 4, 5), SqlFixture.list(6, null, 8, 9, 10),
        List.of(104, 100, 102, 101, 103)),
        rows("SELECT a, b, c, d, e FROM t1 ORDER BY a"));
    assertEquals(List.of("public"), catalog.schemaNames());
    assertEquals(Version.of(2), version("public", "t1"), "one version per INSERT");
  }

  @Test
  void primaryKeyAndUniqueAreDeclarationsThatMakeKeyColumnsNotNull() {
    update("CREATE TABLE t1(a1 INTEGER PRIMARY KEY, b1 INTEGER UNIQUE, x1 VARCHAR(40))");
    update("CREATE TABLE t2(a INT NOT NULL PRIMARY KEY, b INT, c INT, PRIMARY KEY (b, c), UNIQUE (a), CONSTRAINT u UNIQUE (c))");
    Schema t1 = catalog.openTable(new TableName("public", "t1")).orElseThrow().schema();
    assertFalse(t1.findField("a1").isNullable());
    assertTrue(t1.findField("b1").isNullable());
    Schema t2 = catalog.openTable(new TableName("public", "t2")).orElseThrow().schema();
    assertFalse(t2.findField("a").isNullable());
    assertFalse(t2.findField("b").isNullable());
    assertFalse(t2.findField("c").isNullable());
    // Not enforced: lake tables are append-only.
    assertEquals(2, update("INSERT INTO t1 VALUES (1, 1, 'x'), (1, 1, 'y')"));
    assertEquals(List.of(List.of(2L)), rows("SELECT count(*) FROM t1 WHERE a1 = 1"));
    assertEquals(SqlException.Kind.INVALID, refused("CREATE TABLE t3(a INT, PRIMARY KEY (b))").kind());
    assertEquals(SqlException.Kind.INVALID, refused("CREATE TABLE t3(a INT, b INT, PRIMARY KEY (a), PRIMARY KEY (b))").kind());
    assertEquals(SqlException.Kind.SYNTAX, refused("CREATE TABLE t3(a INT, CHECK (a > 0))").kind());
  }

  @Test
  void everyTypeAndNestedColumnsAreCreatedAsDocumented() {
    update("CREATE SCHEMA robots");
    update("CREATE TABLE robots.episodes (id BIGINT NOT NULL, name VARCHAR(20), ok BOOLEAN,"
        + " small SMALLINT, tiny TINYINT, i INT, r REAL, f FLOAT, d DOUBLE PRECISION,"
        + " price DECIMAL(10, 3), day DATE, at TIMESTAMP, blob VARBINARY, note TEXT,"
        + " embedding REAL[4], tags VARCHAR[], video ROW(uri VARCHAR, frames INT),"
        + " grid INT ARRAY, events ROW(t BIGINT, label VARCHAR)[])");
    Schema schema = catalog.openTable(new TableName("robots", "episodes")).orElseThrow().schema();
    assertEquals(new ArrowType.Int(64, true), schema.findField("id").getType());
    assertFalse(schema.findField("id").isNullable());
    assertTrue(schema.findField("name").isNullable());
    assertEquals(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), schema.findField("r").getType());
    assertEquals(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), schema.findField("f").getType());
    assertEquals(new ArrowType.Decimal(10, 3, 128), schema.findField("price").getType());
    assertEquals(ArrowType.Utf8.INSTANCE, schema.findField("note").getType());
    assertEquals(new ArrowType.FixedSizeList(4), schema.findField("embedding").getType());
    assertEquals(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
        schema.findField("embedding").getChildren().getFirst().getType());
    assertEquals(ArrowType.List.INSTANCE, schema.findField("tags").getType());
    assertEquals(ArrowType.Struct.INSTANCE, schema.findField("video").getType());
    assertEquals(List.of("uri", "frames"),
        schema.findField("video").getChildren().stream().map(Field::getName).toList());
    assertEquals(ArrowType.List.INSTANCE, schema.findField("grid").getType());
    Field events = schema.findField("events");
    assertEquals(ArrowType.List.INSTANCE, events.getType());
    assertEquals(ArrowType.Struct.INSTANCE, events.getChildren().getFirst().getType());
  }

  @Test
  void insertFillsUnlistedColumnsWithNullAndKeywordsAreNames() {
    update("CREATE SCHEMA demo");
    update("CREATE TABLE demo.m (id BIGINT NOT NULL, day DATE, value DOUBLE, name VARCHAR,"
        + " type VARCHAR, tags VARCHAR[])");
    assertEquals(2, update("INSERT INTO demo.m (id, value, day) VALUES (1, 2.5, DATE '2026-01-05'),"
        + " (2, 3, DATE '2026-01-06')"));
    assertEquals(List.of(
        SqlFixture.list(1L, LocalDate.of(2026, 1, 5), 2.5, null, null),
        SqlFixture.list(2L, LocalDate.of(2026, 1, 6), 3.0, null, null)),
        rows("SELECT id, day, value, name, type FROM demo.m ORDER BY id"));
    assertEquals(List.of(List.of(1L)), rows("SELECT count(*) AS value FROM demo.m WHERE tags IS NULL AND id = 1"));
  }

  @Test
  void insertSelectAndCreateTableAsCopyRowsInOneVersion() {
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.src (id BIGINT, label VARCHAR, price DECIMAL(8, 2))");
    update("INSERT INTO s.src VALUES (1, 'a', 1.50), (2, 'b', 2.25), (3, NULL, NULL)");
    assertEquals(3, update("CREATE TABLE s.copy AS SELECT id, label, price * 2 AS doubled FROM s.src"));
    assertEquals(Version.of(1), version("s", "copy"));
    assertEquals(List.of(SqlFixture.list(1L, "a", new BigDecimal("3.00"))),
        rows("SELECT id, label, doubled FROM s.copy WHERE id = 1"));
    assertEquals(2, update("INSERT INTO s.src (id, label) SELECT id + 10, label FROM s.src WHERE label IS NOT NULL"));
    assertEquals(Version.of(2), version("s", "src"));
    assertEquals(List.of(List.of(5L)), rows("SELECT count(*) FROM s.src"));
    assertEquals(0, update("INSERT INTO s.src SELECT * FROM s.src WHERE id < 0"));
    assertEquals(Version.of(2), version("s", "src"), "an INSERT of no rows adds no version");
    assertEquals(0, update("CREATE TABLE IF NOT EXISTS s.copy AS SELECT 1 AS x"));
    assertEquals(ArrowType.Utf8.INSTANCE,
        catalog.openTable(new TableName("s", "copy")).orElseThrow().schema().findField("label").getType());
  }

  @Test
  void schemasExistEmptyAndDropRestrictOrCascade() {
    update("CREATE SCHEMA empty");
    assertEquals(List.of("empty"), catalog.schemaNames());
    assertEquals(SqlException.Kind.ALREADY_EXISTS, refused("CREATE SCHEMA empty").kind());
    assertEquals(0, update("CREATE SCHEMA IF NOT EXISTS empty"));
    update("CREATE TABLE empty.t (x INT)");
    SqlException restrict = refused("DROP SCHEMA empty RESTRICT");
    assertEquals(SqlException.Kind.NOT_EMPTY, restrict.kind());
    assertTrue(restrict.getMessage().contains("empty"), restrict.getMessage());
    assertEquals(SqlException.Kind.NOT_EMPTY, refused("DROP SCHEMA empty").kind(), "RESTRICT is the default");
    assertTrue(catalog.openTable(new TableName("empty", "t")).isPresent());
    update("DROP SCHEMA empty CASCADE");
    assertEquals(List.of(), catalog.schemaNames());
    assertEquals(SqlException.Kind.TABLE_NOT_FOUND, refused("DROP SCHEMA empty").kind());
    assertEquals(0, update("DROP SCHEMA IF EXISTS empty"));
    assertEquals(SqlException.Kind.TABLE_NOT_FOUND, refused("CREATE TABLE nowhere.t (x INT)").kind());
  }

  @Test
  void ddlOnExistingOrMissingTablesIsRefusedAndChangesNothing() {
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (x INT)");
    update("INSERT INTO s.t VALUES (1)");
    assertEquals(SqlException.Kind.ALREADY_EXISTS, refused("CREATE TABLE s.t (y VARCHAR)").kind());
    assertEquals(0, update("CREATE TABLE IF NOT EXISTS s.t (y VARCHAR)"));
    assertEquals(List.of(List.of(1)), rows("SELECT x FROM s.t"));
    SqlException missing = refused("DROP TABLE s.nope");
    assertEquals(SqlException.Kind.TABLE_NOT_FOUND, missing.kind());
    assertTrue(missing.getMessage().contains("s.nope"), missing.getMessage());
    assertEquals(0, update("DROP TABLE IF EXISTS s.nope"));
    update("DROP TABLE s.t");
    assertEquals(List.of(), catalog.tableNames("s"));
  }

  @Test
  void badInsertsNameTheProblemAndWriteNothing() {
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (id BIGINT NOT NULL, label VARCHAR, day DATE)");
    update("INSERT INTO s.t VALUES (1, 'a', DATE '2026-01-01')");
    int appends = catalog.appends;

    SqlException table = refused("INSERT INTO s.nope VALUES (1)");
    assertEquals(SqlException.Kind.TABLE_NOT_FOUND, table.kind());
    assertTrue(table.getMessage().contains("nope"), table.getMessage());

    SqlException column = refused("INSERT INTO s.t (id, colour) VALUES (1, 'red')");
    assertEquals(SqlException.Kind.INVALID, column.kind());
    assertTrue(column.getMessage().contains("colour"), column.getMessage());

    SqlException count = refused("INSERT INTO s.t VALUES (1, 'a', DATE '2026-01-01', 4)");
    assertEquals(SqlException.Kind.INVALID, count.kind());
    SqlException listCount = refused("INSERT INTO s.t (id, label) VALUES (1)");
    assertEquals(SqlException.Kind.INVALID, listCount.kind());

    SqlException type = refused("INSERT INTO s.t (id, day) VALUES (2, 17)");
    assertEquals(SqlException.Kind.INVALID, type.kind());
    assertTrue(type.getMessage().contains("day"), type.getMessage());

    SqlException notNullMissing = refused("INSERT INTO s.t (label) VALUES ('x')");
    assertEquals(SqlException.Kind.INVALID, notNullMissing.kind());
    assertTrue(notNullMissing.getMessage().contains("id"), notNullMissing.getMessage());

    SqlException notNull = refused("INSERT INTO s.t (id, label) VALUES (3, 'x'), (NULL, 'y')");
    assertEquals(SqlException.Kind.INVALID, notNull.kind());
    assertTrue(notNull.getMessage().contains("'id'"), notNull.getMessage());

    SqlException notNullSelect = refused("INSERT INTO s.t (id) SELECT CAST(NULL AS BIGINT) FROM s.t");
    assertEquals(SqlException.Kind.INVALID, notNullSelect.kind());

    assertEquals(catalog.appends, appends, "no refused INSERT reached the table");
    assertEquals(Version.of(1), version("s", "t"));
    assertEquals(List.of(List.of(1L)), rows("SELECT count(*) FROM s.t"));
  }

  @Test
  void deleteUpdateAndMergeAreRefusedAsAppendOnly() {
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (x INT)");
    for (String statement : List.of("DELETE", "UPDATE", "MERGE")) {
      String sql = switch (statement) {
        case "DELETE" -> "DELETE FROM s.t WHERE x = 1";
        case "UPDATE" -> "UPDATE s.t SET x = 2";
        default -> "MERGE INTO s.t USING s.t AS u ON s.t.x = u.x WHEN MATCHED THEN UPDATE SET x = 1";
      };
      SqlException e = refused(sql);
      assertEquals(SqlException.Kind.UNSUPPORTED, e.kind(), sql);
      assertTrue(e.getMessage().startsWith(statement) && e.getMessage().contains("append-only"),
          e.getMessage());
    }
  }

  @Test
  void anUpdateReportsTheTableVersionItCommitted() {
    assertEquals(UpdateResult.none(), engine.prepareUpdate("CREATE SCHEMA s").execute(allocator));
    assertEquals(UpdateResult.none(),
        engine.prepareUpdate("CREATE TABLE s.t (x INT)").execute(allocator));
    assertEquals(new UpdateResult(2, Optional.of(Version.of(1))),
        engine.prepareUpdate("INSERT INTO s.t VALUES (1), (2)").execute(allocator));
    assertEquals(new UpdateResult(1, Optional.of(Version.of(2))),
        engine.prepareUpdate("INSERT INTO s.t VALUES (3)").execute(allocator));
    assertEquals(UpdateResult.none(),
        engine.prepareUpdate("INSERT INTO s.t SELECT x FROM s.t WHERE x > 10").execute(allocator),
        "an INSERT of no rows commits no version");
    assertEquals(Version.of(2), version("s", "t"));
    UpdateResult created = engine.prepareUpdate("CREATE TABLE s.u AS SELECT x FROM s.t")
        .execute(allocator);
    assertEquals(3, created.count());
    assertEquals(Optional.of(version("s", "u")), created.version());
  }

  @Test
  void insertIntoATableDroppedAfterPrepareIsNotFound() {
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (x INT)");
    PreparedUpdate insert = engine.prepareUpdate("INSERT INTO s.t VALUES (1)");
    update("DROP TABLE s.t");
    update("CREATE TABLE s.t (x INT)");
    SqlException e = assertThrows(SqlException.class, () -> insert.execute(allocator));
    assertEquals(SqlException.Kind.TABLE_NOT_FOUND, e.kind());
    assertEquals(Version.of(0), version("s", "t"), "the new table of that name is untouched");
  }

  @Test
  void preparedInsertTakesManyParameterRowsAsOneVersion() throws Exception {
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (id BIGINT NOT NULL, label VARCHAR, score REAL)");
    PreparedUpdate insert = engine.prepareUpdate("INSERT INTO s.t (id, label) VALUES (?, ?)");
    assertEquals(List.of("id", "label"),
        insert.parameterSchema().getFields().stream().map(Field::getName).toList());
    assertEquals(new ArrowType.Int(64, true), insert.parameterSchema().getFields().get(0).getType());
    int n = 5000;
    try (Params params = new Params(allocator, n, false)) {
      assertEquals(new UpdateResult(n, Optional.of(Version.of(1))),
          insert.execute(allocator, params));
    }
    assertEquals(Version.of(1), version("s", "t"));
    assertEquals(List.of(SqlFixture.list((long) n, 4999L, "label-7")),
        rows("SELECT count(*), max(id), min(CASE WHEN id = 7 THEN label END) FROM s.t"));
    try (Params params = new Params(allocator, 10, true)) {
      SqlException e = assertThrows(SqlException.class, () -> insert.execute(allocator, params));
      assertEquals(SqlException.Kind.INVALID, e.kind());
      assertTrue(e.getMessage().contains("'id'"), e.getMessage());
    }
    assertEquals(Version.of(1), version("s", "t"));
    SqlException unbound = assertThrows(SqlException.class, () -> insert.execute(allocator));
    assertEquals(SqlException.Kind.INVALID, unbound.kind());
  }

  @Test
  void updatesAreToldFromQueriesAndNotPreparedAsQueries() {
    assertTrue(engine.isUpdate("  /* c */ insert into t values (1)"));
    assertTrue(engine.isUpdate("CREATE SCHEMA x"));
    assertTrue(engine.isUpdate("drop table x"));
    assertFalse(engine.isUpdate("SELECT 1"));
    assertFalse(engine.isUpdate("WITH x AS (SELECT 1) SELECT * FROM x"));
    assertEquals(SqlException.Kind.INVALID,
        assertThrows(SqlException.class, () -> engine.prepare("CREATE SCHEMA x")).kind());
  }

  @Test
  void malformedDdlIsASyntaxErrorWithItsPosition() {
    SqlException e = refused("DROP SCHEMA a b");
    assertEquals(SqlException.Kind.SYNTAX, e.kind());
    assertEquals(1, e.line());
    assertEquals(15, e.column());
    assertEquals(SqlException.Kind.SYNTAX, refused("CREATE TABLE s.t (x INT[)").kind());
    assertEquals(SqlException.Kind.INVALID, refused("CREATE TABLE s.t (x INT) WITH (colour = 'red')").kind());
    assertEquals(SqlException.Kind.UNSUPPORTED, refused("CREATE TABLE s.t (x TIME)").kind());
  }

  /** Parameter rows {@code (id, label)}: ids 0..n-1, or with a NULL id. */
  private static final class Params extends ArrowReader {
    private final int n;
    private final boolean nullId;
    private boolean loaded;

    Params(RootAllocator allocator, int n, boolean nullId) {
      super(allocator);
      this.n = n;
      this.nullId = nullId;
    }

    @Override
    public boolean loadNextBatch() throws java.io.IOException {
      if (loaded) {
        return false;
      }
      loaded = true;
      VectorSchemaRoot root = getVectorSchemaRoot();
      BigIntVector id = (BigIntVector) root.getVector(0);
      VarCharVector label = (VarCharVector) root.getVector(1);
      id.allocateNew(n);
      label.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if (nullId && i == 3) {
          id.setNull(i);
        } else {
          id.set(i, i);
        }
        label.setSafe(i, new Text("label-" + i));
      }
      root.setRowCount(n);
      return true;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
      return new Schema(List.of(Field.nullable("$0", new ArrowType.Int(64, true)),
          Field.nullable("$1", ArrowType.Utf8.INSTANCE)));
    }
  }
}
