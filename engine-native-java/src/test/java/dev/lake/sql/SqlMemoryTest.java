package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/** The fixture asserts after every test that the root allocator holds no memory. */
class SqlMemoryTest extends SqlFixture {

  @Test
  void closingBeforeReadingEverythingReleasesAllBuffers() throws Exception {
    for (String sql : List.of(
        "SELECT * FROM episodes", "SELECT robot, count(*) FROM episodes GROUP BY robot",
        "SELECT * FROM episodes ORDER BY id DESC", "SELECT id FROM episodes WHERE id > 2 LIMIT 1",
        "SELECT DISTINCT task FROM episodes")) {
      try (ArrowReader reader = engine.prepare(sql).execute(allocator)) {
        assertTrue(reader.loadNextBatch());
      }
      try (ArrowReader reader = engine.prepare(sql).execute(allocator)) {
        assertEquals(engine.prepare(sql).schema(), reader.getVectorSchemaRoot().getSchema());
      }
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void queryOverItsBudgetIsResourceExhaustedNamingTheBudgetAndLeaksNothing() throws Exception {
    SqlEngine small = new SqlEngine(catalog, 256);
    for (String sql : List.of("SELECT * FROM episodes ORDER BY id",
        "SELECT a.id, b.robot FROM episodes a JOIN episodes b ON a.id = b.id")) {
      SqlException e = assertThrows(SqlException.class, () -> {
        try (ArrowReader reader = small.prepare(sql).execute(allocator)) {
          while (reader.loadNextBatch()) {
            assertTrue(reader.getVectorSchemaRoot().getRowCount() >= 0);
          }
        }
      });
      assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED, e.kind(), e.getMessage());
      assertTrue(e.getMessage().contains("query memory budget of 256 bytes"), e.getMessage());
      assertEquals(0, allocator.getAllocatedMemory());
    }
    try (BufferAllocator process = allocator.newChildAllocator("process", 0, 512)) {
      SqlException e = assertThrows(SqlException.class, () -> {
        try (ArrowReader reader = engine.prepare("SELECT * FROM episodes").execute(process)) {
          while (reader.loadNextBatch()) {
            assertTrue(reader.getVectorSchemaRoot().getRowCount() >= 0);
          }
        }
      });
      assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED, e.kind(), e.getMessage());
    }
  }

  @Test
  void failureMidQueryLeavesNothingAllocatedAfterClose() throws Exception {
    // id 1..3 are fine, id = 4 divides by zero in the second batch.
    PreparedQuery q = engine.prepare("SELECT robot, 10 / (id - 4) FROM episodes");
    try (ArrowReader reader = q.execute(allocator)) {
      assertTrue(reader.loadNextBatch());
      SqlException e = assertThrows(SqlException.class, reader::loadNextBatch);
      assertEquals(SqlException.Kind.EXECUTION, e.kind());
    }
    PreparedQuery sorted = engine.prepare("SELECT robot FROM episodes ORDER BY 10 / (id - 8)");
    try (ArrowReader reader = sorted.execute(allocator)) {
      assertThrows(SqlException.class, reader::loadNextBatch);
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void eachExecutionRunsInItsOwnNamedChildAllocator() throws Exception {
    try (ArrowReader reader = engine.prepare("SELECT * FROM episodes").execute(allocator)) {
      reader.loadNextBatch();
      assertEquals(1, allocator.getChildAllocators().size());
      String name = allocator.getChildAllocators().iterator().next().getName();
      assertTrue(name.startsWith("sql-query-") && name.endsWith("demo.episodes"), name);
    }
    assertEquals(0, allocator.getChildAllocators().size());
  }

  @Test
  void onePreparedQueryRunsConcurrently() throws Exception {
    PreparedQuery q = engine.prepare(
        "SELECT robot, count(*), sum(duration_s) FROM episodes GROUP BY robot ORDER BY robot");
    List<List<Object>> expected = rows(q);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<List<Object>>>> futures = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        futures.add(pool.submit(() -> rows(q)));
      }
      for (Future<List<List<Object>>> f : futures) {
        assertEquals(expected, f.get());
      }
    } finally {
      pool.shutdown();
    }
  }
}
