package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests over real {@code log} tables: before each test a fresh {@link LogTablesCatalog} in a
 * temporary directory and a {@link SqlEngine} over it on two workers; after each, the catalog is
 * closed and the allocator must have released every Arrow buffer.
 */
abstract class LogTablesFixture {
  @TempDir Path dir;
  RootAllocator allocator;
  LogTablesCatalog catalog;
  SqlEngine engine;

  @BeforeEach
  void openLogTables() {
    allocator = new RootAllocator();
    catalog = new LogTablesCatalog(dir);
    engine = new SqlEngine(catalog, Long.MAX_VALUE, 2);
  }

  @AfterEach
  void closeLogTables() {
    catalog.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }
}
