package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.NestedRows;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.log.LogEngineFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL over a real {@code log} table of robot episodes with struct, list, large-list and
 * fixed-size-list columns ({@link NestedRows}): field access and list elements in every clause,
 * whole nested columns passed through scans, filters, sorts and limits, and clear refusals of
 * what the engine does not do with whole struct or list values. Every answer is computed from
 * the model row by row in Java.
 */
class SqlNestedColumnsTest {

  private static final int ROWS = 7_500;
  private static final String T = "robots.episodes";

  @TempDir Path dir;
  private RootAllocator allocator;
  private TableEngine log;
  private TableHandle table;
  private SqlEngine sql;

  @BeforeEach
  void load() throws Exception {
    allocator = new RootAllocator();
    log = new LogEngineFactory().create(Map.of("log.block.rows", "1000"));
    table = log.create(TableLocation.of(dir.resolve("episodes")), NestedRows.SCHEMA);
    for (int version = 0; version < 3; version++) {
      try (VectorSchemaRoot root = NestedRows.batch(NestedRows.SCHEMA, allocator, version * 2_500L, 2_500);
          RecordBatchReader reader = new RecordBatchReader(allocator, NestedRows.SCHEMA,
              List.of(new VectorUnloader(root).getRecordBatch()))) {
        table.append(new AppendOperation("t", T, UUID.randomUUID(), String.format("%064x", version)), reader);
      }
    }
    sql = new SqlEngine(new OneTableCatalog(new TableName("robots", "episodes"), table));
  }

  @AfterEach
  void close() {
    table.close();
    log.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  private static LongStream ids() {
    return LongStream.range(0, ROWS);
  }

  // ---------------------------------------------------------------- struct fields

  @Test
  void structFieldsInSelectAndWhereMatchTheModel() throws Exception {
    LongPredicate where = id -> NestedRows.video(id) != null && NestedRows.video(id).frames() != null
        && NestedRows.video(id).frames() > 600 && NestedRows.meta(id) != null
        && NestedRows.meta(id).robot() != null && NestedRows.meta(id).robot().arm() < 3;
    List<List<Object>> expected = ids().filter(where).mapToObj(id -> row(id, NestedRows.video(id).uri(),
        NestedRows.video(id).frames(), NestedRows.meta(id).robot().name())).toList();
    assertEquals(expected, run("SELECT id, video.uri, video.frames, meta.robot.name FROM " + T
        + " WHERE video.frames > 600 AND meta.robot.arm < 3 ORDER BY id"));
    assertEquals(expected.stream().map(r -> r.get(1)).toList(),
        run("SELECT e.video.uri FROM " + T + " e WHERE e.video.frames > 600 AND e.meta.robot.arm < 3"
            + " ORDER BY e.id").stream().map(List::getFirst).toList(), "qualified by the table alias");
  }

  @Test
  void groupByAndOrderByAStructFieldMatchTheModel() throws Exception {
    Map<String, long[]> groups = new TreeMap<>(Comparator.nullsFirst(Comparator.<String>naturalOrder()));
    ids().forEach(id -> {
      NestedRows.Meta m = NestedRows.meta(id);
      String name = m == null || m.robot() == null ? null : m.robot().name();
      long[] g = groups.computeIfAbsent(name, k -> new long[2]);
      g[0]++;
      NestedRows.Video v = NestedRows.video(id);
      g[1] += v == null || v.frames() == null ? 0 : v.frames();
    });
    List<List<Object>> expected = new ArrayList<>();
    groups.forEach((name, g) -> expected.add(row(name, g[0], g[1])));
    assertEquals(expected, run("SELECT meta.robot.name, count(*), sum(video.frames) FROM " + T
        + " GROUP BY meta.robot.name ORDER BY meta.robot.name NULLS FIRST"));

    List<List<Object>> top = ids().boxed()
        .filter(id -> NestedRows.video(id) != null && NestedRows.video(id).startTs() != null
            && NestedRows.video(id).frames() != null)
        .sorted(Comparator.<Long>comparingInt(id -> -NestedRows.video(id).frames()).thenComparing(id -> id))
        .limit(5).map(id -> row(id, NestedRows.video(id).startTs())).toList();
    assertEquals(top, run("SELECT id, video.start_ts FROM " + T + " WHERE video.start_ts IS NOT NULL"
        + " ORDER BY video.frames DESC NULLS LAST, id LIMIT 5"));
  }

  @Test
  void nullAtAnyLevelOfAPathMakesTheFieldNull() throws Exception {
    long noName = ids().filter(id -> NestedRows.meta(id) == null || NestedRows.meta(id).robot() == null
        || NestedRows.meta(id).robot().name() == null).count();
    assertEquals(List.of(row(noName)), run("SELECT count(*) FROM " + T + " WHERE meta.robot.name IS NULL"));
    long noVideo = ids().filter(id -> NestedRows.video(id) == null).count();
    assertEquals(List.of(row(noVideo, noVideo, ROWS - noVideo)), run("SELECT sum(CASE WHEN video IS NULL"
        + " THEN 1 ELSE 0 END), sum(CASE WHEN video.uri IS NULL THEN 1 ELSE 0 END), count(video) FROM " + T));
  }

  // ---------------------------------------------------------------- list elements

  @Test
  void listElementsAreOneBasedAndNullOutOfRange() throws Exception {
    List<List<Object>> expected = LongStream.range(0, 300).mapToObj(id -> row(id,
        element(NestedRows.embedding(id), 1), element(NestedRows.embedding(id), 8),
        element(NestedRows.embedding(id), 9), element(NestedRows.embedding(id), 0),
        element(NestedRows.tags(id), 2), size(NestedRows.tags(id)), size(NestedRows.embedding(id)),
        NestedRows.events(id) == null || NestedRows.events(id).isEmpty() || NestedRows.events(id).getFirst() == null
            ? null : NestedRows.events(id).getFirst().label(),
        element(NestedRows.samples(id), 3))).toList();
    assertEquals(expected, run("SELECT id, embedding[1], embedding[8], embedding[9], embedding[0],"
        + " tags[2], cardinality(tags), cardinality(embedding), events[1].label, samples[3]"
        + " FROM " + T + " WHERE id < 300 ORDER BY id"));
    assertEquals(LongStream.range(0, 20).mapToObj(id -> row(element(NestedRows.embedding(id), (int) (id % 10))))
        .toList(), run("SELECT embedding[id % 10] FROM " + T + " WHERE id < 20 ORDER BY id"),
        "an index computed per row");
  }

  @Test
  void listElementsFilterAndAggregate() throws Exception {
    long over = ids().filter(id -> {
      Float x = element(NestedRows.embedding(id), 2);
      return x != null && x > 20;
    }).count();
    double sum = ids().mapToObj(id -> element(NestedRows.embedding(id), 1)).filter(Objects::nonNull)
        .mapToDouble(Float::doubleValue).sum();
    long maxTags = ids().mapToObj(NestedRows::tags).filter(Objects::nonNull).mapToLong(List::size).max().orElseThrow();
    List<List<Object>> result = run("SELECT sum(CASE WHEN embedding[2] > 20 THEN 1 ELSE 0 END),"
        + " sum(embedding[1]), max(cardinality(tags)) FROM " + T);
    assertEquals(over, result.getFirst().get(0));
    assertEquals(sum, (Double) result.getFirst().get(1), 1e-6);
    assertEquals(maxTags, result.getFirst().get(2));
  }

  @Test
  void fieldsJoinAndFilterLikeOrdinaryColumnsOnceSelected() throws Exception {
    List<Float> wanted = List.of(0.25f, 0.5f, 1.0f);
    List<List<Object>> expected = LongStream.range(0, 400)
        .filter(id -> element(NestedRows.embedding(id), 1) != null
            && wanted.contains(element(NestedRows.embedding(id), 1)))
        .mapToObj(id -> row(id, NestedRows.video(id) == null ? null : NestedRows.video(id).uri())).toList();
    assertEquals(expected, run("SELECT a.id, v.uri FROM " + T + " a JOIN (SELECT id, video.uri AS uri FROM "
        + T + ") v ON a.id = v.id WHERE a.id < 400 AND a.embedding[1] IN (0.25, 0.5, 1.0) ORDER BY a.id"));
    Map<String, Long> counts = new TreeMap<>();
    ids().mapToObj(NestedRows::tags).filter(t -> t != null && !t.isEmpty() && t.getFirst() != null)
        .forEach(t -> counts.merge(t.getFirst(), 1L, Long::sum));
    List<List<Object>> frequent = counts.entrySet().stream().filter(e -> e.getValue() > 100)
        .map(e -> row(e.getKey(), e.getValue())).toList();
    assertTrue(!frequent.isEmpty() && frequent.size() < counts.size(), "HAVING keeps some groups");
    assertEquals(frequent, run("SELECT tags[1], count(*) FROM " + T + " GROUP BY tags[1]"
        + " HAVING count(*) > 100 AND tags[1] IS NOT NULL ORDER BY tags[1]"));
  }

  // ---------------------------------------------------------------- whole values

  @Test
  void wholeNestedColumnsPassThroughFiltersSortsAndLimitsUnchanged() throws Exception {
    List<Long> seen = new ArrayList<>();
    try (ArrowReader reader = sql.prepare("SELECT id, video, embedding, tags, events, samples, meta FROM "
        + T + " WHERE id BETWEEN 990 AND 1010 ORDER BY id DESC LIMIT 15").execute(allocator)) {
      assertEquals(NestedRows.columns("id", "video", "embedding", "tags", "events", "samples", "meta"),
          reader.getVectorSchemaRoot().getSchema());
      seen.addAll(checkedIds(reader));
    }
    assertEquals(LongStream.rangeClosed(996, 1010).boxed().sorted(Comparator.reverseOrder()).toList(), seen);

    try (ArrowReader reader = sql.prepare("SELECT * FROM " + T + " WHERE video IS NULL AND embedding[1] < 10")
        .execute(allocator)) {
      assertEquals(NestedRows.SCHEMA, reader.getVectorSchemaRoot().getSchema());
      assertEquals(ids().filter(id -> NestedRows.video(id) == null && element(NestedRows.embedding(id), 1) != null
          && element(NestedRows.embedding(id), 1) < 10).boxed().toList(), checkedIds(reader).stream().sorted().toList());
    }
  }

  @Test
  void structsAndListsInsideAColumnPassThroughWhole() throws Exception {
    List<List<Object>> expected = LongStream.range(0, 60).mapToObj(id -> {
      Map<?, ?> meta = (Map<?, ?>) NestedRows.expected("meta", id);
      List<?> events = (List<?>) NestedRows.expected("events", id);
      return row(id, meta == null ? null : meta.get("robot"), meta == null ? null : meta.get("joints"),
          events == null || events.isEmpty() ? null : events.getFirst());
    }).toList();
    assertEquals(expected, run("SELECT id, meta.robot, meta.joints, events[1] FROM " + T
        + " WHERE id < 60 ORDER BY id"));
  }

  // ---------------------------------------------------------------- pruning

  @Test
  void pointLookupByIdPrunesToOneBlockAndReturnsTheNestedValues() throws Exception {
    String query = "SELECT id, video, embedding FROM " + T + " WHERE id = 4321";
    assertTrue(explain(query).contains("blocks=9 pruned=8"), explain(query));
    try (ArrowReader reader = sql.prepare(query).execute(allocator)) {
      assertEquals(List.of(4321L), checkedIds(reader));
    }
  }

  @Test
  void timestampRangePrunesBlocksAndCountsExactly() throws Exception {
    // start_ts is START + id seconds: 01:10:00 .. 01:14:59 are ids 4200 .. 4499, in one block.
    String query = "SELECT count(*), min(id), max(id) FROM " + T + " WHERE start_ts >= TIMESTAMP"
        + " '2026-01-05 01:10:00' AND start_ts < TIMESTAMP '2026-01-05 01:15:00' AND video.frames IS NOT NULL";
    assertTrue(explain(query).contains("blocks=9 pruned=8"), explain(query));
    List<Long> expected = LongStream.range(4200, 4500)
        .filter(id -> NestedRows.video(id) != null && NestedRows.video(id).frames() != null).boxed().toList();
    assertEquals(List.of(row((long) expected.size(), expected.getFirst(), expected.getLast())), run(query));
  }

  @Test
  void wholeStructAndListColumnsPassThroughJoinsAndUnionAll() throws Exception {
    List<List<Object>> alone = run("SELECT id, video, tags, embedding FROM " + T + " WHERE id < 60 ORDER BY id");
    assertEquals(60, alone.size());
    assertEquals(alone, run("SELECT a.id, a.video, a.tags, a.embedding FROM " + T + " a JOIN (SELECT id FROM " + T
        + " WHERE id < 60) b ON a.id = b.id ORDER BY a.id"));
    // The side with struct and list columns is probed whichever side it is written on.
    assertEquals(alone, run("SELECT a.id, a.video, a.tags, a.embedding FROM (SELECT id FROM " + T
        + " WHERE id < 60) b JOIN " + T + " a ON a.id = b.id ORDER BY a.id"));
    List<List<Object>> left = alone.stream()
        .map(r -> row(r.get(0), r.get(1), (Long) r.get(0) % 3 == 0 ? r.get(0) : null)).toList();
    assertEquals(left, run("SELECT a.id, a.video, b.id FROM (SELECT * FROM " + T + " WHERE id < 60) a LEFT JOIN"
        + " (SELECT id FROM " + T + " WHERE id % 3 = 0) b ON a.id = b.id ORDER BY a.id"));
    List<List<Object>> full = new ArrayList<>(alone.stream().filter(r -> (Long) r.get(0) < 40)
        .map(r -> row(r.get(0), r.get(1), (Long) r.get(0) >= 20 ? r.get(0) : null)).toList());
    for (long id = 40; id < 60; id++) {
      full.add(row(null, null, id));
    }
    assertEquals(full, run("SELECT a.id, a.video, b.id FROM (SELECT * FROM " + T + " WHERE id < 40) a FULL JOIN"
        + " (SELECT id FROM " + T + " WHERE id >= 20 AND id < 60) b ON a.id = b.id ORDER BY b.id NULLS FIRST, a.id"));
    List<List<Object>> both = run("SELECT id, video, tags FROM " + T + " WHERE id < 10 OR id >= 7490 ORDER BY id");
    assertEquals(20, both.size());
    assertEquals(both, run("SELECT * FROM (SELECT id, video, tags FROM " + T + " WHERE id < 10 UNION ALL"
        + " SELECT id, video, tags FROM " + T + " WHERE id >= 7490) AS u ORDER BY id"));
  }

  @Test
  void joinsCarryStructAndListColumnsFromBothSidesWithNullsWhereAnOuterJoinFills() throws Exception {
    List<List<Object>> alone = run("SELECT id, video, tags, embedding, events, meta FROM " + T
        + " WHERE id < 3000 ORDER BY id");
    // Both sides carry nested columns; the build side holds 3,000 rows over several morsels.
    assertEquals(alone, run("SELECT a.id, a.video, b.tags, b.embedding, a.events, b.meta FROM " + T
        + " a JOIN (SELECT * FROM " + T + " WHERE id < 3000) b ON a.id = b.id ORDER BY a.id"));
    assertEquals(alone, run("SELECT b.id, b.video, a.tags, a.embedding, b.events, a.meta FROM (SELECT * FROM " + T
        + " WHERE id < 3000) a JOIN " + T + " b ON a.id = b.id ORDER BY b.id"));
    // Large lists too, from both sides of one table joined with itself.
    assertEquals(run("SELECT id, samples, samples FROM " + T + " WHERE id < 3000 ORDER BY id"),
        run("SELECT a.id, a.samples, b.samples FROM " + T + " a JOIN " + T + " b ON a.id = b.id"
            + " WHERE a.id < 3000 ORDER BY a.id"));
    // The side a LEFT JOIN fills with NULLs carries them too.
    List<List<Object>> left = alone.stream().map(r -> (Long) r.get(0) % 3 == 0 ? r
        : row(r.get(0), r.get(1), null, null, r.get(4), null)).toList();
    assertEquals(left, run("SELECT a.id, a.video, b.tags, b.embedding, a.events, b.meta FROM (SELECT * FROM " + T
        + " WHERE id < 3000) a LEFT JOIN (SELECT * FROM " + T + " WHERE id % 3 = 0) b ON a.id = b.id ORDER BY a.id"));
    assertEquals(left, run("SELECT b.id, b.video, a.tags, a.embedding, b.events, a.meta FROM (SELECT * FROM " + T
        + " WHERE id % 3 = 0) a RIGHT JOIN (SELECT * FROM " + T + " WHERE id < 3000) b ON a.id = b.id ORDER BY b.id"));
    List<List<Object>> full = new ArrayList<>();
    for (List<Object> r : alone) {
      long id = (Long) r.get(0);
      if (id < 40) {
        full.add(row(id, r.get(1), id >= 20 ? r.get(2) : null, id >= 20 ? id : null));
      }
    }
    for (List<Object> r : alone) {
      long id = (Long) r.get(0);
      if (id >= 40 && id < 60) {
        full.add(row(null, null, r.get(2), id));
      }
    }
    assertEquals(full, run("SELECT a.id, a.video, b.tags, b.id FROM (SELECT * FROM " + T + " WHERE id < 40) a"
        + " FULL JOIN (SELECT * FROM " + T + " WHERE id >= 20 AND id < 60) b ON a.id = b.id"
        + " ORDER BY b.id NULLS FIRST, a.id"));
    // Semi and anti joins keep their left side's nested columns whichever side is built.
    assertEquals(alone.stream().filter(r -> (Long) r.get(0) % 7 == 0).toList(),
        run("SELECT id, video, tags, embedding, events, meta FROM " + T + " a WHERE id < 3000 AND EXISTS"
            + " (SELECT 1 FROM " + T + " b WHERE b.id = a.id AND b.id % 7 = 0 AND b.tags IS NOT NULL"
            + " OR b.id = a.id AND b.id % 7 = 0) ORDER BY id"));
    assertEquals(alone.stream().filter(r -> (Long) r.get(0) % 7 != 0).toList(),
        run("SELECT id, video, tags, embedding, events, meta FROM " + T + " a WHERE id < 3000 AND id NOT IN"
            + " (SELECT id FROM " + T + " WHERE id % 7 = 0) ORDER BY id"));
  }

  @Test
  void unionDistinctIntersectAndExceptOfStructOrListColumnsAreRefusedNamingTheColumn() {
    for (String op : List.of("UNION", "INTERSECT", "EXCEPT")) {
      SqlException e = assertThrows(SqlException.class, () -> sql.prepare(
          "SELECT id, video FROM " + T + " " + op + " SELECT id, video FROM " + T));
      assertEquals(SqlException.Kind.INVALID, e.kind(), e.getMessage());
      assertTrue(e.getMessage().contains("of column video"), e.getMessage());
    }
  }

  // ---------------------------------------------------------------- refusals

  @Test
  void unsupportedUsesOfStructAndListValuesAreInvalidNamingTheExpression() {
    record Case(String query, String... says) {}
    List<Case> cases = List.of(
        new Case("SELECT id FROM " + T + " ORDER BY video", "ORDER BY video", "struct value", "video.uri"),
        new Case("SELECT video, count(*) FROM " + T + " GROUP BY video", "video", "struct value"),
        new Case("SELECT DISTINCT embedding FROM " + T, "embedding", "list value"),
        new Case("SELECT id FROM " + T + " WHERE events[1] = events[2]", "events[1] is a struct value"),
        new Case("SELECT min(embedding) FROM " + T, "MIN(embedding)", "list value"),
        new Case("SELECT count(DISTINCT video) FROM " + T, "COUNT(DISTINCT video)", "struct value"),
        new Case("SELECT id FROM " + T + " WHERE embedding > 1", "REAL ARRAY"),
        new Case("SELECT cardinality(video) FROM " + T, "CARDINALITY"),
        new Case("SELECT video.nope FROM " + T, "struct video has no field nope", "uri, start_ts, frames"),
        new Case("SELECT meta.robot.nope FROM " + T, "struct meta.robot has no field nope", "name, arm"),
        new Case("SELECT id.x FROM " + T, "id is BIGINT, not a struct"),
        new Case("SELECT meta.gain.x FROM " + T, "meta.gain is DECIMAL(10,2), not a struct", "field x"),
        new Case("SELECT tags.x FROM " + T, "tags is a list, not a struct", "tags[1]"));
    for (Case c : cases) {
      SqlException e = assertThrows(SqlException.class, () -> sql.prepare(c.query()), c.query());
      assertEquals(SqlException.Kind.INVALID, e.kind(), c.query() + ": " + e.getMessage());
      for (String part : c.says()) {
        assertTrue(e.getMessage().contains(part), c.query() + ": " + e.getMessage());
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  private static <T> T element(List<T> list, int index) {
    return list == null || index < 1 || index > list.size() ? null : list.get(index - 1);
  }

  private static Long size(List<?> list) {
    return list == null ? null : (long) list.size();
  }

  private static List<Object> row(Object... values) {
    return Arrays.stream(values).map(SqlNestedColumnsTest::normalize).toList();
  }

  /** Numbers as Long or Double/Float, strings as String, nested values as plain collections. */
  private static Object normalize(Object value) {
    return switch (value) {
      case null -> null;
      case Text t -> t.toString();
      case Integer i -> i.longValue();
      case Short s -> s.longValue();
      case Byte b -> b.longValue();
      case List<?> l -> l.stream().map(SqlNestedColumnsTest::normalize).toList();
      case Map<?, ?> m -> {
        Map<Object, Object> out = new TreeMap<>(Comparator.comparing(Object::toString));
        m.forEach((k, v) -> out.put(k, normalize(v)));
        yield out;
      }
      default -> value;
    };
  }

  private List<List<Object>> run(String query) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (ArrowReader reader = sql.prepare(query).execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(v.getObject(r));
          }
          out.add(row(row.toArray()));
        }
      }
    }
    return out;
  }

  /** The ids of every row read, each row checked column by column against the model. */
  private static List<Long> checkedIds(ArrowReader reader) throws Exception {
    List<Long> ids = new ArrayList<>();
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    while (reader.loadNextBatch()) {
      ids.addAll(NestedRows.assertRows(root));
    }
    return ids;
  }

  private String explain(String query) throws Exception {
    return String.join("\n", run("EXPLAIN " + query).stream().map(r -> (String) r.getFirst()).toList());
  }
}
