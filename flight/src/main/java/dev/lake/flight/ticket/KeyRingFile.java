package dev.lake.flight.ticket;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key ring file that replicas reload when it changes, so keys rotate without a restart: each
 * {@link #get} looks at the file's modification time and size at most once per check interval
 * and reads it again when either moved. A file that no longer reads as a key ring is logged and
 * the last good ring is kept (a half-edited file never takes a server's keys away).
 */
public final class KeyRingFile implements Supplier<KeyRing> {

  private static final Logger LOG = LoggerFactory.getLogger(KeyRingFile.class);

  private final Path file;
  private final long checkIntervalNanos;
  private volatile KeyRing ring;
  private volatile Stamp stamp;
  private volatile long checkedAt;

  private record Stamp(FileTime modified, long size, Object key) {}

  private KeyRingFile(Path file, long checkIntervalNanos, KeyRing ring, Stamp stamp) {
    this.file = file;
    this.checkIntervalNanos = checkIntervalNanos;
    this.ring = ring;
    this.stamp = stamp;
    this.checkedAt = System.nanoTime();
  }

  /**
   * Loads {@code file}, to be looked at again at most every {@code checkInterval}.
   *
   * @throws IOException if it cannot be read
   * @throws IllegalArgumentException if it is not a private key ring file ({@link KeyRing#load})
   */
  public static KeyRingFile open(Path file, java.time.Duration checkInterval) throws IOException {
    Objects.requireNonNull(file, "file");
    Stamp stamp = stamp(file);
    return new KeyRingFile(file, checkInterval.toNanos(), KeyRing.load(file), stamp);
  }

  @Override
  public KeyRing get() {
    long now = System.nanoTime();
    if (now - checkedAt >= checkIntervalNanos) {
      checkedAt = now;
      reloadIfChanged();
    }
    return ring;
  }

  /** Reads the file again if it changed; true if a new ring was taken. */
  public synchronized boolean reloadIfChanged() {
    try {
      Stamp now = stamp(file);
      if (now.equals(stamp)) {
        return false;
      }
      KeyRing next = KeyRing.load(file);
      ring = next;
      stamp = now;
      LOG.info("key ring {} reloaded: active key {}", file, next.activeId());
      return true;
    } catch (IOException | IllegalArgumentException e) {
      LOG.warn("key ring {} cannot be reloaded, keeping the last good one: {}", file, e.getMessage());
      return false;
    }
  }

  private static Stamp stamp(Path file) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    return new Stamp(attributes.lastModifiedTime(), attributes.size(), attributes.fileKey());
  }
}
