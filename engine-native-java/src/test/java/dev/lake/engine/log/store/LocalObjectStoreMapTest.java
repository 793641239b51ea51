package dev.lake.engine.log.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local object mapped for reading: the bytes of the file, with huge pages advised where Linux
 * supports them (the mapping's {@code VmFlags} then show {@code hg}, set by
 * {@code madvise(MADV_HUGEPAGE)}), and no advice where they cannot help.
 */
class LocalObjectStoreMapTest {
  private static final long MIB = 1 << 20;

  @TempDir Path dir;

  @Test
  void aLargeMappingHasTheFileBytesAndHugePagesAdvisedWhereTheKernelHasThem() throws IOException {
    byte[] bytes = new byte[(int) (6 * MIB + 123)];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 31 + (i >>> 12));
    }
    try (LocalObjectStore store = new LocalObjectStore(dir); Arena arena = Arena.ofConfined()) {
      assertTrue(store.putIfAbsent("data/a.seg", bytes));
      try (ObjectStore.ReadableObject object = store.open("data/a.seg")) {
        MemorySegment mapping = object.map(arena).orElseThrow();
        assertEquals(bytes.length, mapping.byteSize());
        for (long at : new long[] {0, 4095, 2 * MIB + 1, bytes.length - 1}) {
          assertEquals(bytes[(int) at], mapping.get(ValueLayout.JAVA_BYTE, at), "byte " + at);
        }
        Optional<List<String>> flags = vmFlags(mapping);
        if (transparentHugePages()) {
          assertTrue(flags.orElseThrow().contains("hg"), "VmFlags " + flags.get());
        } else {
          // Not Linux, or a kernel without transparent huge pages: the advice is not given.
          assertFalse(HugePages.advise(mapping));
        }
      }
    }
  }

  @Test
  void aMappingSmallerThanOneHugePageIsNotAdvised() throws IOException {
    try (LocalObjectStore store = new LocalObjectStore(dir); Arena arena = Arena.ofConfined()) {
      assertTrue(store.putIfAbsent("data/small.seg", new byte[(int) MIB]));
      try (ObjectStore.ReadableObject object = store.open("data/small.seg")) {
        MemorySegment mapping = object.map(arena).orElseThrow();
        assertFalse(HugePages.advise(mapping));
        vmFlags(mapping).ifPresent(flags -> assertFalse(flags.contains("hg"), "VmFlags " + flags));
      }
    }
  }

  private static boolean transparentHugePages() {
    return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
        && Files.exists(Path.of("/sys/kernel/mm/transparent_hugepage/enabled"));
  }

  /** The {@code VmFlags} of the mapping starting at {@code mapping}'s address, from /proc/self/smaps. */
  private static Optional<List<String>> vmFlags(MemorySegment mapping) throws IOException {
    Path smaps = Path.of("/proc/self/smaps");
    if (!Files.exists(smaps)) {
      return Optional.empty();
    }
    String start = Long.toHexString(mapping.address()) + "-";
    boolean inside = false;
    for (String line : Files.readAllLines(smaps)) {
      if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
        inside = line.startsWith(start);
      } else if (inside && line.startsWith("VmFlags:")) {
        return Optional.of(List.of(line.substring("VmFlags:".length()).trim().split("\\s+")));
      }
    }
    throw new AssertionError("no mapping at " + start + " in " + smaps);
  }
}
