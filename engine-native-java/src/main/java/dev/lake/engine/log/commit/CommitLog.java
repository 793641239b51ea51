package dev.lake.engine.log.commit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The {@code _log} directory of a table: one immutable file per version, named by the
 * zero-padded version number, created put-if-absent so exactly one writer wins each version.
 *
 * <p>An entry is written to a temp file, fsynced, then hard-linked to its final name. {@code link}
 * fails atomically if the name exists, and the name never points at a partial file, so a crash
 * at any moment leaves either no entry or a complete one. Rename is not used because it would
 * replace a concurrent winner's entry. Temp files (prefix {@code .tmp-}) are ignored by readers.
 */
public final class CommitLog {

  public static final String DIRECTORY = "_log";
  private static final Pattern ENTRY = Pattern.compile("\\d{20}\\.json");

  private final Path dir;

  public CommitLog(Path tableDir) {
    this.dir = tableDir.resolve(DIRECTORY);
  }

  public Path directory() {
    return dir;
  }

  public static String fileName(long version) {
    return String.format("%020d.json", version);
  }

  /** Whether the log directory exists at all. */
  public boolean exists() {
    return Files.isDirectory(dir);
  }

  /** Versions of every entry file present, ascending; temp files and strangers are ignored. */
  public TreeSet<Long> listVersions() throws IOException {
    TreeSet<Long> versions = new TreeSet<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (ENTRY.matcher(name).matches()) {
          versions.add(Long.parseLong(name.substring(0, 20)));
        }
      }
    }
    return versions;
  }

  /**
   * Reads the entry of {@code version}.
   *
   * @return empty if no entry was committed for it
   * @throws CorruptEntryException if the entry is there but damaged or names another version
   */
  public Optional<CommitEntry> read(long version) throws IOException {
    String name = fileName(version);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(dir.resolve(name));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    CommitEntry entry = EntryCodec.decode(DIRECTORY + "/" + name, bytes);
    if (entry.version() != version) {
      throw new CorruptEntryException(
          DIRECTORY + "/" + name, "records version " + entry.version(), null);
    }
    return Optional.of(entry);
  }

  /**
   * Creates the entry of {@code entry.version()} if no writer has yet.
   *
   * @return false if the version already exists (another writer won it); nothing was changed
   * @throws IOException if the storage failed; the entry may or may not have been created
   */
  public boolean tryCommit(CommitEntry entry) throws IOException {
    Files.createDirectories(dir);
    byte[] bytes = EntryCodec.encode(entry);
    Path temp = dir.resolve(".tmp-" + UUID.randomUUID() + ".json");
    try {
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      try {
        Files.createLink(dir.resolve(fileName(entry.version())), temp);
      } catch (FileAlreadyExistsException e) {
        return false;
      }
    } finally {
      Files.deleteIfExists(temp);
    }
    forceDirectory(dir);
    return true;
  }

  /** Makes the directory's entries durable (needed after creating or linking files in it). */
  public static void forceDirectory(Path directory) throws IOException {
    try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
