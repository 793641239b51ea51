package dev.lake.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import java.nio.file.Path;
import org.apache.arrow.memory.RootAllocator;

/**
 * A new, empty log table of {@link LogTestData#ALL_TYPES} (blocks of 100 rows) with its engine and
 * an allocator that must hold nothing when the fixture closes.
 */
final class LogTableFixture implements AutoCloseable {
  final RootAllocator allocator = new RootAllocator();
  final TableEngine engine = LogTestData.engine(100, 1 << 20);
  final TableHandle table;

  LogTableFixture(Path dir) {
    table = engine.create(TableLocation.of(dir), LogTestData.ALL_TYPES);
  }

  @Override
  public void close() {
    table.close();
    engine.close();
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }
}
