package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.log.LogEngineFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;
import java.util.UUID;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nearest-neighbour queries over a real {@code log} table of random {@code REAL[16]} embeddings
 * (several versions, small blocks, so the scan runs as many morsels on several workers, and some
 * NULL embeddings): {@code ORDER BY <distance> LIMIT k}, which runs as a top-k, gives exactly the
 * first {@code k} rows of the full sort, and the same ids and distances as DuckDB's {@code
 * array_distance}, {@code array_cosine_distance} and {@code array_inner_product} on the same data.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlNearestNeighboursTest {

  private static final int DIM = 16;
  private static final int ROWS_PER_VERSION = 6_000;
  private static final int VERSIONS = 3;
  private static final String T = "robots.frames";
  private static final Schema SCHEMA = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      new Field("emb", FieldType.nullable(new ArrowType.FixedSizeList(DIM)), List.of(
          Field.notNullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));

  @TempDir static Path dir;
  private RootAllocator allocator;
  private TableEngine log;
  private TableHandle table;
  private Connection duck;
  private final List<float[]> embeddings = new ArrayList<>();
  private final Random random = new Random(20261202);

  @BeforeAll
  void load() throws Exception {
    allocator = new RootAllocator();
    log = new LogEngineFactory().create(Map.of("log.block.rows", "1000"));
    table = log.create(TableLocation.of(dir.resolve("frames")), SCHEMA);
    duck = DriverManager.getConnection("jdbc:duckdb:");
    duck.createStatement().execute("CREATE TABLE frames (id BIGINT, emb FLOAT[" + DIM + "])");
    for (int version = 0; version < VERSIONS; version++) {
      StringJoiner values = new StringJoiner(", ", "INSERT INTO frames VALUES ", "");
      try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
        BigIntVector id = (BigIntVector) root.getVector("id");
        FixedSizeListVector emb = (FixedSizeListVector) root.getVector("emb");
        Float4Vector items = (Float4Vector) emb.getDataVector();
        root.allocateNew();
        for (int i = 0; i < ROWS_PER_VERSION; i++) {
          int row = embeddings.size();
          id.setSafe(i, row);
          float[] v = random.nextInt(50) == 0 ? null : randomVector();
          embeddings.add(v);
          if (v == null) {
            emb.setNull(i);
            for (int k = 0; k < DIM; k++) {
              items.setSafe(i * DIM + k, 0f);
            }
            values.add("(" + row + ", NULL)");
          } else {
            emb.setNotNull(i);
            for (int k = 0; k < DIM; k++) {
              items.setSafe(i * DIM + k, v[k]);
            }
            values.add("(" + row + ", CAST('" + text(v) + "' AS FLOAT[" + DIM + "]))");
          }
        }
        items.setValueCount(ROWS_PER_VERSION * DIM);
        root.setRowCount(ROWS_PER_VERSION);
        try (RecordBatchReader reader = new RecordBatchReader(allocator, SCHEMA,
            List.of(new VectorUnloader(root).getRecordBatch()))) {
          table.append(new AppendOperation("t", T, UUID.randomUUID(), String.format("%064x", version)), reader);
        }
      }
      duck.createStatement().execute(values.toString());
    }
  }

  @AfterAll
  void close() throws Exception {
    duck.close();
    table.close();
    log.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  private float[] randomVector() {
    float[] v = new float[DIM];
    for (int k = 0; k < DIM; k++) {
      v[k] = (float) random.nextGaussian();
    }
    return v;
  }

  private static String text(float[] v) {
    StringJoiner j = new StringJoiner(", ", "[", "]");
    for (float x : v) {
      j.add(Float.toString(x));
    }
    return j.toString();
  }

  private SqlEngine engine(long budget, int threads) {
    return new SqlEngine(new OneTableCatalog(new TableName("robots", "frames"), table), budget, threads);
  }

  private List<List<Object>> run(SqlEngine engine, String sql, List<?> parameters) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (ArrowReader reader = engine.prepare(sql, Map.of(), parameters).execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(v.getObject(r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private List<List<Object>> duck(String sql, String query) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (PreparedStatement s = duck.prepareStatement(sql)) {
      s.setString(1, query);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          rows.add(List.of(rs.getLong(1), rs.getDouble(2)));
        }
      }
    }
    return rows;
  }

  private static void assertSameNeighbours(List<List<Object>> expected, List<List<Object>> actual, String what) {
    assertEquals(expected.size(), actual.size(), what);
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i).get(0), actual.get(i).get(0), what + ": id of neighbour " + (i + 1));
      double e = (Double) expected.get(i).get(1);
      double a = (Double) actual.get(i).get(1);
      assertEquals(e, a, 1e-9 * Math.max(1, Math.abs(e)), what + ": distance of neighbour " + (i + 1));
    }
  }

  @Test
  void topKEqualsTheFullSortAndDuckDbForEveryMetric() throws Exception {
    SqlEngine lake = engine(Long.MAX_VALUE, 3);
    String[][] metrics = {
        {"l2_distance", "array_distance", ""},
        {"cosine_distance", "array_cosine_distance", ""},
        {"inner_product", "array_inner_product", " DESC"}};
    for (String[] m : metrics) {
      for (int k : new int[] {1, 10, 257}) {
        float[] q = randomVector();
        List<Float> bound = new ArrayList<>();
        for (float x : q) {
          bound.add(x);
        }
        String what = m[0] + " k=" + k;
        String lakeSql = "SELECT id, " + m[0] + "(emb, ?) AS d FROM " + T + " WHERE emb IS NOT NULL ORDER BY d"
            + m[2] + ", id";
        List<List<Object>> top = run(lake, lakeSql + " LIMIT " + k, List.of(bound));
        List<List<Object>> full = run(lake, lakeSql, List.of(bound));
        assertEquals(embeddings.stream().filter(e -> e != null).count(), full.size(), what);
        assertEquals(full.subList(0, k), top, what + ": the top-k is the full sort's first k rows");
        List<List<Object>> expected = duck("SELECT id, " + m[1] + "(CAST(emb AS DOUBLE[" + DIM + "]),"
            + " CAST(CAST(? AS FLOAT[" + DIM + "]) AS DOUBLE[" + DIM + "])) AS d FROM frames WHERE emb IS NOT NULL"
            + " ORDER BY d" + m[2] + ", id LIMIT " + k, text(q));
        assertSameNeighbours(expected, top, what + " against DuckDB");
      }
    }
  }

  @Test
  void aLiteralQueryVectorAndAnOffsetAnswerAsTheParameterDoes() throws Exception {
    SqlEngine lake = engine(Long.MAX_VALUE, 2);
    float[] q = embeddings.get(4242);
    StringJoiner literal = new StringJoiner(", ", "ARRAY[", "]");
    for (float x : q) {
      literal.add("CAST(" + x + " AS REAL)");
    }
    List<List<Object>> top = run(lake, "SELECT id, l2_distance(emb, " + literal + ") AS d FROM " + T
        + " ORDER BY d NULLS LAST, id LIMIT 5 OFFSET 1", List.of());
    List<List<Object>> full = run(lake, "SELECT id, l2_distance(emb, " + literal + ") AS d FROM " + T
        + " ORDER BY d NULLS LAST, id", List.of());
    List<Object> nearest = run(lake, "SELECT id, l2_distance(emb, " + literal + ") AS d FROM " + T
        + " ORDER BY d NULLS LAST, id LIMIT 1", List.of()).getFirst();
    assertEquals(4242L, nearest.get(0), "the vector itself is nearest");
    assertTrue((Double) nearest.get(1) < 1e-6, "its distance to itself: " + nearest);
    assertEquals(full.subList(1, 6), top);
    List<List<Object>> text = run(lake, "SELECT id, l2_distance(emb, '" + text(q) + "'::REAL[]) AS d FROM " + T
        + " ORDER BY d NULLS LAST, id LIMIT 5 OFFSET 1", List.of());
    assertEquals(top.stream().map(List::getFirst).toList(), text.stream().map(List::getFirst).toList(),
        "a text literal cast to a list");
  }

  @Test
  void explainShowsATopKPerMorselAndItsMerge() throws Exception {
    SqlEngine lake = engine(Long.MAX_VALUE, 2);
    String plan = String.join("\n", run(lake, "EXPLAIN SELECT id FROM " + T
        + " ORDER BY l2_distance(emb, '" + text(new float[DIM]) + "'::REAL[]) LIMIT 10", List.of())
        .stream().map(r -> String.valueOf(r.getFirst())).toList());
    assertTrue(plan.contains("TopK") && plan.contains("limit 10") && plan.contains("keep 10 (per morsel)"), plan);
    assertTrue(!plan.contains("Sort "), plan);
  }

  private static List<Float> zeros() {
    List<Float> z = new ArrayList<>();
    for (int k = 0; k < DIM; k++) {
      z.add(0f);
    }
    return z;
  }

  @Test
  void topKFitsAMemoryBudgetTheFullSortExceeds() throws Exception {
    // The table's embeddings take 18,000 x 64 bytes (1.1 MiB) in the sort's buffers; the top 10
    // keep a few thousand rows at most.
    SqlEngine lake = engine(900_000, 1);
    String sql = "SELECT id, emb FROM " + T + " ORDER BY l2_distance(emb, ?) NULLS LAST, id";
    List<List<Object>> top = run(lake, sql + " LIMIT 10", List.of(zeros()));
    assertEquals(10, top.size());
    SqlException e = assertThrows(SqlException.class, () -> run(lake, sql, List.of(zeros())));
    assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED, e.kind(), e.getMessage());
  }

  @Test
  void aQueryVectorOfAnotherDimensionIsAnErrorNamingBoth() throws Exception {
    SqlEngine lake = engine(Long.MAX_VALUE, 2);
    SqlException e = assertThrows(SqlException.class, () -> run(lake, "SELECT id FROM " + T
        + " ORDER BY cosine_distance(emb, ?) LIMIT 3", List.of(List.of(1f, 2f, 3f))));
    assertEquals(SqlException.Kind.EXECUTION, e.kind(), e.getMessage());
    assertTrue(e.getMessage().contains("cosine_distance") && e.getMessage().contains("16 and 3"), e.getMessage());
    SqlException text = assertThrows(SqlException.class, () -> run(lake, "SELECT id FROM " + T
        + " ORDER BY l2_distance(emb, ?) LIMIT 3", List.of("not a vector")));
    assertEquals(SqlException.Kind.INVALID, text.kind(), text.getMessage());
  }
}
