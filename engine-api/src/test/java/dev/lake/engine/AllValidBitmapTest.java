package dev.lake.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

class AllValidBitmapTest {

  @Test
  void aWrappedBitmapHasEveryBitSetIsRecognisedAndIsAccountedWhileOpen() {
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int rows : new int[] {1, 7, 8, 9, 65_536, 100_003, AllValidBitmap.MAX_ROWS}) {
        try (ArrowBuf bitmap = AllValidBitmap.wrap(allocator, rows)) {
          assertEquals((rows + 7) / 8, bitmap.capacity());
          assertEquals((rows + 7) / 8, allocator.getAllocatedMemory());
          for (long i = 0; i < bitmap.capacity(); i++) {
            assertEquals((byte) -1, bitmap.getByte(i), "byte " + i + " of " + rows + " rows");
          }
          assertTrue(AllValidBitmap.covers(bitmap));
          assertTrue(AllValidBitmap.covers(bitmap.slice(0, 1)));
          if (bitmap.capacity() > 1) {
            assertFalse(AllValidBitmap.covers(bitmap.slice(1, 1)), "a slice past its start is not known to be all set");
          }
        }
        assertEquals(0, allocator.getAllocatedMemory());
      }
    }
  }

  @Test
  void otherBuffersAreNotTakenForIt() {
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf ones = allocator.buffer(8)) {
      ones.setLong(0, -1L);
      assertFalse(AllValidBitmap.covers(ones));
      assertFalse(AllValidBitmap.covers(null));
    }
  }

  @Test
  void rowsBeyondItsSizeAreRefused() {
    try (BufferAllocator allocator = new RootAllocator()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> AllValidBitmap.wrap(allocator, AllValidBitmap.MAX_ROWS + 1));
      assertTrue(e.getMessage().contains(String.valueOf(AllValidBitmap.MAX_ROWS + 1)), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> AllValidBitmap.wrap(allocator, -1));
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }

  /** Shared by every NULL-free column, so a stray write must fault, not corrupt them all. */
  @Test
  void itsMemoryIsReadOnly() {
    assertTrue(AllValidBitmap.readOnly());
  }
}
