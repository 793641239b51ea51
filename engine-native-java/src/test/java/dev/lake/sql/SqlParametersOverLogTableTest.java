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
 * Parameters over a real {@code log} table: the statement is planned once and re-executed with
 * new values from the plan cache, and a bound value prunes blocks like a literal does.
 */
class SqlParametersOverLogTableTest {
  private static final TableName EVENTS = new TableName("robots", "events");
  private static final Schema SCHEMA = new Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.notNullable("steps", new ArrowType.Int(64, true))));
  private static final int ROWS = 10_000;

  @TempDir Path dir;
  private BufferAllocator allocator;
  private TableEngine log;
  private TableHandle events;
  private MapCatalog catalog;

  @BeforeEach
  void open() throws Exception {
    allocator = new RootAllocator();
    log = ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow()
        .create(Map.of("log.block.rows", "1000"));
    events = log.create(TableLocation.of(dir.resolve("events")), SCHEMA);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      BigIntVector steps = (BigIntVector) root.getVector("steps");
      id.allocateNew(ROWS);
      steps.allocateNew(ROWS);
      for (int i = 0; i < ROWS; i++) {
        id.set(i, i);
        steps.set(i, i * 10L);
      }
      root.setRowCount(ROWS);
      try (RecordBatchReader reader = new RecordBatchReader(allocator, SCHEMA,
          List.of(new VectorUnloader(root).getRecordBatch()))) {
        events.append(new AppendOperation("test", EVENTS.toString(), UUID.randomUUID(),
            String.format("%064x", 1)), reader);
      }
    }
    catalog = new MapCatalog().put(EVENTS, events);
  }

  @AfterEach
  void close() {
    events.close();
    log.close();
    assertEquals(0, allocator.getAllocatedMemory());
    allocator.close();
  }

  private List<Long> column(PreparedQuery query) throws Exception {
    List<Long> out = new ArrayList<>();
    try (BufferAllocator child = allocator.newChildAllocator("q", 0, Long.MAX_VALUE);
        ArrowReader reader = query.execute(child)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          out.add(((Number) root.getVector(0).getObject(r)).longValue());
        }
      }
    }
    return out;
  }

  @Test
  void reExecutionWithNewValuesReusesThePlanOfTheText() throws Exception {
    SqlEngine sql = new SqlEngine(catalog);
    String lookup = "SELECT steps FROM robots.events WHERE id = ?";
    for (long id = 0; id < 50; id++) {
      assertEquals(List.of(id * 10), column(sql.prepare(lookup, Map.of(), List.of(id))));
    }
    assertEquals(1, sql.planCacheCounts()[1], "planned once");
    assertEquals(49, sql.planCacheCounts()[0], "then bound from the kept plan");
  }

  @Test
  void aBoundValuePrunesBlocksAndLimitsLikeALiteral() {
    SqlEngine sql = new SqlEngine(catalog);
    String scan = sql.prepare("SELECT steps FROM robots.events WHERE id BETWEEN ? AND ?", Map.of(), List.of(3100L, 3199L))
        .explain().getLast();
    assertTrue(scan.contains("pushed="), scan);
    assertTrue(scan.contains("blocks=10 pruned=9"), scan);
    String literal = sql.prepare("SELECT steps FROM robots.events WHERE id BETWEEN 3100 AND 3199").explain().getLast();
    assertTrue(literal.contains("blocks=10 pruned=9"), literal);
    List<String> limited = sql.prepare("SELECT id FROM robots.events ORDER BY id DESC LIMIT ?", Map.of(), List.of(3))
        .explain();
    assertTrue(limited.getFirst().contains("limit 3"), limited.toString());
  }

  @Test
  void oneKeptPlanBindsConcurrentlyWithCorrectAnswers() throws Exception {
    SqlEngine sql = new SqlEngine(catalog, Long.MAX_VALUE, 2);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<Long>>> answers = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        long id = i * 97L;
        answers.add(pool.submit(() -> column(sql.prepare(
            "SELECT steps FROM robots.events WHERE id = ? OR id = ? + 1 ORDER BY steps", Map.of(), List.of(id, id)))));
      }
      for (int i = 0; i < 64; i++) {
        assertEquals(List.of(i * 970L, i * 970L + 10), answers.get(i).get());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
