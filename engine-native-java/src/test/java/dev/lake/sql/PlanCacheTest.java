package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.sql.tpch.MapCatalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
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
 * {@link SqlEngine}'s plan cache over real {@code log} tables: a statement seen again reuses its
 * plan, and every change that could make the plan wrong (an append, a replaced, dropped or newly
 * ambiguous table) makes it plan afresh; answers always match the data.
 */
class PlanCacheTest {
  private static final TableName EVENTS = new TableName("robots", "events");
  private static final Schema SCHEMA = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));
  private static final String COUNT = "SELECT count(*) AS n, sum(id) AS total FROM events";
  /** Planned relationally (a join), not by the single-table binder. */
  private static final String JOIN = "SELECT count(*) AS n, sum(a.id) AS total FROM robots.events a "
      + "JOIN robots.events b ON a.id = b.id";

  @TempDir Path dir;
  private BufferAllocator allocator;
  private TableEngine log;
  private final List<TableHandle> handles = new ArrayList<>();
  private MapCatalog catalog;
  private TableHandle events;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    log = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow().create(Map.of());
    events = table("events", 1, 2, 3);
    catalog = new MapCatalog().put(EVENTS, events);
  }

  @AfterEach
  void close() {
    handles.forEach(TableHandle::close);
    log.close();
    allocator.close();
  }

  @Test
  void aStatementSeenAgainReusesItsPlan() {
    SqlEngine sql = new SqlEngine(catalog);
    for (String text : List.of(COUNT, JOIN)) {
      PreparedQuery first = sql.prepare(text);
      assertSame(first, sql.prepare(text), text);
      assertEquals(List.of(3L, 6L), answer(sql.prepare(text)), text);
    }
    assertEquals(4, sql.planCacheCounts()[0], "hits");
    assertEquals(2, sql.planCacheCounts()[1], "misses");
  }

  @Test
  void theStatementPinnedAtTheVersionsItReadReusesThePlanToo() {
    SqlEngine sql = new SqlEngine(catalog);
    for (String text : List.of(COUNT, JOIN)) {
      PreparedQuery first = sql.prepare(text);
      List<Long> planned = answer(first);
      // As a Flight DoGet replays its ticket: the same text pinned at what was planned.
      assertSame(first, sql.prepare(text, first.pins()), text);
      append(events, 42);
      PreparedQuery replayed = sql.prepare(text, first.pins());
      assertSame(first, replayed, "still exactly right for the pinned version: " + text);
      assertEquals(planned, answer(replayed), text);
      PreparedQuery current = sql.prepare(text);
      assertNotSame(first, current, text);
      assertEquals(events.currentVersion(), current.pins().get(EVENTS), text);
    }
    assertEquals(4, sql.planCacheCounts()[0], "hits: the two pinned replays of each text");
    assertEquals(4, sql.planCacheCounts()[1], "misses: each text before and after the append");
  }

  @Test
  void anAppendMakesTheStatementReadTheNewVersion() {
    SqlEngine sql = new SqlEngine(catalog);
    long id = 10;
    for (String text : List.of(COUNT, JOIN)) {
      PreparedQuery before = sql.prepare(text);
      append(events, id++);
      PreparedQuery after = sql.prepare(text);
      assertNotSame(before, after, text);
      assertEquals(events.currentVersion(), after.pins().get(EVENTS), text);
      assertEquals(answerOfAllRows(), answer(after), text);
      assertSame(after, sql.prepare(text), text);
    }
  }

  @Test
  void aReplacedTableIsPlannedAfresh() {
    SqlEngine sql = new SqlEngine(catalog);
    PreparedQuery before = sql.prepare(JOIN);
    // Same name, same version number, another table (location): the plan must not be reused.
    TableHandle replacement = table("events-2", 100, 200, 300);
    assertEquals(events.currentVersion(), replacement.currentVersion());
    catalog.put(EVENTS, replacement);
    PreparedQuery after = sql.prepare(JOIN);
    assertNotSame(before, after);
    assertEquals(List.of(3L, 600L), answer(after));
  }

  @Test
  void aReplacedTableIsPlannedAfreshBeforeTheGenerationMoves() {
    // The registry swaps a table's record first and moves the generation after: in between, only
    // the table's location tells the new table from the old.
    TableHandle[] current = {events};
    SqlCatalog swapping = new SqlCatalog() {
      @Override
      public List<String> schemaNames() {
        return List.of(EVENTS.schema());
      }

      @Override
      public List<String> tableNames(String schema) {
        return schema.equals(EVENTS.schema()) ? List.of(EVENTS.table()) : List.of();
      }

      @Override
      public java.util.Optional<TableHandle> openTable(TableName name) {
        return name.equals(EVENTS) ? java.util.Optional.of(current[0]) : java.util.Optional.empty();
      }

      @Override
      public java.util.OptionalLong directoryGeneration() {
        return java.util.OptionalLong.of(1);
      }
    };
    SqlEngine sql = new SqlEngine(swapping);
    PreparedQuery before = sql.prepare(COUNT);
    assertSame(before, sql.prepare(COUNT));
    current[0] = table("events-2", 100, 200, 300);
    assertEquals(events.currentVersion(), current[0].currentVersion());
    PreparedQuery after = sql.prepare(COUNT);
    assertNotSame(before, after);
    assertEquals(List.of(3L, 600L), answer(after));
  }

  @Test
  void aDroppedTableIsNotFoundAgain() {
    SqlEngine sql = new SqlEngine(catalog);
    sql.prepare(COUNT);
    catalog.remove(EVENTS);
    SqlException e = assertThrows(SqlException.class, () -> sql.prepare(COUNT));
    assertEquals(SqlException.Kind.TABLE_NOT_FOUND, e.kind());
    assertEquals(0, sql.planCacheSize(), "the stale plan is not kept");
  }

  @Test
  void aBareNameThatBecameAmbiguousIsRefused() {
    SqlEngine sql = new SqlEngine(catalog);
    assertEquals(List.of(3L, 6L), answer(sql.prepare(COUNT)));
    catalog.put(new TableName("archive", "events"), table("archive-events", 7));
    SqlException e = assertThrows(SqlException.class, () -> sql.prepare(COUNT));
    assertEquals(SqlException.Kind.TABLE_NOT_FOUND, e.kind(), e.getMessage());
  }

  @Test
  void aPinnedStatementKeepsItsPlanAndItsDataAcrossAppends() {
    SqlEngine sql = new SqlEngine(catalog);
    Map<TableName, Version> pins = Map.of(EVENTS, events.currentVersion());
    PreparedQuery pinned = sql.prepare(JOIN, pins);
    append(events, 4);
    assertSame(pinned, sql.prepare(JOIN, pins));
    assertEquals(List.of(3L, 6L), answer(sql.prepare(JOIN, pins)));
    assertEquals(List.of(4L, 10L), answer(sql.prepare(JOIN)));
  }

  @Test
  void timeTravelStatementsArePlannedEachTimeAndStayCorrect() {
    SqlEngine sql = new SqlEngine(catalog);
    Version v1 = events.currentVersion();
    append(events, 4);
    String text = "SELECT count(*) AS n, sum(id) AS total FROM events FOR VERSION AS OF " + v1.number();
    PreparedQuery first = sql.prepare(text);
    assertNotSame(first, sql.prepare(text));
    assertEquals(List.of(3L, 6L), answer(sql.prepare(text)));
  }

  @Test
  void failedStatementsAreNotKept() {
    SqlEngine sql = new SqlEngine(catalog);
    for (int i = 0; i < 2; i++) {
      SqlException e = assertThrows(SqlException.class, () -> sql.prepare("SELECT nope FROM events"));
      assertEquals(SqlException.Kind.INVALID, e.kind());
    }
    assertEquals(0, sql.planCacheCounts()[0]);
    assertEquals(List.of(3L, 6L), answer(sql.prepare(COUNT)));
  }

  @Test
  void nothingIsKeptWhenDisabledOrWhenTheCatalogCannotTellChanges() {
    SqlEngine disabled = new SqlEngine(catalog, Long.MAX_VALUE, 1, null, 0);
    assertNotSame(disabled.prepare(COUNT), disabled.prepare(COUNT));
    SqlCatalog noGeneration = new SqlCatalog() {
      @Override
      public List<String> schemaNames() {
        return catalog.schemaNames();
      }

      @Override
      public List<String> tableNames(String schema) {
        return catalog.tableNames(schema);
      }

      @Override
      public java.util.Optional<TableHandle> openTable(TableName name) {
        return catalog.openTable(name);
      }
    };
    SqlEngine blind = new SqlEngine(noGeneration);
    assertNotSame(blind.prepare(COUNT), blind.prepare(COUNT));
    assertThrows(IllegalArgumentException.class, () -> new SqlEngine(catalog, Long.MAX_VALUE, 1, null, -1));
  }

  @Test
  void leastRecentlyUsedPlansAreEvicted() {
    SqlEngine sql = new SqlEngine(catalog, Long.MAX_VALUE, 1, null, 2);
    PreparedQuery a = sql.prepare(COUNT);
    PreparedQuery b = sql.prepare(JOIN);
    assertSame(a, sql.prepare(COUNT));
    sql.prepare("SELECT max(id) FROM events");
    assertSame(a, sql.prepare(COUNT));
    assertNotSame(b, sql.prepare(JOIN));
  }

  @Test
  void aKeptPlanRunsConcurrentlyWithCorrectAnswers() throws Exception {
    SqlEngine sql = new SqlEngine(catalog, Long.MAX_VALUE, 2);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<Long>>> answers = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        String text = i % 2 == 0 ? COUNT : JOIN;
        answers.add(pool.submit(() -> answer(sql.prepare(text))));
      }
      for (Future<List<Long>> f : answers) {
        assertEquals(List.of(3L, 6L), f.get());
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(64, sql.planCacheCounts()[0] + sql.planCacheCounts()[1]);
  }

  private List<Long> answerOfAllRows() {
    return answer(new SqlEngine(catalog, Long.MAX_VALUE, 1, null, 0).prepare(COUNT));
  }

  private List<Long> answer(PreparedQuery query) {
    try (BufferAllocator child = allocator.newChildAllocator("answer", 0, Long.MAX_VALUE);
        ArrowReader reader = query.execute(child)) {
      List<Long> row = new ArrayList<>();
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          row.add(((Number) root.getVector(0).getObject(r)).longValue());
          row.add(((Number) root.getVector(1).getObject(r)).longValue());
        }
      }
      return row;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private TableHandle table(String directory, long... ids) {
    TableHandle handle = log.create(TableLocation.of(dir.resolve(directory)), SCHEMA);
    handles.add(handle);
    append(handle, ids);
    return handle;
  }

  private void append(TableHandle table, long... ids) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      id.allocateNew(ids.length);
      for (int i = 0; i < ids.length; i++) {
        id.set(i, ids[i]);
      }
      root.setRowCount(ids.length);
      try (RecordBatchReader reader = new RecordBatchReader(allocator, SCHEMA,
          List.of(new VectorUnloader(root).getRecordBatch()))) {
        table.append(new AppendOperation("test", EVENTS.toString(), UUID.randomUUID(),
            String.format("%064x", ids.length)), reader);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
