package dev.lake.engine.log.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lookups a reader makes without opening a file: an object's size (a mapped segment is only
 * checked to be there, unchanged) and the whole object (the commit log's next entry is probed on
 * every refresh and is usually absent).
 */
class LocalObjectStoreLookupTest {

  @TempDir Path dir;

  @Test
  void sizeOfAPresentObjectIsItsLengthAndOfAnAbsentOneEmpty() throws IOException {
    try (LocalObjectStore store = new LocalObjectStore(dir)) {
      assertTrue(store.putIfAbsent("data/a.seg", new byte[1234]));
      assertEquals(OptionalLong.of(1234), store.size("data/a.seg"));
      assertEquals(OptionalLong.empty(), store.size("data/missing.seg"));
      assertEquals(OptionalLong.empty(), store.size("nowhere/missing.seg"), "absent directory");
      Files.delete(dir.resolve("data/a.seg"));
      assertEquals(OptionalLong.empty(), store.size("data/a.seg"), "deleted since");
    }
  }

  @Test
  void getOfAnAbsentObjectIsEmptyAndOfAPresentOneItsBytes() throws IOException {
    try (LocalObjectStore store = new LocalObjectStore(dir)) {
      assertTrue(store.get("_log/00000000000000000002.json").isEmpty());
      byte[] bytes = {1, 2, 3};
      assertTrue(store.putIfAbsent("_log/00000000000000000002.json", bytes));
      assertArrayEquals(bytes, store.get("_log/00000000000000000002.json").orElseThrow());
    }
  }
}
