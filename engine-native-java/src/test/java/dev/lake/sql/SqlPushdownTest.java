package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.expr.And;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Comparison;
import dev.lake.engine.expr.In;
import dev.lake.engine.expr.IsNull;
import dev.lake.engine.expr.Literal;
import dev.lake.engine.expr.Not;
import dev.lake.engine.expr.Or;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

class SqlPushdownTest extends SqlFixture {

  private ScanRequest lastRequest(String sql) {
    episodes.requests.clear();
    rows(sql);
    assertEquals(1, episodes.requests.size());
    return episodes.requests.get(0);
  }

  @Test
  void onlyReferencedColumnsAreScannedInTableOrder() {
    assertEquals(List.of("id", "robot", "duration_s"),
        lastRequest("SELECT duration_s, robot FROM episodes WHERE id > 2").columns());
    assertEquals(List.of("robot", "duration_s"),
        lastRequest("SELECT robot, sum(duration_s) FROM episodes GROUP BY robot").columns());
    // count(*) still reads one column to learn the row count.
    assertEquals(List.of("id"), lastRequest("SELECT count(*) FROM episodes").columns());
  }

  @Test
  void whereConjunctsReachTheScanRequestAsIr() {
    ScanRequest r = lastRequest(
        "SELECT id FROM episodes WHERE id >= 3 AND \"day\" = DATE '2024-01-02' AND robot IN ('c3po', 'bb8') "
            + "AND reward IS NOT NULL AND robot LIKE 'c%'");
    // LIKE has no IR form: it is left out of the pushed conjunction and applied by the filter.
    Literal three = new Literal(new ArrowType.Int(64, true), 3L);
    Literal day = new Literal(new ArrowType.Date(DateUnit.DAY), LocalDate.parse("2024-01-02").toEpochDay());
    assertEquals(Optional.of(new And(List.of(
            new Comparison(Comparison.Op.GE, new ColumnRef("id"), three),
            new Comparison(Comparison.Op.EQ, new ColumnRef("day"), day),
            // The planner keeps IN lists sorted.
            new In(new ColumnRef("robot"), List.of(
                new Literal(ArrowType.Utf8.INSTANCE, "bb8"), new Literal(ArrowType.Utf8.INSTANCE, "c3po"))),
            new Not(new IsNull(new ColumnRef("reward")))))),
        r.filter());
  }

  @Test
  void betweenOrAndNotTranslate() {
    ScanRequest r = lastRequest("SELECT id FROM episodes WHERE reward BETWEEN 0.5 AND 2 OR NOT success");
    Literal low = new Literal(new ArrowType.Decimal(10, 3, 128), new BigDecimal("0.500"));
    Literal high = new Literal(new ArrowType.Decimal(10, 3, 128), new BigDecimal("2.000"));
    assertEquals(Optional.of(new Or(List.of(
            new And(List.of(
                new Comparison(Comparison.Op.GE, new ColumnRef("reward"), low),
                new Comparison(Comparison.Op.LE, new ColumnRef("reward"), high))),
            new Not(new ColumnRef("success"))))),
        r.filter());
  }

  @Test
  void untranslatablePredicatesAreNotPushedButStillApplied() {
    ScanRequest r = lastRequest("SELECT id FROM episodes WHERE id + 1 > 3 OR robot LIKE 'b%'");
    assertEquals(Optional.empty(), r.filter());
    assertEquals(List.of(3L, 4L, 5L, 6L, 7L, 8L),
        column(rows("SELECT id FROM episodes WHERE id + 1 > 3 OR robot LIKE 'b%'")));
  }

  @Test
  void limitHintOnlyWithoutFilterSortOrAggregate() {
    assertEquals(OptionalLong.of(5), lastRequest("SELECT id FROM episodes LIMIT 3 OFFSET 2").limit());
    assertEquals(OptionalLong.empty(), lastRequest("SELECT id FROM episodes WHERE id > 1 LIMIT 3").limit());
    assertEquals(OptionalLong.empty(), lastRequest("SELECT id FROM episodes ORDER BY id LIMIT 3").limit());
    assertTrue(lastRequest("SELECT count(*) FROM episodes LIMIT 3").limit().isEmpty());
  }
}
