package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.sql.tpch.MapCatalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Subqueries over the {@code log} engine whose predicate prunes every block by statistics, so
 * their scan has no units at all: an empty subquery must answer like one whose blocks were read
 * and filtered to nothing. Found by {@code SqlRandomDifferentialTest} (seed 11, query 290).
 */
class SqlPrunedSubqueryTest {
  private static final Schema SCHEMA = new Schema(List.of(
      Field.nullable("k", new ArrowType.Int(32, true)),
      Field.nullable("s", ArrowType.Utf8.INSTANCE),
      Field.nullable("v", new ArrowType.Int(64, true))));

  @TempDir Path dir;
  private BufferAllocator allocator;
  private TableEngine log;
  private final List<TableHandle> handles = new ArrayList<>();
  private SqlEngine sql;

  @BeforeEach
  void load() {
    allocator = new RootAllocator();
    log = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow()
        .create(Map.of("log.block.rows", "2"));
    MapCatalog catalog = new MapCatalog();
    catalog.put(new TableName("fuzz", "t"), table("t", List.of(
        row(1, null, null), row(1, "Beta", null), row(2, "alpha", -7L), row(3, "gamma", 5L),
        row(null, "delta", 1L), row(4, "beta", 2L), row(-5, null, 3L), row(3, null, null))));
    // Smallest k is -5: "k < -5" prunes every block of u.
    catalog.put(new TableName("fuzz", "u"), table("u", List.of(
        row(-5, "x", 1L), row(0, null, 2L), row(null, "y", 3L), row(7, "z", 4L))));
    // Two workers on any machine, so aggregates over a scan take the parallel (morsel) path.
    sql = new SqlEngine(catalog, Long.MAX_VALUE, 2);
  }

  @AfterEach
  void close() {
    handles.forEach(TableHandle::close);
    log.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  @Test
  void notInOverAFullyPrunedSubqueryKeepsEveryRowTheOtherConjunctKeeps() throws Exception {
    // NOT k IN (empty) is TRUE for every row; the OR is TRUE for k in 1..3 and NULL otherwise.
    List<List<Object>> expected = List.of(
        Arrays.asList(1, null, null), Arrays.asList(1, "Beta", null), Arrays.asList(3, null, null),
        Arrays.asList(2, "alpha", -7L), Arrays.asList(3, "gamma", 5L));
    String query = "SELECT k, s, v FROM t WHERE NOT k IN (SELECT k FROM u WHERE (k < -5)) "
        + "AND ((k IN (1, 2, 3)) OR (k IN (1, 2, 3, NULL))) "
        + "ORDER BY v NULLS FIRST, k NULLS FIRST, s NULLS FIRST LIMIT 50";
    assertEquals(expected, run(query));
    List<Object> plan = run("EXPLAIN " + query).stream().map(r -> r.getFirst()).toList();
    assertTrue(plan.stream().anyMatch(l -> ((String) l).contains("fuzz.u version 1 columns=[k]")
        && ((String) l).contains("units=0")), plan.toString());
    // The same rows when the subquery reads blocks and finds {-5, 0}.
    assertEquals(expected, run(query.replace("k < -5", "k < 1")));
    // And none once the subquery's set holds NULL: NOT IN is then never TRUE.
    assertEquals(List.of(), run(query.replace(" WHERE (k < -5)", "")));
  }

  @Test
  void notInOverAFullyPrunedSubqueryIsTrueForANullKey() throws Exception {
    assertEquals(List.of(Arrays.asList(null, "delta", 1L), Arrays.asList(-5, null, 3L)),
        run("SELECT k, s, v FROM t WHERE k NOT IN (SELECT k FROM u WHERE k < -5) "
            + "AND (k IS NULL OR k < 0) ORDER BY k NULLS FIRST"));
  }

  @Test
  void countsOverAFullyPrunedScanAreZero() throws Exception {
    assertEquals(List.of(Arrays.asList(0L, 0L, null, null)),
        run("SELECT count(*), count(s), sum(v), min(s) FROM (SELECT * FROM u WHERE k < -5) e"));
    assertEquals(List.of(Arrays.asList(-5, 0L), Arrays.asList(1, 0L), Arrays.asList(1, 0L)),
        run("SELECT k, (SELECT count(*) FROM u WHERE k < -5) FROM t WHERE k < 2 ORDER BY k"));
  }

  private static Object[] row(Object... values) {
    return values;
  }

  private TableHandle table(String name, List<Object[]> rows) {
    TableHandle handle = log.create(TableLocation.of(dir.resolve(name)), SCHEMA);
    handles.add(handle);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      root.allocateNew();
      IntVector k = (IntVector) root.getVector("k");
      VarCharVector s = (VarCharVector) root.getVector("s");
      BigIntVector v = (BigIntVector) root.getVector("v");
      for (int i = 0; i < rows.size(); i++) {
        Object[] r = rows.get(i);
        if (r[0] == null) k.setNull(i); else k.setSafe(i, (Integer) r[0]);
        if (r[1] == null) s.setNull(i); else s.setSafe(i, ((String) r[1]).getBytes());
        if (r[2] == null) v.setNull(i); else v.setSafe(i, (Long) r[2]);
      }
      root.setRowCount(rows.size());
      try (RecordBatchReader reader = new RecordBatchReader(allocator, SCHEMA,
          List.of(new VectorUnloader(root).getRecordBatch()))) {
        handle.append(new AppendOperation("fuzz", name, UUID.randomUUID(),
            String.format("%064x", rows.size())), reader);
      }
    } catch (Exception e) {
      throw new AssertionError("loading " + name, e);
    }
    return handle;
  }

  private List<List<Object>> run(String query) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (ArrowReader reader = sql.prepare(query).execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (var vector : root.getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text t ? t.toString() : value);
          }
          out.add(row);
        }
      }
    }
    return out;
  }
}
