package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.Version;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
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

/** {@code INSERT ... VALUES} mixing parameters and constants, bound with many rows. */
class SqlInsertMixedParametersTest {

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
        + " label VARCHAR, score INT)", allocator);
  }

  @AfterEach
  void close() {
    catalog.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  @Test
  void constantsBesideParametersFillEveryBoundRow() throws Exception {
    PreparedUpdate insert = engine.prepareUpdate("INSERT INTO s.t VALUES (?, 'lab', ?, 3 + 4)");
    assertEquals(List.of(new ArrowType.Int(64, true), ArrowType.Utf8.INSTANCE),
        insert.parameterSchema().getFields().stream().map(Field::getType).toList());
    assertEquals(List.of("id", "label"),
        insert.parameterSchema().getFields().stream().map(Field::getName).toList());
    try (Params params = new Params(allocator, 1000)) {
      assertEquals(1000, insert.execute(allocator, params).count());
    }
    assertEquals(Version.of(1), version(), "one version for all rows");
    assertEquals(List.of(List.of(1000L, 999L, "lab", "lab", 7, 7, "label-5")),
        rows("SELECT count(*), max(id), min(site), max(site), min(score), max(score),"
            + " min(CASE WHEN id = 5 THEN label END) FROM s.t"));
    // Re-executed with new values, the constants are the same.
    try (Params params = new Params(allocator, 3)) {
      assertEquals(3, insert.execute(allocator, params).count());
    }
    assertEquals(List.of(List.of(1003L, 7L)), rows("SELECT count(*), sum(score) / count(*) FROM s.t"));
  }

  @Test
  void severalValuesRowsGiveOneTableRowEachPerBoundRow() throws Exception {
    PreparedUpdate insert = engine.prepareUpdate(
        "INSERT INTO s.t (id, site) VALUES (?, 'a'), (100 + 1, ?)");
    assertEquals(List.of(new ArrowType.Int(64, true), ArrowType.Utf8.INSTANCE),
        insert.parameterSchema().getFields().stream().map(Field::getType).toList());
    try (Params params = new Params(allocator, 3)) {
      assertEquals(6, insert.execute(allocator, params).count());
    }
    assertEquals(List.of(List.of(0L, "a"), List.of(1L, "a"), List.of(2L, "a"),
        List.of(101L, "label-0"), List.of(101L, "label-1"), List.of(101L, "label-2")),
        rows("SELECT id, site FROM s.t ORDER BY id, site"));
    assertEquals(List.of(SqlFixture.list(0L)), rows("SELECT count(label) FROM s.t"),
        "an unlisted column is NULL");
  }

  @Test
  void aNullConstantInANotNullColumnIsRefusedAtPrepare() {
    SqlException e = assertThrows(SqlException.class,
        () -> engine.prepareUpdate("INSERT INTO s.t VALUES (?, NULL, ?, 1)"));
    assertEquals(SqlException.Kind.INVALID, e.kind(), e.getMessage());
    assertTrue(e.getMessage().contains("'site'"), e.getMessage());
    assertEquals(Version.of(0), version());
  }

  @Test
  void aConstantOfTheWrongTypeIsRefused() {
    SqlException wrongType = assertThrows(SqlException.class,
        () -> engine.prepareUpdate("INSERT INTO s.t VALUES (?, 'lab', ?, DATE '2024-01-01')"));
    assertEquals(SqlException.Kind.INVALID, wrongType.kind(), wrongType.getMessage());
    assertEquals(Version.of(0), version());
  }

  private Version version() {
    return catalog.openTable(new TableName("s", "t")).orElseThrow().currentVersion();
  }

  private List<List<Object>> rows(String sql) {
    return SqlFixture.rows(engine.prepare(sql), allocator);
  }

  /** Parameter rows {@code (BIGINT i, VARCHAR 'label-i')} for i in 0..n-1. */
  private static final class Params extends ArrowReader {
    private final int n;
    private boolean loaded;

    Params(BufferAllocator allocator, int n) {
      super(allocator);
      this.n = n;
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
        id.set(i, i);
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
