package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestData.ALL_TYPES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.Snapshot.ScanPlan;
import dev.lake.engine.TableHandle;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Comparison;
import dev.lake.engine.expr.Comparison.Op;
import dev.lake.engine.expr.Literal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A table handle keeps the scan plans it made, by version and request ({@link ScanPlans}). */
class LogScanPlansTest {

  private static final ArrowType I64 = new ArrowType.Int(64, true);

  @TempDir Path dir;
  private LogTableFixture fixture;
  private RootAllocator allocator;
  private TableHandle table;

  @BeforeEach
  void createTable() throws IOException {
    fixture = new LogTableFixture(dir);
    allocator = fixture.allocator;
    table = fixture.table;
    try (ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 0, 1000)) {
      table.append(LogTestData.op(1), reader);
    }
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private static ScanRequest idBelow(long bound) {
    return ScanRequest.of(List.of("id", "name"))
        .withFilter(new Comparison(Op.LT, new ColumnRef("id"), new Literal(I64, bound)));
  }

  @Test
  void anEqualRequestAtTheSameVersionGetsTheKeptPlan() {
    ScanPlan first = table.latestSnapshot().plan(idBelow(250));
    assertEquals(7, first.blocksPruned(), "ids 0-249 lie in the first three of ten blocks");
    assertSame(first, table.latestSnapshot().plan(idBelow(250)), "a new snapshot object, an equal request");
    ScanPlan other = table.latestSnapshot().plan(idBelow(150));
    assertNotSame(first, other);
    assertEquals(8, other.blocksPruned(), "another filter is planned afresh");
    assertEquals(0, table.latestSnapshot().plan(ScanRequest.of(List.of("id", "name"))).blocksPruned(),
        "the same columns without the filter keep every block");
  }

  @Test
  void aNewVersionIsPlannedAfreshAndTheOldOneKeepsItsPlan() throws IOException {
    Snapshot before = table.latestSnapshot();
    ScanPlan old = before.plan(idBelow(2000));
    try (ArrowReader reader = LogTestData.reader(ALL_TYPES, allocator, 1000, 500)) {
      table.append(LogTestData.op(2), reader);
    }
    ScanPlan now = table.latestSnapshot().plan(idBelow(2000));
    assertEquals(10, old.blocksTotal());
    assertEquals(15, now.blocksTotal(), "the appended blocks are planned");
    assertSame(old, before.plan(idBelow(2000)), "the pinned version still has its own plan");
    assertEquals(1500, LogTestData.readAll(table.latestSnapshot(), idBelow(2000), allocator).size());
  }

  @Test
  void aKeptPlanWhoseSegmentWasDeletedReportsItWhenOpened() throws IOException {
    Snapshot snapshot = table.latestSnapshot();
    assertEquals(1000, LogTestData.readAll(snapshot, idBelow(5000), allocator).size());
    try (Stream<Path> files = Files.list(dir.resolve("data"))) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    CorruptTableException e = assertThrows(CorruptTableException.class,
        () -> LogTestData.readAll(snapshot, idBelow(5000), allocator));
    assertTrue(e.getMessage().contains("is missing"), e.getMessage());
  }

  private record Unit(long rowCount, String describe) implements ScanUnit {}

  private static ScanPlan planOf(int units) {
    List<ScanUnit> list = new ArrayList<>();
    for (int i = 0; i < units; i++) {
      list.add(new Unit(100, "unit " + i));
    }
    return new ScanPlan(list, units, 0);
  }

  @Test
  void plansAreBoundedByTheUnitsTheyHoldTogether() {
    ScanPlans plans = new ScanPlans(10, 5);
    plans.put(1, idBelow(1), planOf(2));
    plans.put(1, idBelow(2), planOf(2));
    assertEquals(4, plans.units());
    plans.get(1, idBelow(1));
    plans.put(1, idBelow(3), planOf(3));
    assertNull(plans.get(1, idBelow(2)), "the least recently used went first");
    assertNotNull(plans.get(1, idBelow(1)));
    assertNotNull(plans.get(1, idBelow(3)));
    assertEquals(5, plans.units());
    plans.put(1, idBelow(4), planOf(6));
    assertNull(plans.get(1, idBelow(4)), "a plan larger than the whole bound is not kept");
    assertEquals(2, plans.size(), "and evicts nothing");
    plans.put(1, idBelow(3), planOf(1));
    assertEquals(3, plans.units(), "a replaced plan's units are given back");
  }

  @Test
  void theHandleKeepsAtMostItsCapacityOfPlans() {
    ScanPlans plans = ((LogTableHandle) table).plans();
    for (int bound = 0; bound <= ScanPlans.MAX_PLANS; bound++) {
      table.latestSnapshot().plan(idBelow(bound));
    }
    assertEquals(ScanPlans.MAX_PLANS, plans.size());
    long version = table.currentVersion().number();
    assertNull(plans.get(version, idBelow(0)), "the eldest went first");
    assertNotNull(plans.get(version, idBelow(ScanPlans.MAX_PLANS)));
  }
}
