package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class SqlOrderLimitTest extends SqlFixture {

  @Test
  void ascendingPutsNullsLastAndDescendingFirst() {
    assertEquals(list(5.0, 7.5, 8.25, 12.5, 20.0, 30.0, 40.0, null),
        column(rows("SELECT duration_s FROM episodes ORDER BY duration_s")));
    assertEquals(list(null, 40.0, 30.0, 20.0, 12.5, 8.25, 7.5, 5.0),
        column(rows("SELECT duration_s FROM episodes ORDER BY duration_s DESC")));
    assertEquals(list(null, 5.0, 7.5, 8.25, 12.5, 20.0, 30.0, 40.0),
        column(rows("SELECT duration_s FROM episodes ORDER BY duration_s ASC NULLS FIRST")));
    assertEquals(list(40.0, 30.0, 20.0, 12.5, 8.25, 7.5, 5.0, null),
        column(rows("SELECT duration_s FROM episodes ORDER BY duration_s DESC NULLS LAST")));
  }

  @Test
  void multipleKeysOfEveryKindAndStableTies() {
    assertEquals(List.of(6L, 7L, 3L, 4L, 1L, 2L, 8L, 5L),
        column(rows("SELECT id FROM episodes ORDER BY robot, id")));
    assertEquals(List.of(7L, 6L, 4L, 3L, 8L, 2L, 1L, 5L),
        column(rows("SELECT id, robot FROM episodes ORDER BY 2, started_at DESC")));
    assertEquals(List.of(2L, 8L, 5L, 7L, 1L, 3L, 6L, 4L),
        column(rows("SELECT id FROM episodes ORDER BY reward NULLS LAST, success DESC")));
    assertEquals(List.of(5L, 1L, 2L, 3L, 4L, 6L, 7L, 8L),
        column(rows("SELECT id FROM episodes ORDER BY \"day\" NULLS FIRST, id")));
  }

  @Test
  void orderByAnExpressionOrColumnNotSelected() {
    assertEquals(list("r2d2", "r2d2", null),
        column(rows("SELECT robot FROM episodes ORDER BY duration_s * -1 LIMIT 3")));
    PreparedQuery q = engine.prepare("SELECT robot FROM episodes ORDER BY id DESC");
    assertEquals(1, q.schema().getFields().size());
    assertEquals(list("r2d2", "bb8", "bb8", null, "c3po", "c3po", "r2d2", "r2d2"), column(rows(q)));
  }

  @Test
  void orderByAggregate() {
    assertEquals(List.of("r2d2", "c3po"),
        column(rows("SELECT robot FROM episodes WHERE robot IS NOT NULL GROUP BY robot "
            + "ORDER BY count(*) DESC, robot DESC LIMIT 2")));
  }

  @Test
  void limitAndOffset() {
    assertEquals(List.of(1L, 2L, 3L), column(rows("SELECT id FROM episodes LIMIT 3")));
    assertEquals(List.of(3L, 4L), column(rows("SELECT id FROM episodes ORDER BY id LIMIT 2 OFFSET 2")));
    assertEquals(List.of(7L, 8L), column(rows("SELECT id FROM episodes OFFSET 6")));
    assertEquals(List.of(), column(rows("SELECT id FROM episodes LIMIT 0")));
    assertEquals(List.of(), column(rows("SELECT id FROM episodes LIMIT 5 OFFSET 100")));
    assertEquals(List.of(4L, 5L), column(rows("SELECT id FROM episodes WHERE id > 3 LIMIT 2")));
    assertEquals(List.of(8L, 7L), column(rows("SELECT id FROM episodes ORDER BY id DESC FETCH FIRST 2 ROWS ONLY")));
  }

  @Test
  void sortOverManyBatchesEmitsEveryRowInOrder() {
    InMemoryTable big = new InMemoryTable(
        new Schema(List.of(field("v", new ArrowType.Int(64, true), true))), 7_000);
    List<Object[]> data = new java.util.ArrayList<>();
    for (long i = 0; i < 100_000; i++) {
      data.add(row(i % 10 == 0 ? null : (i * 7919) % 100_003));
    }
    big.appendRows(data);
    catalog.put(new TableName("demo", "big"), big);
    List<Object> sorted = column(rows("SELECT v FROM demo.big ORDER BY v DESC"));
    assertEquals(100_000, sorted.size());
    for (int i = 0; i < 10_000; i++) {
      assertEquals(null, sorted.get(i));
    }
    for (int i = 10_001; i < sorted.size(); i++) {
      assertEquals(true, (Long) sorted.get(i - 1) >= (Long) sorted.get(i));
    }
    assertEquals(5, column(rows("SELECT v FROM demo.big ORDER BY v LIMIT 5 OFFSET 70000")).size());
  }
}
