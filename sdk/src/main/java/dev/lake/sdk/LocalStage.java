package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;

/**
 * The local stage of {@code lake dev}: objects of one tenant below {@code
 * file:///<stage>/tenants/<t>/}, each a file at its content key {@code objects/<hh>/<sha256>}.
 *
 * <p><b>Upload.</b> One pass: the file is copied into a temporary file in the stage's {@code
 * incoming/} directory (same file system) through one 1 MiB buffer while its SHA-256 and size
 * are computed, forced to disk, then renamed atomically to its content key and the directory
 * forced. A reader thus sees a content key either absent or complete. An object already at the
 * key whose bytes match is kept (the temporary file is dropped); one whose bytes do not match (a
 * damaged object) is replaced. A failed upload leaves no file behind.
 *
 * <p><b>Reads.</b> The whole object is verified at EOF (size and SHA-256); a range is exactly its
 * bytes, its length checked. Presigning is not supported: a {@code file:} URI is neither
 * time-limited nor reachable from another machine.
 */
final class LocalStage implements ObjectStage {

  private static final int BUFFER = 1 << 20;

  private final StageDescriptor descriptor;
  private final Path root;

  /** @throws IllegalArgumentException if the descriptor is not a {@code file:} stage */
  LocalStage(StageDescriptor descriptor) {
    if (descriptor.isS3() || descriptor.root().getRawAuthority() != null
        || descriptor.root().getRawQuery() != null || descriptor.root().getRawFragment() != null) {
      throw new IllegalArgumentException("not a local stage: " + descriptor.root());
    }
    this.descriptor = descriptor;
    this.root = Path.of(descriptor.root());
  }

  @Override
  public DataLocation put(Path file, String mimeType, UploadProgress progress) throws IOException {
    long expected = Files.size(file); // NoSuchFileException first, before the stage is touched
    Path incoming = Files.createDirectories(root.resolve("incoming"));
    Path tmp = Files.createTempFile(incoming, "upload-", ".part");
    try {
      MessageDigest sha = Digests.sha256();
      long size = copy(file, tmp, sha, expected, progress);
      String sha256 = Digests.hex(sha);
      String key = ObjectStage.contentKey(sha256);
      DataLocation location = new DataLocation(descriptor.root().resolve(key), mimeType, size,
          sha256);
      Path target = root.resolve(key);
      if (!Files.exists(target) || !matches(target, location)) {
        Path directory = Files.createDirectories(target.getParent());
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        force(directory);
      }
      progress.onProgress(size, size);
      return location;
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static long copy(Path file, Path tmp, MessageDigest sha, long expected,
      UploadProgress progress) throws IOException {
    byte[] buffer = new byte[BUFFER];
    ByteBuffer wrapped = ByteBuffer.wrap(buffer);
    long size = 0;
    try (InputStream in = Files.newInputStream(file);
        FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        sha.update(buffer, 0, n);
        wrapped.clear().limit(n);
        while (wrapped.hasRemaining()) {
          out.write(wrapped);
        }
        size += n;
        progress.onProgress(size, Math.max(size, expected));
      }
      out.force(true);
    }
    return size;
  }

  /** Whether the object at {@code target} has exactly the bytes {@code location} describes. */
  private static boolean matches(Path target, DataLocation location) throws IOException {
    if (Files.size(target) != location.size()) {
      return false;
    }
    try (InputStream in = new VerifyingInputStream(Files.newInputStream(target), location,
        location.size(), true)) {
      in.transferTo(java.io.OutputStream.nullOutputStream());
      return true;
    } catch (ObjectVerificationException e) {
      return false;
    }
  }

  private static void force(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some file systems cannot open a directory for reading; the rename is done regardless.
    }
  }

  @Override
  public InputStream open(DataLocation location, long from, long toExclusive) throws IOException {
    Path path = pathOf(location);
    ObjectStage.checkRange(location, from, toExclusive);
    boolean whole = from == 0 && toExclusive == location.size();
    FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
    try {
      channel.position(from);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    long length = toExclusive - from;
    return new VerifyingInputStream(Channels.newInputStream(channel), location, length, whole);
  }

  /**
   * Only {@code file:} URIs below this stage's tenant prefix whose rest is a content key: no other
   * tenant, no {@code ..}, authority, query or fragment.
   */
  @Override
  public boolean owns(DataLocation location) {
    URI uri = location.uri();
    String prefix = descriptor.root().getRawPath();
    String path = uri.getRawPath();
    return "file".equals(uri.getScheme()) && uri.getRawAuthority() == null
        && uri.getRawQuery() == null && uri.getRawFragment() == null && path != null
        && path.startsWith(prefix)
        && CONTENT_KEY.matcher(path.substring(prefix.length())).matches();
  }

  /** @throws UnsupportedOperationException always: a local stage has no URL to share */
  @Override
  public URI presign(DataLocation location, Duration ttl) {
    pathOf(location);
    throw new UnsupportedOperationException("the local stage " + descriptor.root()
        + " cannot presign " + location.uri() + ": read it with LakeClient.open");
  }

  private Path pathOf(DataLocation location) {
    if (!owns(location)) {
      throw new IllegalArgumentException(location.uri() + " is not an object of stage "
          + descriptor.root());
    }
    return Path.of(location.uri());
  }

  @Override
  public StageDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public void close() {
    // holds nothing open
  }
}
