package dev.lake.engine.log;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** File helpers for tests that manage their own directories. */
final class LogTestFiles {

  private LogTestFiles() {}

  static void deleteTree(Path root) throws IOException {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Flips one bit of the byte at {@code position} (again to restore it). */
  static void flipByte(Path file, long position) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(position);
      int b = f.read();
      f.seek(position);
      f.write(b ^ 0x10);
    }
  }
}
