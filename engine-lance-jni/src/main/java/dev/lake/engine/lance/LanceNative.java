package dev.lake.engine.lance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.lance.JniLoader;

/**
 * Loads Lance's native library on first use and removes the copy it leaves in the temp folder.
 *
 * <p>lance-core's {@code JniLoader} (through QuestDB's {@code JarJniLoader}) copies {@code
 * liblance_jni.so} (about 180 MB) out of the jar into a fresh {@code java.io.tmpdir/liblance_jni
 * <random>.so}, {@code System.load}s it and marks it {@code deleteOnExit}. It does so when the
 * first Lance class that needs native code is initialized ({@code Session}, {@code Dataset},
 * {@code Fragment}, {@code CommitBuilder}...), not when the jar is on the class path. The copy
 * therefore survives every JVM that is killed ({@code SIGKILL}, crash, {@code Runtime.halt}) and
 * each such JVM leaks 180 MB of temp space.
 *
 * <p>Once {@code dlopen} has mapped the library the file is no longer needed on Linux: the mapping
 * keeps the inode alive. So right after loading, this class finds the copy through {@code
 * /proc/self/maps} and deletes it; only a JVM killed during the copy itself can leave one behind.
 * Elsewhere (no {@code /proc}) the {@code deleteOnExit} of the loader remains the only cleanup.
 */
final class LanceNative {

  private static final String LIBRARY = "liblance_jni";
  private static volatile boolean loaded;

  private LanceNative() {}

  /**
   * Loads the library if this JVM has not yet, then deletes its temp copy (Linux).
   *
   * @throws LinkageError if the library cannot be loaded (wrong platform, glibc older than 2.28,
   *     a temp folder that does not allow executables)
   */
  static void ensureLoaded() {
    if (loaded) {
      return;
    }
    synchronized (LanceNative.class) {
      if (!loaded) {
        JniLoader.ensureLoaded();
        deleteMappedCopies(Path.of("/proc/self/maps"), Path.of(System.getProperty("java.io.tmpdir")));
        loaded = true;
      }
    }
  }

  /** Whether this JVM has loaded the library through this class (for tests and diagnostics). */
  static boolean isLoaded() {
    return loaded;
  }

  /**
   * Deletes the files named {@code liblance_jni*.so} directly in {@code tmpdir} that {@code maps}
   * (a {@code /proc/<pid>/maps} listing) shows mapped. Best effort: a missing listing or a file
   * that cannot be deleted is left alone, and the loader's {@code deleteOnExit} still applies.
   *
   * @return the files deleted
   */
  static Set<Path> deleteMappedCopies(Path maps, Path tmpdir) {
    Set<Path> deleted = new LinkedHashSet<>();
    if (!Files.isReadable(maps) || !Files.isDirectory(tmpdir)) {
      return deleted;
    }
    Path folder;
    try {
      folder = tmpdir.toRealPath(); // the maps listing shows resolved paths
    } catch (IOException e) {
      return deleted;
    }
    try (Stream<String> lines = Files.lines(maps)) {
      for (Path file : (Iterable<Path>) lines.map(LanceNative::mappedPath)
          .filter(p -> p != null && folder.equals(p.getParent()))
          .filter(p -> p.getFileName().toString().startsWith(LIBRARY) && p.getFileName().toString().endsWith(".so"))
          .distinct()::iterator) {
        if (Files.deleteIfExists(file)) {
          deleted.add(file);
        }
      }
    } catch (IOException | RuntimeException e) {
      // best effort: the loader's deleteOnExit still removes the copy at a normal exit
    }
    return deleted;
  }

  /** The file of one {@code maps} line ("addr perms offset dev inode path"), or null. */
  private static Path mappedPath(String line) {
    int slash = line.indexOf('/');
    if (slash < 0) {
      return null;
    }
    String path = line.substring(slash);
    if (path.endsWith(" (deleted)")) {
      return null;
    }
    return Path.of(path).toAbsolutePath().normalize();
  }
}
