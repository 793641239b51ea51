package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lake.engine.TableHandle;
import dev.lake.exec.QueryControl;
import dev.lake.exec.QueryStoppedException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Planning stops when its call's control does: the control is checked at the start, at every
 * rule attempt of the relational planner and at every step of the join-order search.
 */
class PlanningControlTest extends SqlFixture {

  private static final String JOIN = "SELECT count(*) FROM demo.episodes a JOIN demo.episodes b"
      + " ON a.id = b.id JOIN demo.episodes c ON b.id = c.id";

  /** A catalog that stops the control the moment planning opens a table, i.e. mid-planning. */
  private static SqlCatalog stoppingAtFirstOpen(SqlCatalog inner, QueryControl control) {
    return new SqlCatalog() {
      @Override
      public List<String> schemaNames() {
        return inner.schemaNames();
      }

      @Override
      public List<String> tableNames(String schema) {
        return inner.tableNames(schema);
      }

      @Override
      public Optional<TableHandle> openTable(TableName name) {
        control.cancel();
        return inner.openTable(name);
      }
    };
  }

  @Test
  void aControlCancelledWhilePlanningStopsThePlanWithCancelled() {
    QueryControl control = QueryControl.create();
    SqlEngine stopping = new SqlEngine(stoppingAtFirstOpen(catalog, control), Long.MAX_VALUE, 2, null, 0);
    QueryStoppedException e = assertThrows(QueryStoppedException.class,
        () -> stopping.prepare(JOIN, Map.of(), control));
    assertEquals(QueryStoppedException.Reason.CANCELLED, e.reason());
    // The same engine plans the statement once a live control is given, so nothing was left behind.
    assertNotNull(new SqlEngine(catalog).prepare(JOIN, Map.of(), QueryControl.create()).schema());
  }

  @Test
  void aDeadlineThatPassedStopsPlanningWithTimedOut() throws Exception {
    QueryControl control = QueryControl.create().withTimeout(Duration.ofNanos(1));
    Thread.sleep(1);
    QueryStoppedException e = assertThrows(QueryStoppedException.class,
        () -> engine.prepare(JOIN, Map.of(), control));
    assertEquals(QueryStoppedException.Reason.TIMED_OUT, e.reason());
  }

  @Test
  void theControlIsUnboundAfterPlanning() throws Exception {
    QueryControl control = QueryControl.create();
    engine.prepare("SELECT 1", Map.of(), control);
    control.cancel();
    // Planning on this thread without a control is no longer stopped by the one above.
    assertNotNull(engine.prepare(JOIN).schema());
    PlanningControl.check();
  }
}
