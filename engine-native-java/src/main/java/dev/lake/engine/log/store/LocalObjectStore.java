package dev.lake.engine.log.store;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * A table directory on local disk. Put-if-absent writes a temp file ({@code .tmp-} prefix,
 * ignored by listings), fsyncs it and hard-links it to its name: {@code link} fails atomically if
 * the name exists and the name never points at a partial file. Rename is never used, since it
 * would replace a concurrent winner. Directory entries are fsynced after every creation. New
 * objects written with {@link #create} are flushed behind their writer ({@link FlushBehind})
 * every {@value #FLUSH_BEHIND_BYTES} bytes.
 */
public final class LocalObjectStore implements ObjectStore {

  static final String TEMP_PREFIX = ".tmp-";

  /**
   * Bytes between the flushes started behind a writer of a new object. Each flush of a growing
   * file also commits the file system's journal, hence not smaller; on the development VM 4 to
   * 16 MiB measured alike and 32 MiB or more left visibly more to the final flush.
   */
  static final long FLUSH_BEHIND_BYTES = 16L << 20;

  private final Path root;
  private final long flushBehindBytes;

  public LocalObjectStore(Path root) {
    this(root, FLUSH_BEHIND_BYTES);
  }

  /** @param flushBehindBytes bytes between the flushes started behind a writer (see FlushBehind) */
  LocalObjectStore(Path root, long flushBehindBytes) {
    this.root = root;
    this.flushBehindBytes = flushBehindBytes;
  }

  public Path root() {
    return root;
  }

  public Path path(String key) {
    return root.resolve(key);
  }

  @Override
  public String describe(String key) {
    return path(key).toString();
  }

  @Override
  public boolean putIfAbsent(String key, byte[] bytes) throws IOException {
    Path target = path(key);
    Path dir = target.getParent();
    Files.createDirectories(dir);
    Path temp = dir.resolve(TEMP_PREFIX + UUID.randomUUID());
    try {
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        // fdatasync: the bytes and the size needed to read them; the link and the directory's
        // fsync below make the name durable.
        ch.force(false);
      }
      try {
        Files.createLink(target, temp);
      } catch (FileAlreadyExistsException e) {
        return false;
      }
    } finally {
      Files.deleteIfExists(temp);
    }
    forceDirectory(dir);
    return true;
  }

  @Override
  public ObjectWriter create(String key) throws IOException {
    Path file = path(key);
    Files.createDirectories(file.getParent());
    // CREATE_NEW: keys of new objects are fresh UUIDs, so an existing file means a bug, not a retry.
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    // fdatasync behind the writer, on another thread: FileChannel.force takes no lock that the
    // writer's sequential writes hold, so they go on meanwhile.
    FlushBehind flushBehind = new FlushBehind(flushBehindBytes, () -> channel.force(false));
    return new ObjectWriter() {
      private long position;
      private boolean committed;
      private boolean closed;

      @Override
      public void write(ByteBuffer... buffers) throws IOException {
        // Sequential writes from the channel's own position, which only this writer moves.
        long remaining = 0;
        for (ByteBuffer b : buffers) {
          remaining += b.remaining();
        }
        while (remaining > 0) {
          long n = channel.write(buffers);
          position += n;
          remaining -= n;
        }
        flushBehind.written(position);
      }

      @Override
      public long position() {
        return position;
      }

      @Override
      public long commit() throws IOException {
        flushBehind.await();
        // fdatasync: the bytes and the size needed to read them back (not the timestamps).
        channel.force(false);
        channel.close();
        // The file's directory entry must be durable before a commit entry names it.
        forceDirectory(file.getParent());
        committed = true;
        return position;
      }

      @Override
      public void close() throws IOException {
        if (closed) {
          return;
        }
        closed = true;
        flushBehind.awaitQuietly();
        channel.close();
        if (!committed) {
          Files.deleteIfExists(file);
        }
      }
    };
  }

  @Override
  public Optional<byte[]> get(String key) throws IOException {
    Path path = path(key);
    // Every refresh probes the next commit-log entry, which is nearly always absent: checking
    // costs a fifth of a failed read, which throws twice (0.6 against 3 us).
    if (!Files.exists(path)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Files.readAllBytes(path));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** One {@code stat}: a third of the system calls of opening, sizing and closing the file. */
  @Override
  public OptionalLong size(String key) throws IOException {
    try {
      return OptionalLong.of(Files.size(path(key)));
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    }
  }

  @Override
  public ReadableObject open(String key) throws IOException {
    FileChannel ch = FileChannel.open(path(key), StandardOpenOption.READ);
    long size = ch.size();
    return new ReadableObject() {
      @Override
      public long size() {
        return size;
      }

      @Override
      public void read(long position, ByteBuffer target) throws IOException {
        long pos = position;
        while (target.hasRemaining()) {
          int n = ch.read(target, pos);
          if (n < 0) {
            throw new EOFException("unexpected end of object at byte " + pos);
          }
          pos += n;
        }
      }

      @Override
      public Optional<MemorySegment> map(Arena arena) throws IOException {
        MemorySegment mapping = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        HugePages.advise(mapping);
        return Optional.of(mapping);
      }

      @Override
      public void close() throws IOException {
        ch.close();
      }
    };
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
    int slash = prefix.lastIndexOf('/');
    Path dir = slash < 0 ? root : root.resolve(prefix.substring(0, slash));
    String namePrefix = prefix.substring(slash + 1);
    String dirKey = slash < 0 ? "" : prefix.substring(0, slash + 1);
    List<ObjectInfo> out = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        String key = dirKey + name;
        if (!name.startsWith(namePrefix) || name.startsWith(TEMP_PREFIX)
            || (startAfter != null && key.compareTo(startAfter) <= 0)) {
          continue;
        }
        try {
          BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
          if (a.isRegularFile()) {
            out.add(new ObjectInfo(key, a.size(), a.lastModifiedTime().toInstant()));
          }
        } catch (NoSuchFileException e) {
          // deleted while listing
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    out.sort(Comparator.comparing(ObjectInfo::key));
    return out;
  }

  @Override
  public void delete(String key) throws IOException {
    Files.deleteIfExists(path(key));
  }

  @Override
  public void deleteAll() throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE;
          }
          throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
          if (e != null && !(e instanceof NoSuchFileException)) {
            throw e;
          }
          Files.deleteIfExists(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (NoSuchFileException e) {
      // dropped concurrently: the goal is reached
    }
  }

  @Override
  public void close() {}

  /** Makes the directory's entries durable (needed after creating or linking files in it). */
  static void forceDirectory(Path directory) throws IOException {
    try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
