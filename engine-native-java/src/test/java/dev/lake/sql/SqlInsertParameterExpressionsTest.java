package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.Version;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code INSERT ... VALUES} with parameters inside expressions, bound with many rows. */
class SqlInsertParameterExpressionsTest {

  @TempDir Path dir;
  private RootAllocator allocator;
  private LogTablesCatalog catalog;
  private SqlEngine engine;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    catalog = new LogTablesCatalog(dir);
    engine = new SqlEngine(catalog, Long.MAX_VALUE, 2);
    engine.executeUpdate("CREATE SCHEMA s", allocator);
    engine.executeUpdate("CREATE TABLE s.t (id BIGINT NOT NULL, site VARCHAR NOT NULL,"
        + " day DATE, score INT)", allocator);
  }

  @AfterEach
  void close() {
    catalog.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  @Test
  void parametersInsideExpressionsAreTypedByTheValidatorAndEvaluatedPerBoundRow() throws Exception {
    PreparedUpdate insert = engine.prepareUpdate(
        "INSERT INTO s.t VALUES (? + 1, upper(?), CAST(? AS DATE), 7)");
    List<ArrowType> types = insert.parameterSchema().getFields().stream().map(Field::getType).toList();
    assertEquals(3, types.size());
    assertEquals(new ArrowType.Int(32, true), types.get(0), "typed as the literal it is added to");
    assertEquals(ArrowType.Utf8.INSTANCE, types.get(1));
    try (ArrowReader params = params(allocator, 1000, types.get(2), false)) {
      assertEquals(1000, insert.execute(allocator, params).count());
    }
    assertEquals(Version.of(1), version(), "one version for all rows");
    assertEquals(List.of(List.of(1000L, 1L, 1000L, "SITE-0", "SITE-999", 7, 7)),
        rows("SELECT count(*), min(id), max(id), min(site), max(site), min(score), max(score) FROM s.t"));
    assertEquals(List.of(List.of(LocalDate.of(2024, 1, 4), "SITE-3")),
        rows("SELECT day, site FROM s.t WHERE id = 4"));
    // Re-executed with new values: a second version, NULLs stay NULL through the expressions.
    try (ArrowReader params = params(allocator, 3, types.get(2), true)) {
      assertEquals(3, insert.execute(allocator, params).count());
    }
    assertEquals(Version.of(2), version());
    assertEquals(List.of(List.of(1003L, 1000L)), rows("SELECT count(*), count(day) FROM s.t"));
  }

  @Test
  void severalValuesRowsMixBareParametersExpressionsAndConstants() throws Exception {
    PreparedUpdate insert = engine.prepareUpdate("INSERT INTO s.t (id, site, score) VALUES"
        + " (?, lower(?), ? * 2), (-1, 'x' || ?, CAST(NULL AS INT))");
    try (ArrowReader params = reader(allocator, 3)) {
      assertEquals(6, insert.execute(allocator, params).count());
    }
    assertEquals(Version.of(1), version());
    List<Object> constant = java.util.Arrays.asList(-1L, "xc", null);
    assertEquals(List.of(constant, constant, constant,
        List.of(0L, "a", 0), List.of(1L, "a", 2), List.of(2L, "a", 4)),
        rows("SELECT id, site, score FROM s.t ORDER BY id, score"));
  }

  @Test
  void aDataErrorInAnExpressionChangesNothing() throws Exception {
    PreparedUpdate insert = engine.prepareUpdate("INSERT INTO s.t (id, site) VALUES (10 / ?, 'a')");
    try (ArrowReader params = ints(allocator, 5, 1, 0)) {
      SqlException e = assertThrows(SqlException.class, () -> insert.execute(allocator, params));
      assertEquals(SqlException.Kind.EXECUTION, e.kind(), e.getMessage());
    }
    // A NULL from an expression into a NOT NULL column is refused naming the column.
    PreparedUpdate nulls = engine.prepareUpdate("INSERT INTO s.t (id, site) VALUES (? + 1, 'a')");
    try (ArrowReader params = ints(allocator, 1, null)) {
      SqlException e = assertThrows(SqlException.class, () -> nulls.execute(allocator, params));
      assertEquals(SqlException.Kind.INVALID, e.kind(), e.getMessage());
      assertTrue(e.getMessage().contains("'id'"), e.getMessage());
    }
    assertEquals(Version.of(0), version());
  }

  @Test
  void untypableParametersAndQueriesAreStillRefusedPrecisely() {
    SqlException both = assertThrows(SqlException.class,
        () -> engine.prepareUpdate("INSERT INTO s.t (id, site) VALUES (? + ?, 'a')"));
    assertEquals(SqlException.Kind.INVALID, both.kind(), both.getMessage());
    assertTrue(both.getMessage().contains("parameter 1"), both.getMessage());
    SqlException query = assertThrows(SqlException.class,
        () -> engine.prepareUpdate("INSERT INTO s.t (id, site) SELECT ? + 1, 'a'"));
    assertEquals(SqlException.Kind.UNSUPPORTED, query.kind(), query.getMessage());
    assertEquals(Version.of(0), version());
  }

  private Version version() {
    return catalog.openTable(new TableName("s", "t")).orElseThrow().currentVersion();
  }

  private List<List<Object>> rows(String sql) {
    return SqlFixture.rows(engine.prepare(sql), allocator);
  }

  /** Rows {@code (i, 'A', 'C', i)} for i in 0..n-1: BIGINT, VARCHAR, VARCHAR, INT. */
  private static ArrowReader reader(BufferAllocator allocator, int n) {
    Schema schema = new Schema(List.of(Field.nullable("a", new ArrowType.Int(64, true)),
        Field.nullable("b", ArrowType.Utf8.INSTANCE), Field.nullable("c", new ArrowType.Int(32, true)),
        Field.nullable("d", ArrowType.Utf8.INSTANCE)));
    return new OneBatch(allocator, schema, root -> {
      for (int i = 0; i < n; i++) {
        ((BigIntVector) root.getVector(0)).setSafe(i, i);
        ((VarCharVector) root.getVector(1)).setSafe(i, new Text("A"));
        ((IntVector) root.getVector(2)).setSafe(i, i);
        ((VarCharVector) root.getVector(3)).setSafe(i, new Text("c"));
      }
      return n;
    });
  }

  private static ArrowReader ints(BufferAllocator allocator, Integer... values) {
    Schema schema = new Schema(List.of(Field.nullable("a", new ArrowType.Int(32, true))));
    return new OneBatch(allocator, schema, root -> {
      IntVector v = (IntVector) root.getVector(0);
      for (int i = 0; i < values.length; i++) {
        if (values[i] == null) {
          v.setNull(i);
        } else {
          v.setSafe(i, values[i]);
        }
      }
      return values.length;
    });
  }

  private static final class OneBatch extends ArrowReader {
    private final Schema schema;
    private final java.util.function.ToIntFunction<VectorSchemaRoot> fill;
    private boolean loaded;

    OneBatch(BufferAllocator allocator, Schema schema, java.util.function.ToIntFunction<VectorSchemaRoot> fill) {
      super(allocator);
      this.schema = schema;
      this.fill = fill;
    }

    @Override
    public boolean loadNextBatch() throws java.io.IOException {
      if (loaded) {
        return false;
      }
      loaded = true;
      VectorSchemaRoot root = getVectorSchemaRoot();
      root.allocateNew();
      int n = fill.applyAsInt(root);
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
      return schema;
    }
  }

  /** Rows {@code (i, 'site-i', <day 2024-01-01 + i>)}, the day as the parameter's type (or NULL). */
  private static ArrowReader params(BufferAllocator allocator, int n, ArrowType dayType, boolean nullDay) {
    Schema schema = new Schema(List.of(Field.nullable("$0", new ArrowType.Int(64, true)),
        Field.nullable("$1", ArrowType.Utf8.INSTANCE), Field.nullable("$2", dayType)));
    return new OneBatch(allocator, schema, root -> {
      for (int i = 0; i < n; i++) {
        ((BigIntVector) root.getVector(0)).setSafe(i, i);
        ((VarCharVector) root.getVector(1)).setSafe(i, new Text("site-" + i));
        FieldVector day = root.getVector(2);
        if (nullDay) {
          day.setNull(i);
        } else if (day instanceof org.apache.arrow.vector.DateDayVector d) {
          d.setSafe(i, (int) LocalDate.of(2024, 1, 1).plusDays(i).toEpochDay());
        } else {
          ((VarCharVector) day).setSafe(i, new Text(LocalDate.of(2024, 1, 1).plusDays(i).toString()));
        }
      }
      return n;
    });
  }
}
