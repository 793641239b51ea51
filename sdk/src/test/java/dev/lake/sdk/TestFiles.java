package dev.lake.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/** Files of seeded random bytes and whole-stream reads, for tests. */
final class TestFiles {
  private TestFiles() {}

  /** {@code dir/f<seed>} of {@code size} random bytes from {@code seed}, written 1 MiB at a time. */
  static Path random(Path dir, long seed, long size) throws IOException {
    Path file = dir.resolve("f" + seed);
    Random random = new Random(seed);
    byte[] chunk = new byte[1 << 20];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long left = size; left > 0; left -= chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
    }
    return file;
  }

  /** Every byte of {@code in}, which is closed. */
  static byte[] readAll(InputStream in) throws IOException {
    try (in) {
      return in.readAllBytes();
    }
  }

  /** Reads {@code in} to its end without keeping the bytes; closes it. */
  static long drain(InputStream in) throws IOException {
    try (in) {
      return in.transferTo(OutputStream.nullOutputStream());
    }
  }
}
